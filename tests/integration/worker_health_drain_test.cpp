// The worker's health endpoints and the bounds of its drain, with real processes: a coordinator, a worker and,
// for the bounds, a trainer that ignores SIGTERM (one stuck in I/O or a collective), so that the worker's own
// escalation is what ends it.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/integration/cluster.h"
#include "tests/integration/db_reader.h"
#include "worker/stop_signals.h"

namespace gammalab::testing {
namespace {

constexpr const char* kOneJobSweep = R"(name: s
base:
  model: {preset: tiny-0.03m}
  optim: {lr: 0.01}
  data: {train: d/train.bin, val: d/val.bin}
  batch_tokens: 1024
  steps: 1000
  threads: 1
axes:
  grid:
    scale.variant: [baseline]
)";

// A trainer that ignores SIGTERM (its children inherit that) and never ends by itself.
// A trainer that ignores SIGTERM, and says so in a file beside itself once its trap is set: a SIGTERM the worker
// forwards before the shell has run `trap` would kill it (exit 143) and end the drain at once, so the tests wait
// for the file (stuck_trainer_ready) before they stop the worker.
std::filesystem::path stuck_trainer(Cluster& cluster) {
  const auto path = cluster.write_file("stuck-trainer.sh",
                                       "#!/bin/sh\ntrap '' TERM\n: > \"$0.ready\"\nwhile :; do sleep 0.1; done\n");
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

bool stuck_trainer_ready(const std::filesystem::path& trainer) {
  return wait_until([&] { return std::filesystem::exists(trainer.string() + ".ready"); }, 60);
}

struct Reply {
  int status = 0;                               // 0: no answer
  nlohmann::json body = nlohmann::json::object();  // {} unless the answer was a JSON object
};

Reply get(int port, const std::string& path) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(5);
  client.set_read_timeout(5);
  const auto res = client.Get(path.c_str());
  if (!res) return {};
  Reply reply;
  reply.status = res->status;
  auto body = nlohmann::json::parse(res->body, nullptr, /*allow_exceptions=*/false);
  if (body.is_object()) reply.body = std::move(body);
  return reply;
}

int health_port(Cluster& cluster, int worker) {
  const auto line = cluster.worker_line(worker);
  if (!line) return 0;
  return nlohmann::json::parse(*line).at("health_port").get<int>();
}

WorkerSpec spec(const std::filesystem::path& trainer, std::vector<std::string> extra_args) {
  WorkerSpec s;
  s.trainer = trainer;
  s.extra_args = std::move(extra_args);
  return s;
}

std::string job_state(DbReader& db) { return db.jobs().empty() ? "" : db.jobs()[0].state; }

TEST(WorkerHealth, ReadyOnlyWhenConnectedAndNotDrainingWithSlotsInTheBody) {
  Cluster cluster("health");
  cluster.start_server(/*heartbeat_ms=*/200, /*lease_timeout_ms=*/3000);
  const auto trainer = stuck_trainer(cluster);
  WorkerSpec two_slots = spec(trainer, {"--health", "127.0.0.1:0"});
  two_slots.slots = 2;
  const int worker = cluster.start_worker(two_slots);
  const int port = health_port(cluster, worker);
  ASSERT_GT(port, 0);

  const Reply alive = get(port, "/healthz");
  EXPECT_EQ(alive.status, 200);
  EXPECT_EQ(alive.body.value("status", ""), "alive");
  EXPECT_EQ(get(port, "/nothing").status, 404);
  ASSERT_TRUE(wait_until([&] { return get(port, "/readyz").status == 200; }, 30));
  Reply ready = get(port, "/readyz");
  EXPECT_EQ(ready.body, (nlohmann::json{{"ready", true}, {"connected", true}, {"draining", false},
                                        {"slots_total", 2}, {"slots_busy", 0}}));

  // Coordinator gone: alive, not ready; back: ready again.
  cluster.kill_server(SIGKILL);
  ASSERT_TRUE(wait_until([&] { return get(port, "/readyz").status == 503; }, 30));
  EXPECT_EQ(get(port, "/readyz").body.value("connected", true), false);
  EXPECT_EQ(get(port, "/healthz").status, 200);
  cluster.start_server(200, 3000);
  ASSERT_TRUE(wait_until([&] { return get(port, "/readyz").status == 200; }, 30));

  ASSERT_EQ(cluster.cli({"submit", cluster.write_file("s.yaml", kOneJobSweep).string()}).exit_code, 0);
  ASSERT_TRUE(wait_until([&] { return get(port, "/readyz").body.value("slots_busy", 0) == 1; }, 30));
  EXPECT_EQ(get(port, "/readyz").status, 200) << "a free slot left: still ready";
  ASSERT_TRUE(stuck_trainer_ready(trainer));

  // Draining (the trainer ignores SIGTERM, so the drain lasts): not ready, still alive, still connected.
  cluster.kill_worker(worker, SIGTERM);
  ASSERT_TRUE(wait_until([&] { return get(port, "/readyz").body.value("draining", false); }, 30));
  ready = get(port, "/readyz");
  EXPECT_EQ(ready.status, 503);
  EXPECT_EQ(ready.body.value("connected", false), true);
  EXPECT_EQ(ready.body.value("slots_busy", 0), 1);
  EXPECT_EQ(get(port, "/healthz").status, 200);
  cluster.kill_worker(worker, SIGKILL);
  cluster.wait_worker(worker);
}

TEST(WorkerHealth, MalformedHealthAddressIsRefusedNamingTheFlag) {
  Cluster cluster("health-flag");
  cluster.start_server();
  for (const std::string bad : {"127.0.0.1", "127.0.0.1:70000", "127.0.0.1:x", ":80"}) {
    const int worker = cluster.start_worker(spec({}, {"--health", bad}));
    EXPECT_EQ(cluster.wait_worker(worker), 2) << bad;
    std::ifstream log(cluster.dir() / ("worker-" + std::to_string(worker) + ".log"));
    const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("--health"), std::string::npos) << text;
    EXPECT_NE(text.find(bad), std::string::npos) << text;
  }
}

