// One shared root, one database (core/shared_root_claim.h), checked on the real binaries: a coordinator whose
// --shared-root holds another database's jobs refuses to start, and so does a worker whose shared root is not
// its coordinator's; the same database started again (a restart, a restored backup) is welcome.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/service/in_process_coordinator.h"
#include "worker/child_process.h"

namespace gammalab::testing {
namespace {

std::string text_of(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(SharedRootClaim, ASecondDatabaseOnOneSharedRootIsRefusedAndTheSameOneWelcome) {
  const auto dir = temp_db("shared-claim").parent_path();
  const std::string server = std::string(GAMMALAB_BINARY_DIR) + "/server/gammalab-server";
  const std::string worker = std::string(GAMMALAB_BINARY_DIR) + "/worker/gammalab-worker";
  auto start = [&](const std::string& db, const std::string& root, const std::string& log) {
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{server, "--listen", "127.0.0.1:0", "--db", (dir / (db + ".db")).string(),
                                 "--shared-root", (dir / root).string(), "--insecure-no-auth"},
        std::vector<std::string>{}, (dir / log).string());
  };
  auto first = start("first", "shared", "first.log");
  const auto line = first->read_line();
  ASSERT_TRUE(line) << text_of(dir / "first.log");
  const std::string marker = text_of(dir / "shared" / ".gammalab-database");
  ASSERT_EQ(marker.size(), 33u) << marker;

  // Another database on the same root: refused before it serves anything, naming the marker and both uids.
  auto second = start("second", "shared", "second.log");
  if (second->read_line()) {
    ADD_FAILURE() << "a second database started on the first one's shared root";
    second->signal(SIGKILL);
  }
  EXPECT_EQ(second->wait(), 1);
  const std::string refused = text_of(dir / "second.log");
  EXPECT_NE(refused.find("holds the jobs of another database"), std::string::npos) << refused;
  EXPECT_NE(refused.find(marker.substr(0, 32)), std::string::npos) << refused;
  EXPECT_EQ(text_of(dir / "shared" / ".gammalab-database"), marker);

  // A worker whose shared root is another database's leases nothing and exits 2.
  const int port = nlohmann::json::parse(*line).at("grpc_port").get<int>();
  std::filesystem::create_directories(dir / "other-shared");
  std::ofstream(dir / "other-shared" / ".gammalab-database") << "fedcba9876543210fedcba9876543210\n";
  ChildProcess stray({worker, "--coordinator", "127.0.0.1:" + std::to_string(port), "--shared-root",
                      (dir / "other-shared").string(), "--slots", "1"},
                     {}, (dir / "worker.log").string());
  EXPECT_EQ(stray.wait(), 2);
  const std::string worker_log = text_of(dir / "worker.log");
  EXPECT_NE(worker_log.find("holds the jobs of another database"), std::string::npos) << worker_log;
  EXPECT_NE(worker_log.find("this worker leases nothing and stops"), std::string::npos) << worker_log;

  // The same database again (a restart; a restored backup keeps the uid): it starts.
  first->signal(SIGTERM);
  EXPECT_EQ(first->wait(), 0);
  auto again = start("first", "shared", "again.log");
  EXPECT_TRUE(again->read_line()) << text_of(dir / "again.log");
  again->signal(SIGTERM);
  EXPECT_EQ(again->wait(), 0);
}

}  // namespace
}  // namespace gammalab::testing
