// The coordinator's /metrics and JSON logs against the real tools: Debian's promtool lints the real output, and a
// real Prometheus on loopback scrapes a real coordinator and answers a query over its HTTP API.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "tests/integration/cluster.h"
#include "tests/integration/db_reader.h"
#include "tests/integration/prometheus_scrape.h"

namespace gammalab::testing {
namespace {

// A program on $PATH (promtool and prometheus come from Debian's `prometheus` package, via scripts/deps.sh).
std::filesystem::path program(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const auto candidate = std::filesystem::path(dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

// A loopback port free right now (the kernel's pick for port 0).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}


TEST(Observability, PromtoolAndARealPrometheusReadTheCoordinatorsMetrics) {
  const auto promtool = program("promtool");
  const auto prometheus = program("prometheus");
  ASSERT_FALSE(promtool.empty()) << "promtool not on PATH: scripts/deps.sh installs Debian's prometheus";
  ASSERT_FALSE(prometheus.empty()) << "prometheus not on PATH: scripts/deps.sh installs Debian's prometheus";

  Cluster cluster("observability");
  cluster.server_flags = {"--log-format", "json"};
  cluster.worker_flags = {"--log-format", "json"};
  cluster.prepare_data("d");
  cluster.start_server(/*heartbeat_ms=*/200, /*lease_timeout_ms=*/2000);
  int worker = cluster.start_worker();
  const std::string scraper = cluster.create_token("metrics");

  // /metrics needs a token like the rest (a metrics or a user token); a metrics token reads nothing else.
  {
    httplib::Client client("127.0.0.1", cluster.http_port());
    auto anonymous = client.Get("/metrics");
    ASSERT_TRUE(anonymous);
    EXPECT_EQ(anonymous->status, 401) << anonymous->body;
    const httplib::Headers as_scraper{{"Authorization", "Bearer " + scraper}};
    auto api = client.Get("/api/sweeps", as_scraper);
    ASSERT_TRUE(api);
    EXPECT_EQ(api->status, 403) << api->body;
    EXPECT_NE(api->body.find("a metrics token cannot use the HTTP API"), std::string::npos) << api->body;
    const std::string worker_token = cluster.create_token("worker");
    auto as_worker = client.Get("/metrics", httplib::Headers{{"Authorization", "Bearer " + worker_token}});
    ASSERT_TRUE(as_worker);
    EXPECT_EQ(as_worker->status, 403) << as_worker->body;
    const std::string user_token = cluster.create_token("user");
    auto as_user = client.Get("/metrics", httplib::Headers{{"Authorization", "Bearer " + user_token}});
    ASSERT_TRUE(as_user);
    EXPECT_EQ(as_user->status, 200) << as_user->body;
  }
  ASSERT_EQ(
      cluster.cli({"submit", cluster.write_file("a.yaml", tiny_sweep_yaml("a", 40, "[baseline, none]", 20)).string()}).exit_code,
      0);
  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until([&] { return db.count("SELECT COUNT(*) FROM jobs WHERE state = 'succeeded'") == 2; }, 300));

  // A job whose worker dies: its lease expires after missed heartbeats and the job is requeued.
  ASSERT_EQ(
      cluster.cli({"submit", cluster.write_file("b.yaml", tiny_sweep_yaml("b", 100000, "[baseline]", 20)).string()}).exit_code,
      0);
  ASSERT_TRUE(wait_until([&] { return db.count("SELECT COUNT(*) FROM jobs WHERE state = 'running'") == 1; }, 300));
  cluster.kill_worker(worker, SIGKILL);
  cluster.wait_worker(worker);
  std::string text;
  ASSERT_TRUE(wait_until(
      [&] {
        text = metrics_text(cluster, scraper);
        return sample(text, "gammalab_leases_expired_total").value_or(0) >= 1 &&
               sample(text, "gammalab_jobs{state=\"pending\"}").value_or(0) == 1;
      },
      60))
      << text;

  // Nothing writes any more: the counts are exact.
  text = metrics_text(cluster, scraper);
  const double stored = static_cast<double>(db.count("SELECT COUNT(*) FROM metrics"));
  ASSERT_GT(stored, 0);
  EXPECT_EQ(sample(text, "gammalab_metric_points_ingested_total"), stored) << text;
  EXPECT_EQ(sample(text, "gammalab_jobs{state=\"succeeded\"}"), 2) << text;
  EXPECT_EQ(sample(text, "gammalab_jobs{state=\"running\"}"), 0) << text;
  EXPECT_EQ(sample(text, "gammalab_active_leases"), 0) << text;
  EXPECT_EQ(sample(text, "gammalab_workers_alive"), 0) << text;
  EXPECT_EQ(sample(text, "gammalab_leases_expired_total"), 1) << text;
  // The lost worker is an alert, counted by rule (docs/alerts.md); every rule is listed, at 0 when none fired.
  EXPECT_EQ(sample(text, "gammalab_alerts{rule=\"worker_lost\"}"), 1) << text;
  EXPECT_EQ(sample(text, "gammalab_alerts{rule=\"diverged\"}"), 0) << text;
  EXPECT_EQ(sample(text, "gammalab_alerts{rule=\"stalled\"}"), 0) << text;
  EXPECT_GT(sample(text, "gammalab_sqlite_write_seconds_count").value_or(0), stored / 100) << text;
  EXPECT_GT(sample(text, "gammalab_sqlite_write_seconds_sum").value_or(0), 0) << "writes timed to the nanosecond";
  EXPECT_NE(text.find("gammalab_build_info{"), std::string::npos) << text;
  EXPECT_NE(text.find("gammalab_fit_duration_seconds_bucket{"), std::string::npos) << text;

  // promtool's lint of the real exposition (names, units, help, counter suffixes, histogram series).
  const auto scraped = cluster.write_file("metrics.txt", text);
  {
    ChildProcess check({"/bin/sh", "-c", promtool.string() + " check metrics < " + scraped.string() + " 2>&1"}, {},
                       (cluster.dir() / "promtool.log").string());
    std::string out;
    while (auto line = check.read_line()) out += *line + "\n";
    EXPECT_EQ(check.wait(), 0) << out;
    EXPECT_EQ(out, "") << "promtool found problems";
  }

  // A real Prometheus scraping the coordinator every second; the counter read back through its query API.
  const int prom_port = free_port();
  const auto prom_dir = cluster.dir() / "prometheus";
  std::filesystem::create_directories(prom_dir);
  const auto config = cluster.write_file("prometheus.yml",
                                         "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                                         "scrape_configs:\n  - job_name: gammalab\n"
                                         "    authorization:\n      type: Bearer\n      credentials_file: " +
                                             cluster.write_file("scraper.token", scraper).string() + "\n" +
                                         "    static_configs:\n      - targets: ['127.0.0.1:" +
                                             std::to_string(cluster.http_port()) + "']\n");
  ChildProcess prom(
      {prometheus.string(), "--config.file=" + config.string(), "--storage.tsdb.path=" + (prom_dir / "data").string(),
       "--web.listen-address=127.0.0.1:" + std::to_string(prom_port), "--log.level=warn"},
      {}, (cluster.dir() / "prometheus.log").string());
  httplib::Client api("127.0.0.1", prom_port);
  std::string answer;
  const bool read_back = wait_until(
      [&] {
        auto res = api.Get("/api/v1/query?query=gammalab_metric_points_ingested_total");
        if (!res || res->status != 200) return false;
        answer = res->body;
        const auto j = nlohmann::json::parse(res->body, nullptr, false);
        if (j.is_discarded() || j.value("status", "") != "success") return false;
        const auto& result = j["data"]["result"];
        if (result.empty()) return false;
        EXPECT_EQ(result[0]["metric"]["job"], "gammalab");
        EXPECT_EQ(result[0]["metric"]["instance"], "127.0.0.1:" + std::to_string(cluster.http_port()));
        return std::stod(result[0]["value"][1].get<std::string>()) == stored;
      },
      120);
  prom.signal(SIGTERM);
  EXPECT_EQ(prom.wait(), 0) << "see " << (cluster.dir() / "prometheus.log");
  EXPECT_TRUE(read_back) << answer;

  // Both daemons wrote their log as JSON lines.
  for (const char* log : {"server.log", "worker-0.log"}) {
    std::ifstream in(cluster.dir() / log);
    int lines = 0;
    for (std::string line; std::getline(in, line); ++lines) {
      const auto j = nlohmann::json::parse(line, nullptr, false);
      ASSERT_TRUE(j.is_object()) << log << ": " << line;
      EXPECT_TRUE(j.contains("time") && j.contains("level") && j.contains("message")) << line;
    }
    EXPECT_GT(lines, 0) << log;
  }
}

TEST(Observability, AJsonLogLineCarriesTheErrorOfAFailedCommand) {
  const auto dir = std::filesystem::temp_directory_path() / ("gammalab-jsonlog-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  ChildProcess server({binary("server/gammalab-server").string(), "--log-format", "json", "backup",
                       (dir / "copy.db").string(), "--db", (dir / "missing \"quoted\".db").string()},
                      {}, (dir / "stderr.log").string());
  while (server.read_line()) {
  }
  EXPECT_EQ(server.wait(), 1);
  std::ifstream in(dir / "stderr.log");
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  const auto j = nlohmann::json::parse(line);
  EXPECT_EQ(j["level"], "critical");
  EXPECT_EQ(j["logger"], "gammalab-server");
  EXPECT_EQ(j["message"], "backup: --db " + (dir / "missing \"quoted\".db").string() + ": no such database file");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gammalab::testing
