// The coordinator process as an administrator starts it by hand: owner-only files whatever the umask, one
// coordinator per database, a TLS key that is not the certificate's named as such, and a warning when tokens
// would travel in plaintext on an address others can reach. Real gammalab-server processes.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "server/private_files.h"
#include "server/sqlite.h"
#include "tests/service/test_sweeps.h"
#include "worker/child_process.h"

namespace gammalab::testing {
namespace {

const std::string kServer = std::string(GAMMALAB_BINARY_DIR) + "/server/gammalab-server";

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

mode_t mode_of(const std::filesystem::path& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 0777;
}

// Runs the umask of an administrator's shell (022) for the test's duration.
struct Umask {
  explicit Umask(mode_t mask) : was(::umask(mask)) {}
  ~Umask() { ::umask(was); }
  mode_t was;
};

class ServerProcess : public ::testing::Test {
 protected:
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<ChildProcess> start(const std::string& name, const std::vector<std::string>& extra) {
    std::vector<std::string> argv{kServer, "--db", db_.string(), "--shared-root", (dir_ / "shared").string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return std::make_unique<ChildProcess>(argv, std::vector<std::string>{}, (dir_ / (name + ".log")).string());
  }
  int run(const std::string& name, const std::vector<std::string>& args) {
    std::vector<std::string> argv{kServer};
    argv.insert(argv.end(), args.begin(), args.end());
    ChildProcess process(argv, {}, (dir_ / (name + ".log")).string());
    return process.wait();
  }
  std::string log(const std::string& name) { return slurp(dir_ / (name + ".log")); }

  std::filesystem::path dir_ = temp_db("server-process").parent_path();
  std::filesystem::path db_ = dir_ / "gammalab.db";
};

TEST_F(ServerProcess, TheDatabaseItsWalTokenFilesAndBackupsAreOwnerOnlyUnderUmask022) {
  const Umask umask(022);
  auto server = start("server", {"--listen", "127.0.0.1:0", "--http", "127.0.0.1:0"});
  ASSERT_TRUE(server->read_line()) << log("server");
  EXPECT_EQ(mode_of(db_), 0600u);
  EXPECT_EQ(mode_of(db_.string() + "-wal"), 0600u);
  EXPECT_EQ(mode_of(db_.string() + "-shm"), 0600u);
  EXPECT_EQ(mode_of(db_.string() + ".lock"), 0600u);

  const auto token = dir_ / "worker.token";
  EXPECT_EQ(run("token", {"token", "create", "--role", "worker", "--db", db_.string(), "--out", token.string()}), 0)
      << log("token");
  EXPECT_EQ(mode_of(token), 0600u);
  EXPECT_EQ(slurp(token).rfind("gl_", 0), 0u) << "the file holds the token";
  // An existing file, or a link planted where the token goes, is never written through.
  const auto canary = dir_ / "canary";
  std::ofstream(canary) << "canary";
  std::filesystem::create_symlink(canary, dir_ / "planted.token");
  EXPECT_EQ(run("token2", {"token", "create", "--role", "worker", "--db", db_.string(), "--out",
                           (dir_ / "planted.token").string()}),
            1);
  EXPECT_NE(log("token2").find("exists already"), std::string::npos) << log("token2");
  EXPECT_EQ(slurp(canary), "canary");

  const auto copy = dir_ / "backup.db";
  EXPECT_EQ(run("backup", {"backup", copy.string(), "--db", db_.string()}), 0) << log("backup");
  EXPECT_EQ(mode_of(copy), 0600u);
  server->signal(SIGTERM);
  EXPECT_EQ(server->wait(), 0);
}

TEST_F(ServerProcess, ASecondCoordinatorOnTheSameDatabaseIsRefusedNamingTheFirst) {
  auto first = start("first", {"--listen", "127.0.0.1:0", "--http", ""});
  ASSERT_TRUE(first->read_line()) << log("first");
  auto second = start("second", {"--listen", "127.0.0.1:0", "--http", ""});
  if (second->read_line()) {
    ADD_FAILURE() << "a second coordinator serves the same database";
    second->signal(SIGKILL);
  }
  EXPECT_EQ(second->wait(), 1);
  EXPECT_NE(log("second").find("another gammalab-server (pid " + std::to_string(first->pid()) + ") is serving this "
                               "database"),
            std::string::npos)
      << log("second");
  // The lock goes with the process, however it ends: after kill -9 a new coordinator starts at once.
  first->signal(SIGKILL);
  first->wait();
  auto third = start("third", {"--listen", "127.0.0.1:0", "--http", ""});
  EXPECT_TRUE(third->read_line()) << log("third");
  third->signal(SIGTERM);
  EXPECT_EQ(third->wait(), 0);
}

TEST_F(ServerProcess, ATlsKeyThatIsNotTheCertificatesIsNamedAsSuch) {
  for (const std::string name : {"a", "b"}) {
    const std::string command = "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost -keyout " +
                                (dir_ / (name + ".key")).string() + " -out " + (dir_ / (name + ".pem")).string() +
                                " >/dev/null 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0);
  }
  auto server = start("server", {"--listen", "127.0.0.1:0", "--http", "127.0.0.1:0", "--tls-cert",
                                 (dir_ / "a.pem").string(), "--tls-key", (dir_ / "b.key").string()});
  if (server->read_line()) {
    ADD_FAILURE() << "started with a key that is not the certificate's";
    server->signal(SIGKILL);
  }
  EXPECT_NE(server->wait(), 0);
  EXPECT_NE(log("server").find("is not the private key of --tls-cert"), std::string::npos) << log("server");
  EXPECT_EQ(log("server").find("port is in use"), std::string::npos) << log("server");
}

TEST_F(ServerProcess, TokensInPlaintextOnAnAddressOthersCanReachAreWarnedAbout) {
  // Bound on every address for the moment it takes to read the warning; nothing is sent to it.
  auto server = start("server", {"--listen", "0.0.0.0:0", "--http", ""});
  ASSERT_TRUE(server->read_line()) << log("server");
  server->signal(SIGTERM);
  EXPECT_EQ(server->wait(), 0);
  EXPECT_NE(log("server").find("--listen 0.0.0.0:0: tokens and data travel unencrypted"), std::string::npos)
      << log("server");
  auto local = start("local", {"--listen", "127.0.0.1:0", "--http", ""});
  ASSERT_TRUE(local->read_line()) << log("local");
  local->signal(SIGTERM);
  EXPECT_EQ(local->wait(), 0);
  EXPECT_EQ(log("local").find("unencrypted"), std::string::npos) << log("local");
}

}  // namespace
}  // namespace gammalab::testing
