// The real gammalab-server binary: --insecure-no-auth starts only when every listen address is loopback, with
// a loud warning, and is refused otherwise with a message naming the flag and the address; `token list` shows
// no secret.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <sstream>
#include <tuple>

#include "tests/service/test_sweeps.h"
#include "worker/child_process.h"

namespace gammalab::testing {
namespace {

const std::string kServer = std::string(GAMMALAB_BINARY_DIR) + "/server/gammalab-server";

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(InsecureNoAuth, IsRefusedUnlessEveryAddressIsLoopback) {
  const auto dir = temp_db("insecure").parent_path();
  auto start = [&](const std::string& name, const std::string& listen, const std::string& http) {
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{kServer, "--insecure-no-auth", "--listen", listen, "--http", http, "--db",
                                 (dir / "x.db").string(), "--shared-root", (dir / "shared").string()},
        std::vector<std::string>{}, (dir / (name + ".log")).string());
  };
  const std::tuple<std::string, std::string, std::string> cases[] = {
      {"0.0.0.0:0", "127.0.0.1:0", "--listen 0.0.0.0:0"},
      {"127.0.0.1:0", "0.0.0.0:0", "--http 0.0.0.0:0"},
      {"[::]:0", "", "--listen [::]:0"}};
  for (const auto& [listen, http, bad] : cases) {
    auto refused = start("refused", listen, http);
    EXPECT_FALSE(refused->read_line()) << "it started on " << listen << " and " << http;
    EXPECT_EQ(refused->wait(), 2);
    const std::string log = read(dir / "refused.log");
    EXPECT_NE(log.find("--insecure-no-auth: refused, " + std::string(bad) + " is not a loopback address"),
              std::string::npos)
        << log;
    std::filesystem::remove(dir / "refused.log");
  }
  auto local = start("local", "127.0.0.1:0", "127.0.0.1:0");
  EXPECT_TRUE(local->read_line()) << read(dir / "local.log");
  local->signal(SIGTERM);
  EXPECT_EQ(local->wait(), 0);
  EXPECT_NE(read(dir / "local.log").find("NO AUTHENTICATION"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(TokenCommands, CreatePrintsATokenOnceListShowsNoSecretRevokeEndsIt) {
  const auto dir = temp_db("token-cli").parent_path();
  const std::string db = (dir / "t.db").string();
  auto run = [&](std::vector<std::string> args, int& code) {
    args.insert(args.begin(), kServer);
    args.insert(args.end(), {"--db", db});
    ChildProcess p(args, {}, (dir / "cli.log").string());
    std::string out;
    while (auto line = p.read_line()) out += *line + "\n";
    code = p.wait();
    return out;
  };
  int code = -1;
  const std::string token = run({"token", "create", "--role", "worker", "--name", "rack-7"}, code);
  EXPECT_EQ(code, 0);
  ASSERT_EQ(token.rfind("gl_1_", 0), 0u) << token;
  const std::string secret = token.substr(5, 64);
  const std::string list = run({"token", "list"}, code);
  EXPECT_EQ(code, 0);
  EXPECT_NE(list.find("rack-7"), std::string::npos) << list;
  EXPECT_NE(list.find("worker"), std::string::npos) << list;
  EXPECT_EQ(list.find(secret), std::string::npos) << "a secret in the list";
  EXPECT_EQ((read(db) + read(db + "-wal")).find(secret), std::string::npos) << "a secret in the database file";
  run({"token", "revoke", "1"}, code);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(run({"token", "list", "--json"}, code).find("\"revoked\": null"), std::string::npos);
  run({"token", "revoke", "1"}, code);
  EXPECT_EQ(code, 1) << "already revoked";
  run({"token", "create", "--role", "admin"}, code);
  EXPECT_NE(code, 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gammalab::testing