// A second SIGTERM (after the first one's window: a repeat within it is the same stop, delivered twice) kills
// the trainer now; the job is requeued as a failed attempt, the worker still exits cleanly.
TEST(WorkerDrain, SecondSigtermKillsTheTrainerAndRequeuesTheJobAsAnAttempt) {
  Cluster cluster("drain-twice");
  cluster.start_server();
  const auto trainer = stuck_trainer(cluster);
  const int worker = cluster.start_worker(spec(trainer, {"--health", "127.0.0.1:0", "--drain-grace-ms", "600000"}));
  const int port = health_port(cluster, worker);
  ASSERT_GT(port, 0);
  ASSERT_EQ(cluster.cli({"submit", cluster.write_file("s.yaml", kOneJobSweep).string()}).exit_code, 0);
  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until([&] { return job_state(db) == "running"; }, 60)) << job_state(db);
  ASSERT_TRUE(stuck_trainer_ready(trainer));

  cluster.kill_worker(worker, SIGTERM);
  cluster.kill_worker(worker, SIGTERM);  // back to back, as a scheduler may deliver one stop: the drain goes on
  ASSERT_TRUE(wait_until([&] { return get(port, "/readyz").body.value("draining", false); }, 30));
  std::this_thread::sleep_for(kRepeatWindow + std::chrono::milliseconds(200));  // at least the window
  EXPECT_EQ(job_state(db), "running") << "a repeat within the window does not kill";
  EXPECT_EQ(get(port, "/healthz").status, 200);
  cluster.kill_worker(worker, SIGTERM);
  EXPECT_EQ(cluster.wait_worker(worker), 0);
  ASSERT_EQ(db.jobs().size(), 1u);
  EXPECT_EQ(db.jobs()[0].state, "pending");
  EXPECT_EQ(db.jobs()[0].attempt, 1) << "a killed attempt counts";
  EXPECT_NE(db.jobs()[0].error.find("killed while the worker drained"), std::string::npos) << db.jobs()[0].error;
}

TEST(WorkerDrain, TrainerThatOutlivesTheDrainGraceIsKilled) {
  Cluster cluster("drain-grace");
  cluster.start_server();
  const auto trainer = stuck_trainer(cluster);
  const int worker = cluster.start_worker(spec(trainer, {"--drain-grace-ms", "300"}));
  ASSERT_EQ(cluster.cli({"submit", cluster.write_file("s.yaml", kOneJobSweep).string()}).exit_code, 0);
  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until([&] { return job_state(db) == "running"; }, 60)) << job_state(db);
  ASSERT_TRUE(stuck_trainer_ready(trainer));
  cluster.kill_worker(worker, SIGTERM);
  EXPECT_EQ(cluster.wait_worker(worker), 0);
  ASSERT_EQ(db.jobs().size(), 1u);
  EXPECT_EQ(db.jobs()[0].state, "pending");
  EXPECT_EQ(db.jobs()[0].attempt, 1);
  EXPECT_NE(db.jobs()[0].error.find("--drain-grace-ms"), std::string::npos) << db.jobs()[0].error;
}

}  // namespace
}  // namespace gammalab::testing

namespace gammalab::testing {
namespace {

// Trainers run each job's code and data loaders: none of them needs, or gets, the worker's credential, even
// when the worker was given it in $GAMMALAB_TOKEN.
TEST(WorkerSecrets, ATrainerDoesNotInheritTheWorkersToken) {
  Cluster cluster("worker-secrets");
  cluster.start_server();
  const auto trainer = cluster.write_file("env-trainer.sh", "#!/bin/sh\necho \"trainer env:\" >&2\nenv >&2\nexit 3\n");
  std::filesystem::permissions(trainer, std::filesystem::perms::owner_all);
  std::ifstream token_file(cluster.worker_token_file());
  std::string token;
  std::getline(token_file, token);
  ASSERT_FALSE(token.empty());
  ::setenv("GAMMALAB_TOKEN", token.c_str(), 1);  // inherited by the worker the cluster starts next
  cluster.start_worker(spec(trainer, {}));
  ::unsetenv("GAMMALAB_TOKEN");
  ASSERT_EQ(cluster.cli({"submit", cluster.write_file("s.yaml", kOneJobSweep).string()}).exit_code, 0);
  const auto log = cluster.shared_root() / "jobs" / "1" / "log.txt";
  auto text = [&] {
    std::ifstream in(log);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  ASSERT_TRUE(wait_until([&] { return text().find("PATH=") != std::string::npos; }, 60)) << text();
  EXPECT_EQ(text().find("GAMMALAB_TOKEN"), std::string::npos) << "the trainer's environment holds the token";
  EXPECT_EQ(text().find(token), std::string::npos);
}

}  // namespace
}  // namespace gammalab::testing
