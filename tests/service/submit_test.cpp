// SubmitSweep's refusals reach the client whatever their size: the problems travel in the reply body (the
// status message is sent as metadata, which gRPC clients cap at 8 KiB), bounded in number, the rest counted.
#include <gtest/gtest.h>

#include "cli/client/coordinator_client.h"
#include "core/limits.h"
#include "tests/service/in_process_coordinator.h"

namespace gammalab::testing {
namespace {

// The problems of `keys` unknown keys, as SubmitSweep replies them.
v1::SubmitSweepResponse submit_unknown_keys(InProcessCoordinator& coordinator, int keys, grpc::Status& status) {
  std::string yaml = "name: many\nbase:\n";
  for (int i = 0; i < keys; ++i) yaml += "  unknown_key_number_" + std::to_string(i) + ": 1\n";
  auto stub = connect_coordinator(coordinator.address());
  v1::SubmitSweepRequest request;
  request.set_yaml(yaml);
  request.set_file_name("many.yaml");
  v1::SubmitSweepResponse response;
  status = stub->SubmitSweep(rpc_context().get(), request, &response);
  return response;
}

TEST(Submit, AFileWithHundredsOfProblemsIsRefusedWithEveryProblemInTheReply) {
  InProcessCoordinator coordinator("submit-problems");
  grpc::Status status;
  const v1::SubmitSweepResponse response = submit_unknown_keys(coordinator, 300, status);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_FALSE(response.has_sweep());
  ASSERT_EQ(response.problems_size(), 300);
  EXPECT_EQ(response.problems_omitted(), 0);
  const v1::SweepProblem& first = response.problems(0);
  EXPECT_EQ(first.file(), "many.yaml");
  EXPECT_EQ(first.line(), 3);
  EXPECT_EQ(first.column(), 3);
  EXPECT_EQ(first.path(), "base.unknown_key_number_0");
  EXPECT_NE(first.message().find("unknown key"), std::string::npos) << first.message();
  EXPECT_EQ(response.problems(299).path(), "base.unknown_key_number_299");
  EXPECT_TRUE(coordinator.store().list_sweeps().empty()) << "nothing stored";
}

TEST(Submit, ProblemsBeyondTheLimitAreCounted) {
  InProcessCoordinator coordinator("submit-many-problems");
  grpc::Status status;
  const v1::SubmitSweepResponse response = submit_unknown_keys(coordinator, 1500, status);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(static_cast<std::size_t>(response.problems_size()), limits::kMaxReportedProblems);
  EXPECT_EQ(response.problems_size() + response.problems_omitted(), 1500);
  EXPECT_TRUE(coordinator.store().list_sweeps().empty());
}

}  // namespace
}  // namespace gammalab::testing
