// SubmitSweep's refusals reach the client whatever their size: the problems travel in the status message
// (sent as metadata, which gRPC clients cap at 8 KiB), so it lists what fits and counts the rest.
#include <gtest/gtest.h>

#include "cli/client/coordinator_client.h"
#include "core/limits.h"
#include "tests/service/in_process_coordinator.h"

namespace gammalab::testing {
namespace {

TEST(Submit, AFileWithHundredsOfProblemsIsRefusedWithAMessageThatArrives) {
  InProcessCoordinator coordinator("submit-problems");
  std::string yaml = "name: many\nbase:\n";
  for (int i = 0; i < 300; ++i) yaml += "  unknown_key_number_" + std::to_string(i) + ": 1\n";
  auto stub = connect_coordinator(coordinator.address());
  v1::SubmitSweepRequest request;
  request.set_yaml(yaml);
  request.set_file_name("many.yaml");
  v1::SubmitSweepResponse response;
  const grpc::Status status = stub->SubmitSweep(rpc_context().get(), request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_LE(status.error_message().size(), limits::kMaxStatusMessageBytes);
  EXPECT_NE(status.error_message().find("many.yaml:3:3: base.unknown_key_number_0: unknown key"), std::string::npos)
      << status.error_message();
  EXPECT_NE(status.error_message().find("more problem(s); `gammalab validate FILE` lists them all"), std::string::npos)
      << status.error_message();
  EXPECT_TRUE(coordinator.store().list_sweeps().empty()) << "nothing stored";
}

}  // namespace
}  // namespace gammalab::testing
