// Alerts (core/alert.h, server/alert_center.h) over a real store: each rule raises one alert per attempt at the
// step it concerns (a loss spike from the points stored, a stall after the stall time and not before, a lost
// worker with its lease's expiry, a diverged run from its exit status), a real HTTP receiver gets each one
// POSTed, and both doors list them alike, newest first, with a cursor; a hostile query is refused by name.
#include <httplib.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <thread>

#include "absl/strings/str_split.h"

#include "cli/client/coordinator_client.h"
#include "core/exit_codes.h"
#include "proto/proto_json.h"
#include "rpc/client_channel.h"
#include "server/alert_center.h"
#include "server/http_api.h"
#include "tests/service/in_process_coordinator.h"
#include "tests/service/run_cli.h"

namespace gammalab::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// A real HTTP server on a loopback port that keeps every body POSTed to /hook.
class WebhookReceiver {
 public:
  WebhookReceiver() {
    server_.Post("/hook", [this](const httplib::Request& req, httplib::Response& res) {
      absl::MutexLock lock(&mutex_);
      bodies_.push_back(req.body);
      res.status = 204;
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~WebhookReceiver() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }
  // Waits (up to 20 s) until `n` bodies came; returns those that did.
  std::vector<json> bodies(std::size_t n) {
    absl::MutexLock lock(&mutex_);
    const auto enough = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return bodies_.size() >= n; };
    mutex_.AwaitWithTimeout(absl::Condition(&enough), absl::Seconds(20));
    std::vector<json> out;
    for (const std::string& b : bodies_) out.push_back(json::parse(b));
    return out;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  absl::Mutex mutex_;
  std::vector<std::string> bodies_ ABSL_GUARDED_BY(mutex_);
};

class Alerts : public ::testing::Test {
 protected:
  void SetUp() override {
    Store& store = coordinator_.store();
    Sweep spec = make_sweep("watched", 4);
    for (SweepJob& job : spec.jobs) job.config.steps = 100;
    sweep_ = store.create_sweep(spec, "name: watched", "watched.yaml", false).sweep.id;
    worker_ = store.register_worker("host", 3, {}, "");
    const std::string second = store.register_worker("host2", 1, {}, "");
    for (int i = 0; i < 4; ++i) {
      // Job 2's lease lapses at once: a test that expires leases finds its worker lost. Job 3 is leased by
      // another worker, which never starts its trainer.
      std::optional<Lease> lease = store.lease(i == 3 ? second : worker_, i == 2 ? 1 : 60000);
      ASSERT_TRUE(lease);
      if (i < 3) store.start(worker_, lease->job.id, lease->attempt);
      jobs_.push_back(lease->job.id);
    }
  }
  // Stores the points as the gateway does, and tells the alert center of them.
  void report(AlertCenter& center, const std::string& job, const std::vector<MetricPoint>& points) {
    ASSERT_EQ(coordinator_.store().add_metrics(job, 1, points).refusal, IngestResult::Refusal::kNone);
    center.on_points(job, 1, points);
  }
  std::vector<Alert> stored(std::int64_t after = 0) {
    bool truncated = false;
    return coordinator_.store().alerts(sweep_, after, 200, truncated);
  }

  InProcessCoordinator coordinator_{"alerts"};
  std::string sweep_, worker_;
  std::vector<std::string> jobs_;
};

std::vector<MetricPoint> losses(std::int64_t from, std::int64_t to, double value) {
  std::vector<MetricPoint> out;
  for (std::int64_t s = from; s <= to; ++s) out.push_back({s, s * 1024, "train/loss", value});
  return out;
}

TEST_F(Alerts, ALossSpikeIsRaisedOncePerAttemptAtItsStepAndPostedToTheWebhook) {
  WebhookReceiver receiver;
  AlertCenter center(coordinator_.store(), {.loss_spike_ratio = 1.5, .stall_after_ms = 0, .webhook = receiver.url(),
                                            .check_interval_ms = 0});
  report(center, jobs_[0], losses(1, 20, 3.0));
  report(center, jobs_[1], losses(1, 40, 3.0));
  EXPECT_TRUE(stored().empty()) << "a flat curve raises nothing";
  report(center, jobs_[0], losses(21, 21, 4.4));
  EXPECT_TRUE(stored().empty()) << "1.47x: below the ratio";
  report(center, jobs_[0], losses(22, 22, 4.8));
  report(center, jobs_[0], losses(23, 23, 9.0));  // a second spike of the same attempt: no second alert
  // A resend of what is stored changes nothing, nor does another job's flat curve.
  center.on_points(jobs_[0], 1, losses(22, 23, 9.0));
  report(center, jobs_[1], losses(41, 50, 3.0));

  const std::vector<Alert> alerts = stored();
  ASSERT_EQ(alerts.size(), 1u);
  const Alert& a = alerts[0];
  EXPECT_EQ(a.rule, "loss_spike");
  EXPECT_EQ(a.job_id, jobs_[0]);
  EXPECT_EQ(a.sweep_id, sweep_);
  EXPECT_EQ(a.job_name, "watched/job0");
  EXPECT_EQ(a.sweep_name, "watched");
  EXPECT_EQ(a.attempt, 1);
  EXPECT_EQ(a.step, 22);
  EXPECT_EQ(a.value, 4.8);
  EXPECT_EQ(a.message, "train/loss at step 22 is 4.8, 1.55× the mean of its previous 16 points (3.0875)");

  center.check(Clock::now());  // delivers it
  const std::vector<json> posted = receiver.bodies(1);
  ASSERT_EQ(posted.size(), 1u);
  EXPECT_EQ(posted[0]["alert"]["rule"], "loss_spike");
  EXPECT_EQ(posted[0]["alert"]["job_id"], jobs_[0]);
  EXPECT_EQ(posted[0]["alert"]["step"], "22") << "int64 as proto JSON writes it";
  EXPECT_EQ(posted[0]["sweep_name"], "watched");
  EXPECT_EQ(posted[0]["text"], "gammalab alert, loss_spike: sweep 'watched', run 'watched/job0' (job " + jobs_[0] +
                                   ", attempt 1): " + a.message);
  // Posted once: a later round posts the next alert (another job's spike) and nothing else.
  report(center, jobs_[1], losses(51, 51, 9.0));
  center.check(Clock::now());
  const std::vector<json> twice = receiver.bodies(2);
  ASSERT_EQ(twice.size(), 2u);
  EXPECT_EQ(twice[1]["alert"]["job_id"], jobs_[1]) << "the new one, not the first again";
}

TEST(AlertWebhookBody, NamesAndMessagesCannotBecomeChatMentionsOrLinks) {
  Alert a;
  a.id = 4;
  a.sweep_id = "2";
  a.sweep_name = "s<@U123>";
  a.job_id = "9";
  a.job_name = "<!channel>&run";
  a.attempt = 1;
  a.rule = "diverged";
  a.message = "the program (<https://x.example|click>) exited with code 65";
  const json body = json::parse(webhook_body(a));
  EXPECT_EQ(body["text"], "gammalab alert, diverged: sweep 's&lt;@U123&gt;', run '&lt;!channel&gt;&amp;run' (job 9, "
                          "attempt 1): the program (&lt;https://x.example|click&gt;) exited with code 65");
  EXPECT_EQ(body["alert"]["job_name"], "<!channel>&run") << "the record as stored";
  EXPECT_EQ(body["sweep_name"], "s<@U123>");
}

TEST(AlertWebhookUrl, OnlyHttpAndHttpsWithAHostAndNoUserInformation) {
  const WebhookUrl ok = parse_webhook_url("https://hooks.example.org:8443/services/T0/B0?x=1");
  EXPECT_EQ(ok.error, "");
  EXPECT_EQ(ok.scheme_host_port, "https://hooks.example.org:8443");
  EXPECT_EQ(ok.path, "/services/T0/B0?x=1");
  EXPECT_EQ(parse_webhook_url("http://127.0.0.1:9").path, "/");
  EXPECT_EQ(parse_webhook_url("ftp://x/y").error, "'ftp://x/y' is not an http:// or https:// URL");
  EXPECT_EQ(parse_webhook_url("hooks.example.org/x").error, "'hooks.example.org/x' is not an http:// or https:// URL");
  EXPECT_EQ(parse_webhook_url("https://user:pw@x/y").error,
            "'https://user:pw@x/y': a host (and port) after https://, without user information");
  EXPECT_EQ(parse_webhook_url("http:///y").error, "'http:///y': a host (and port) after http://, without user information");
  AlertOptions options;
  options.webhook = "ftp://x";
  EXPECT_EQ(alert_options_error(options), "--alert-webhook: 'ftp://x' is not an http:// or https:// URL");
  options = {};
  options.loss_spike_ratio = 1;
  EXPECT_EQ(alert_options_error(options),
            "--alert-loss-spike 1: a ratio above 1 (a loss that rose by that factor), or 0 for no spike alerts");
  options.loss_spike_ratio = 0;
  EXPECT_EQ(alert_options_error(options), "");
}

TEST_F(Alerts, AStalledRunIsRaisedAfterTheStallTimeAndNotBeforeAndARunThatMovesIsNot) {
  AlertCenter center(coordinator_.store(), {.loss_spike_ratio = 0, .stall_after_ms = 60'000, .webhook = "", .check_interval_ms = 0});
  const Clock::time_point t0 = Clock::now();
  report(center, jobs_[0], losses(1, 5, 3.0));
  center.check(t0);  // every running job's clock starts
  report(center, jobs_[1], losses(1, 5, 3.0));  // job 1 moves; job 0 and job 2 do not, job 3 never started
  center.check(t0 + std::chrono::seconds(59));
  EXPECT_TRUE(stored().empty()) << "59 s of a 60 s stall time";
  report(center, jobs_[1], losses(6, 9, 3.0));
  center.check(t0 + std::chrono::seconds(61));
  std::vector<Alert> alerts = stored();
  ASSERT_EQ(alerts.size(), 3u);
  // Newest first: checked by job id in the same round.
  EXPECT_EQ(alerts[2].job_id, jobs_[0]);
  EXPECT_EQ(alerts[1].job_id, jobs_[2]);
  EXPECT_EQ(alerts[0].job_id, jobs_[3]);
  EXPECT_EQ(alerts[2].rule, "stalled");
  EXPECT_EQ(alerts[2].step, 5);
  EXPECT_EQ(alerts[2].message, "no new step reported for 61 s (running, at step 5; the stall time is 60 s)");
  EXPECT_EQ(alerts[1].step, 0) << "a run that never reported is at step 0";
  EXPECT_EQ(alerts[0].rule, "stalled");
  EXPECT_EQ(alerts[0].message,
            "leased 61 s ago and not started (its worker has not started its trainer; the stall time is 60 s)");
  center.check(t0 + std::chrono::seconds(200));
  EXPECT_EQ(stored().size(), 4u) << "job 1 stalled in its turn (its step last moved by 61 s); the others once each";
}

TEST_F(Alerts, ALostWorkerAndADivergedRunAreRaisedWithTheirEnds) {
  AlertCenter center(coordinator_.store(), {.loss_spike_ratio = 1.5, .stall_after_ms = 0, .webhook = "", .check_interval_ms = 0});
  Store& store = coordinator_.store();
  // Job 0 diverges: its worker reports exit status 65 with the trainer's log line in the error.
  report(center, jobs_[0], losses(1, 39, 3.0));
  const std::string error = "gammalab-train exited with code 65 (the loss became non-finite): [attempt 1 on host]\n"
                            "step 39 ...\ndiverged at step 40: train/loss is nan\n";
  ASSERT_TRUE(store.finish(worker_, jobs_[0], 1, AttemptEnd::kFailed, error));
  center.on_finished(jobs_[0], 1, exit_codes::kDiverged, error);
  // Job 1 fails otherwise: no alert.
  ASSERT_TRUE(store.finish(worker_, jobs_[1], 1, AttemptEnd::kFailed, "exited with code 1"));
  center.on_finished(jobs_[1], 1, 1, "exited with code 1");
  // Job 2's worker goes silent: its lease expires.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(store.expire_leases(), 1);

  const std::vector<Alert> alerts = stored();
  ASSERT_EQ(alerts.size(), 2u);
  EXPECT_EQ(alerts[1].rule, "diverged");
  EXPECT_EQ(alerts[1].job_id, jobs_[0]);
  EXPECT_EQ(alerts[1].step, 40);
  EXPECT_EQ(alerts[1].message, "diverged at step 40: train/loss is nan");
  EXPECT_EQ(alerts[0].rule, "worker_lost");
  EXPECT_EQ(alerts[0].job_id, jobs_[2]);
  EXPECT_EQ(alerts[0].attempt, 1);
  EXPECT_NE(alerts[0].message.find("stopped heartbeating: lease expired on attempt 1 of 3 (worker lost); the job is "
                                   "queued again"),
            std::string::npos)
      << alerts[0].message;
  EXPECT_EQ(store.alert_counts(), (std::map<std::string, std::int64_t>{{"diverged", 1}, {"worker_lost", 1}}));
}

TEST_F(Alerts, BothDoorsListThemAlikeNewestFirstWithACursorAndRefuseHostileQueries) {
  AlertCenter center(coordinator_.store(), {.loss_spike_ratio = 1.5, .stall_after_ms = 0, .webhook = "", .check_interval_ms = 0});
  for (int i = 0; i < 3; ++i) {
    report(center, jobs_[i], losses(1, 10, 2.0));
    report(center, jobs_[i], losses(11, 11, 5.0));
  }
  ServerOptions http_options;
  http_options.http_address = "127.0.0.1:0";
  http_options.shared_root = coordinator_.db_path().parent_path() / "shared";
  HttpApi http(coordinator_.store(), http_options);
  httplib::Client client("127.0.0.1", http.port());
  auto stub = connect_coordinator(coordinator_.address());

  const auto grpc_list = [&](const std::string& sweep, std::int64_t after, int limit, std::string* refusal = nullptr) {
    v1::ListAlertsRequest request;
    request.set_sweep_id(sweep);
    request.set_after_id(after);
    request.set_limit(limit);
    v1::ListAlertsResponse response;
    const grpc::Status status = stub->ListAlerts(rpc_context().get(), request, &response);
    if (refusal) *refusal = status.error_message();
    return json::parse(proto_to_json(response));
  };
  const auto http_get = [&](const std::string& path) {
    auto res = client.Get(path.c_str());
    EXPECT_TRUE(res);
    return std::pair{res ? res->status : 0, res ? json::parse(res->body) : json()};
  };

  const json all = grpc_list("watched", 0, 0);  // by name
  ASSERT_EQ(all["alerts"].size(), 3u);
  EXPECT_EQ(all["alerts"][0]["job_id"], jobs_[2]) << "newest first";
  EXPECT_EQ(http_get("/api/sweeps/watched/alerts").second, all);
  EXPECT_EQ(http_get("/api/alerts").second, all) << "every sweep's: this is the only one with alerts";
  const std::string oldest = all["alerts"][2]["id"];
  const json newer = grpc_list(sweep_, std::stoll(oldest), 0);
  EXPECT_EQ(newer["alerts"].size(), 2u) << "after the oldest";
  EXPECT_EQ(http_get("/api/sweeps/" + sweep_ + "/alerts?after=" + oldest).second, newer);
  const json one = grpc_list(sweep_, 0, 1);
  EXPECT_EQ(one["alerts"].size(), 1u);
  EXPECT_EQ(one["truncated"], true);
  EXPECT_EQ(http_get("/api/sweeps/" + sweep_ + "/alerts?limit=1").second, one);

  std::string refusal;
  grpc_list(sweep_, 0, 201, &refusal);
  EXPECT_EQ(refusal, "limit: from 0 (the most, 200) to 200, got 201");
  grpc_list(sweep_, -1, 0, &refusal);
  EXPECT_EQ(refusal, "after_id: 0 or more, got -1");
  grpc_list("no-such-sweep", 0, 0, &refusal);
  EXPECT_NE(refusal.find("no-such-sweep"), std::string::npos) << refusal;
  const auto [status, body] = http_get("/api/sweeps/" + sweep_ + "/alerts?limit=201");
  EXPECT_EQ(status, 400);
  EXPECT_NE(body.dump().find("limit"), std::string::npos) << body;
  EXPECT_EQ(http_get("/api/sweeps/no-such-sweep/alerts").first, 404);

  // The CLI lists them in a table that fits 80 columns, newest last.
  ::setenv("COLUMNS", "80", 1);
  const std::string out = run_cli("--server " + coordinator_.address() + " alerts watched");
  ::unsetenv("COLUMNS");
  EXPECT_NE(out.find("loss_spike"), std::string::npos) << out;
  for (const absl::string_view line : absl::StrSplit(out, '\n')) {
    const auto characters = std::count_if(line.begin(), line.end(), [](char c) { return (c & 0xC0) != 0x80; });
    EXPECT_LE(characters, 80) << line;
  }
  EXPECT_LT(out.find("watched/job0"), out.find("watched/job2")) << out;
}

}  // namespace
}  // namespace gammalab::testing
