// The dashboard's HTTP API on a real loopback port over a real SQLite store: JSON shapes, errors, incremental
// metrics, per-run sizes and losses, static files, and the event stream.
#include "core/sweep/config_hash.h"
#include "server/http_api.h"

#include <httplib.h>

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <condition_variable>
#include <fstream>
#include <limits>
#include <mutex>

#include <nlohmann/json.hpp>

#include "core/job_state.h"
#include "core/metric_names.h"
#include "core/param_count.h"
#include "core/scaling/fit_options.h"
#include "tests/service/test_sweeps.h"

namespace gammalab::testing {
namespace {

using nlohmann::json;

class HttpApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.http_address = "127.0.0.1:0";
    options_.web_root = path_.parent_path() / "web";
    options_.shared_root = path_.parent_path() / "shared";
    std::filesystem::create_directories(options_.web_root / "node_modules" / "uplot" / "dist");
    std::ofstream(options_.web_root / "index.html") << "<!doctype html><title>gammalab</title>";
    std::ofstream(options_.web_root / "package.json") << "{}";
    std::ofstream(options_.web_root / "node_modules" / "uplot" / "dist" / "uPlot.esm.js") << "export default 1;";
    api_ = std::make_unique<HttpApi>(*store_, options_);
    client_ = std::make_unique<httplib::Client>("127.0.0.1", api_->port());
    client_->set_read_timeout(30, 0);
  }
  void TearDown() override {
    client_.reset();
    api_.reset();
    store_.reset();
    std::filesystem::remove_all(path_.parent_path());
  }

  // GET that must answer `status` with a JSON body.
  json get(const std::string& path, int status = 200) {
    auto res = client_->Get(path.c_str());
    EXPECT_TRUE(res) << path << ": " << httplib::to_string(res.error());
    if (!res) return nullptr;
    EXPECT_EQ(res->status, status) << path << ": " << res->body;
    EXPECT_EQ(res->get_header_value("Content-Type"), "application/json") << path;
    return json::parse(res->body);
  }

  // A sweep of `jobs` jobs; the first is leased, starts, reports `points` and (when `succeed`) finishes.
  std::pair<SweepRecord, JobRecord> sweep_with_running_job(const std::vector<MetricPoint>& points, bool succeed) {
    auto sweep = store_->create_sweep(make_sweep("s", 2), "name: s", "s.yaml", false).sweep;
    worker_ = store_->register_worker("host", 1, {"gpu0"}, "");
    auto lease = store_->lease(worker_, 10000);
    EXPECT_TRUE(lease);
    store_->start(worker_, lease->job.id, lease->attempt);
    store_->add_metrics(lease->job.id, lease->attempt, points);
    if (succeed) store_->finish(worker_, lease->job.id, lease->attempt, AttemptEnd::kSucceeded, "");
    return {sweep, *store_->find_job(lease->job.id)};
  }

  std::filesystem::path path_ = temp_db("http");
  std::unique_ptr<Store> store_ = std::make_unique<Store>(path_.string());
  ServerOptions options_;
  std::unique_ptr<HttpApi> api_;
  std::unique_ptr<httplib::Client> client_;
  std::string worker_;
};

TEST_F(HttpApiTest, EmptyStoreListsNothing) {
  EXPECT_GT(api_->port(), 0);
  EXPECT_EQ(get("/api/sweeps"), json::array());
  EXPECT_EQ(get("/api/workers"), json::array());
}

TEST_F(HttpApiTest, SweepsJobsAndWorkersUseProtoFieldNames) {
  auto [sweep, job] = sweep_with_running_job({{10, 1000, "train/loss", 3.5}, {10, 1000, "tokens_per_s", 250.0}},
                                             false);
  json sweeps = get("/api/sweeps");
  ASSERT_EQ(sweeps.size(), 1u);
  EXPECT_EQ(sweeps[0]["id"], sweep.id);
  EXPECT_EQ(sweeps[0]["name"], "s");
  EXPECT_EQ(sweeps[0]["total_jobs"], 2);
  EXPECT_EQ(sweeps[0]["finished"], false);
  EXPECT_EQ(sweeps[0]["job_counts"]["running"], 1);
  EXPECT_EQ(sweeps[0]["job_counts"]["pending"], 1);

  EXPECT_EQ(get("/api/sweeps/" + sweep.id)["name"], "s");
  EXPECT_EQ(get("/api/sweeps/s")["id"], sweep.id) << "a sweep by its name";

  json jobs = get("/api/sweeps/" + sweep.id + "/jobs");
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0]["id"], job.id);
  EXPECT_EQ(jobs[0]["name"], "s/job0");
  EXPECT_EQ(jobs[0]["state"], "running") << "one spelling of states on the API, as in job_counts and /runs";
  EXPECT_EQ(jobs[0]["worker_id"], worker_);
  EXPECT_EQ(jobs[0]["step"], "10") << "int64 fields are JSON strings in proto JSON";
  EXPECT_EQ(jobs[0]["total_steps"], "10");
  EXPECT_EQ(jobs[0]["last_loss"], 3.5);
  EXPECT_EQ(jobs[0]["has_loss"], true);
  EXPECT_EQ(jobs[0]["tokens_per_s"], 250.0);
  EXPECT_TRUE(jobs[0]["config_json"].is_string());
  EXPECT_EQ(jobs[1]["state"], "pending");
  EXPECT_EQ(jobs[1]["has_loss"], false);

  EXPECT_EQ(get("/api/jobs/" + job.id)["name"], "s/job0");
  EXPECT_EQ(get("/api/jobs/" + job.id)["state"], "running");

  json workers = get("/api/workers");
  ASSERT_EQ(workers.size(), 1u);
  EXPECT_EQ(workers[0]["id"], worker_);
  EXPECT_EQ(workers[0]["hostname"], "host");
  EXPECT_EQ(workers[0]["running_job_ids"], json::array({job.id}));
}

TEST_F(HttpApiTest, MetaServesTheStatesAndMetricNames) {
  json meta = get("/api/meta");
  ASSERT_EQ(meta["job_states"].size(), kJobStates.size());
  for (std::size_t i = 0; i < kJobStates.size(); ++i) {
    const JobState s = kJobStates[i];
    EXPECT_EQ(meta["job_states"][i]["name"], std::string(job_state_name(s)));
    EXPECT_EQ(meta["job_states"][i]["active"], is_active(s));
    EXPECT_EQ(meta["job_states"][i]["terminal"], is_terminal(s));
  }
  EXPECT_EQ(meta["job_states"][2]["name"], "running");
  EXPECT_EQ(meta["fit_state"], "succeeded");
  EXPECT_EQ(meta["failed_state"], "failed");
  EXPECT_EQ(meta["losses"], json({{"train", "train/loss"}, {"val", "val/loss"}}));
  ASSERT_EQ(meta["metrics"].size(), metric_names::kAll.size());
  EXPECT_EQ(meta["metrics"][0], "train/loss");
  EXPECT_EQ(meta["cli_fit_bootstrap"], FitOptions{}.bootstrap);  // what `gammalab fit` draws by default
  EXPECT_EQ(meta["user_metrics"]["prefix"], std::string(metric_names::kUserPrefix));
  EXPECT_EQ(meta["user_metrics"]["max_name_bytes"], metric_names::kMaxUserNameBytes);
  EXPECT_EQ(meta["user_metrics"]["max_per_job"], metric_names::kMaxUserMetricsPerJob);
}

TEST_F(HttpApiTest, UnknownSweepsJobsAndRoutesAre404) {
  for (const char* path : {"/api/sweeps/999", "/api/sweeps/nope/jobs", "/api/sweeps/nope/runs",
                           "/api/sweeps/nope/metrics", "/api/jobs/999", "/api/jobs/999/metrics"}) {
    json body = get(path, 404);
    EXPECT_TRUE(body["error"].is_string()) << path;
  }
  EXPECT_EQ(get("/api/nothing-here", 404)["error"], "no such route");
}

TEST_F(HttpApiTest, MetricsAreColumnarWithNullForNaNAndAppendAfterStep) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto [sweep, job] = sweep_with_running_job({{1, 100, "train/loss", 4.0},
                                              {2, 200, "train/loss", nan},
                                              {3, 300, "train/loss", 3.0},
                                              {3, 300, "val/loss", 3.25},
                                              {3, 300, "lr", 0.001}},
                                             false);
  const std::string base = "/api/jobs/" + job.id + "/metrics";
  json all = get(base);
  EXPECT_EQ(all.size(), 3u) << all.dump();
  EXPECT_EQ(all["train/loss"]["step"], json::array({1, 2, 3}));
  EXPECT_EQ(all["train/loss"]["tokens"], json::array({100, 200, 300}));
  EXPECT_EQ(all["train/loss"]["value"], json::parse("[4.0, null, 3.0]"));

  json some = get(base + "?names=train/loss,val/loss&after_step=2");
  EXPECT_EQ(some.size(), 2u) << some.dump();
  EXPECT_EQ(some["train/loss"]["step"], json::array({3}));
  EXPECT_EQ(some["val/loss"]["value"], json::array({3.25}));
  EXPECT_EQ(get(base + "?after_step=3"), json::object()) << "nothing new";

  store_->add_metrics(job.id, 1, {{4, 400, "train/loss", 2.5}});
  EXPECT_EQ(get(base + "?names=train/loss&after_step=3")["train/loss"]["step"], json::array({4}));

  EXPECT_TRUE(get(base + "?after_step=abc", 400)["error"].get<std::string>().find("after_step") !=
              std::string::npos);
  get(base + "?after_step=5x", 400);
  get(base + "?after_step=-2", 400);

  json bulk = get("/api/sweeps/" + sweep.id + "/metrics?names=train/loss");
  ASSERT_EQ(bulk.size(), 2u) << "every job of the sweep, with or without points";
  EXPECT_EQ(bulk[job.id]["train/loss"]["step"], json::array({1, 2, 3, 4}));
  EXPECT_FALSE(bulk[job.id].contains("val/loss"));
}

TEST_F(HttpApiTest, MetricsDownsampleToMaxPointsKeepingExtremesAndZoomAtFullResolution) {
  // One job of 4000 steps with a loss spike and a diverged step, as the trainer would report them.
  Sweep spec = make_sweep("long", 1);
  spec.jobs[0].config.steps = 4000;
  spec.jobs[0].config_hash = config_hash(spec.jobs[0].config);
  auto sweep = store_->create_sweep(spec, "name: long", "long.yaml", false).sweep;
  worker_ = store_->register_worker("host", 1, {"gpu0"}, "");
  auto lease = store_->lease(worker_, 10000);
  ASSERT_TRUE(lease);
  store_->start(worker_, lease->job.id, lease->attempt);
  std::vector<MetricPoint> points;
  for (std::int64_t s = 1; s <= 4000; ++s) points.push_back({s, s * 64, "train/loss", 4.0 - s * 0.0005});
  points[1233].value = 9.5;                                       // step 1234
  points[2999].value = std::numeric_limits<double>::quiet_NaN();  // step 3000
  points.push_back({4000, 4000 * 64, "val/loss", 2.0});
  ASSERT_EQ(store_->add_metrics(lease->job.id, lease->attempt, points).stored, 4001);
  const std::string base = "/api/jobs/" + lease->job.id + "/metrics?names=train/loss";

  json full = get(base)["train/loss"];
  EXPECT_EQ(full["step"].size(), 4000u) << "no max_points: every point";
  json small = get(base + "&max_points=100")["train/loss"];
  ASSERT_LE(small["step"].size(), 100u);
  // 25 buckets asked; aligned ones of whole tiles give at least 4/5 of 24 (core/metric_tiles.h), so 20, 2 points
  // each on a falling curve (its first is its highest, its last its lowest).
  EXPECT_GE(small["step"].size(), 40u);
  EXPECT_EQ(small["step"].front(), 1);
  EXPECT_EQ(small["step"].back(), 4000);
  EXPECT_EQ(small["tokens"].back(), 4000 * 64);
  bool spike = false, diverged = false;
  for (std::size_t i = 0; i < small["step"].size(); ++i) {
    if (small["step"][i] == 1234) spike = small["value"][i] == 9.5;
    if (small["step"][i] == 3000) diverged = small["value"][i].is_null();
  }
  EXPECT_TRUE(spike) << "the spike is kept";
  EXPECT_TRUE(diverged) << "the NaN step is kept (as null)";
  // Each series of a sweep's bulk answer is downsampled on its own; a short one comes back whole.
  json bulk = get("/api/sweeps/" + sweep.id + "/metrics?max_points=100")[lease->job.id];
  EXPECT_EQ(bulk["train/loss"]["step"], small["step"]);
  EXPECT_EQ(bulk["val/loss"]["step"], json::array({4000}));

  // A zoomed range at full resolution when it fits the budget; downsampled inside the range when not.
  json zoom = get(base + "&max_points=100&from_step=1200&to_step=1280")["train/loss"];
  ASSERT_EQ(zoom["step"].size(), 81u);
  EXPECT_EQ(zoom["step"].front(), 1200);
  EXPECT_EQ(zoom["step"].back(), 1280);
  EXPECT_EQ(zoom["value"][34], 9.5);
  json wide = get(base + "&max_points=40&from_step=1000&to_step=2000")["train/loss"];
  EXPECT_LE(wide["step"].size(), 40u);
  EXPECT_EQ(wide["step"].front(), 1000);
  EXPECT_EQ(wide["step"].back(), 2000);
  EXPECT_EQ(get(base + "&from_step=3990&after_step=3995")["train/loss"]["step"].size(), 5u)
      << "after_step and from_step together: the later start";

  const std::pair<const char*, const char*> refused[] = {{"&max_points=3", "max_points"},
                                                         {"&max_points=400001", "max_points"},
                                                         {"&max_points=x", "max_points"},
                                                         {"&from_step=-1", "from_step"},
                                                         {"&to_step=5&from_step=6", "to_step"},
                                                         {"&to_step=1e3", "to_step"}};
  for (const auto& [bad, field] : refused) {
    const std::string error = get(base + bad, 400)["error"];
    EXPECT_EQ(error.rfind(std::string(field) + ": ", 0), 0u) << bad << ": " << error;
  }
  EXPECT_EQ(get(base + "&max_points=3", 400)["error"], "max_points: expected an integer from 4 to 400000, got '3'");
  for (const char* lenient : {"&to_step=+5", "&to_step=%205", "&to_step=5%20", "&to_step=0x10", "&to_step="}) {
    EXPECT_EQ(get(base + lenient, 400)["error"].get<std::string>().rfind("to_step: ", 0), 0u)
        << lenient << ": only digits (and a leading '-') are an integer";
  }
}

TEST_F(HttpApiTest, MetricsWithoutMaxPointsAreBoundedInAllTheAnswersSeries) {
  // A limit of 3,000 points (the server's is 1,000,000): every point of a 2,000-step job fits, the sweep's two
  // jobs together do not, and neither does one job's two metrics.
  options_.http_max_full_series_points = 3000;
  client_.reset();
  api_ = std::make_unique<HttpApi>(*store_, options_);
  client_ = std::make_unique<httplib::Client>("127.0.0.1", api_->port());
  Sweep spec = make_sweep("bounded", 2);
  for (SweepJob& job : spec.jobs) {
    job.config.steps = 2000;
    job.config_hash = config_hash(job.config);
  }
  auto sweep = store_->create_sweep(spec, "name: bounded", "bounded.yaml", false).sweep;
  worker_ = store_->register_worker("host", 2, {"gpu0", "gpu1"}, "");
  std::vector<std::string> jobs;
  for (int i = 0; i < 2; ++i) {
    auto lease = store_->lease(worker_, 10000);
    ASSERT_TRUE(lease);
    store_->start(worker_, lease->job.id, lease->attempt);
    std::vector<MetricPoint> points;
    for (std::int64_t s = 1; s <= 2000; ++s) points.push_back({s, s * 64, "train/loss", 3.0});
    for (std::int64_t s = 1; s <= 1500; ++s) points.push_back({s, s * 64, "val/loss", 3.0});
    ASSERT_EQ(store_->add_metrics(lease->job.id, lease->attempt, points).stored, 3500);
    jobs.push_back(lease->job.id);
  }
  const std::string job = "/api/jobs/" + jobs[0] + "/metrics";
  EXPECT_EQ(get(job + "?names=train/loss")["train/loss"]["step"].size(), 2000u);
  EXPECT_EQ(get(job + "?from_step=501")["train/loss"]["step"].size(), 1500u) << "3,000 points exactly: allowed";
  const std::string error = get(job, 400)["error"];
  EXPECT_EQ(error, "the answer would hold more than 3000 points, the limit without max_points: ask with "
                   "max_points, or for fewer steps (after_step, from_step and to_step) or metrics (names)");
  get("/api/sweeps/" + sweep.id + "/metrics?names=train/loss", 400);
  EXPECT_EQ(get("/api/sweeps/" + sweep.id + "/metrics?names=train/loss&after_step=1000").size(), 2u)
      << "1,000 steps of each job: 2,000 points";
  const json downsampled = get("/api/sweeps/" + sweep.id + "/metrics?max_points=400");
  for (const std::string& id : jobs) {
    for (const char* name : {"train/loss", "val/loss"}) {
      const std::size_t n = downsampled[id][name]["step"].size();
      EXPECT_TRUE(n > 100 && n <= 400) << id << " " << name << ": " << n
                                       << " (downsampled answers are bounded by max_points, not by this limit)";
    }
  }
}

TEST_F(HttpApiTest, RunsCarryParamsTokensAndFinalLosses) {
  auto [sweep, job] = sweep_with_running_job({{1, 100, "train/loss", 5.0},
                                              {2, 200, "train/loss", 4.0},
                                              {3, 300, "train/loss", 3.0},
                                              {3, 300, "val/loss", 3.5},
                                              {10, 1000, "train/loss", 2.0},
                                              {10, 1000, "val/loss", 2.75}},
                                             true);
  json runs = get("/api/sweeps/" + sweep.id + "/runs");
  ASSERT_EQ(runs.size(), 2u);
  const JobConfig config = job_config_from_json(json::parse(job.config_json));
  const ParamCounts counts = count_params(config.model, config.scale);
  json run = runs[0];
  EXPECT_EQ(run["id"], job.id);
  EXPECT_EQ(run["name"], "s/job0");
  EXPECT_EQ(run["state"], "succeeded");
  EXPECT_EQ(run["stage"], "main");
  EXPECT_EQ(run["variant"], "baseline");
  EXPECT_EQ(run["preset"], "custom " + std::to_string(config.model.n_layers) + "x" +
                              std::to_string(config.model.d_model))
      << "no model preset named: its dimensions";
  EXPECT_EQ(run["params"], counts.activated - counts.embedding);
  EXPECT_EQ(run["total_params"], counts.total);
  EXPECT_EQ(run["tokens"], double(config.steps) * double(config.batch_tokens));
  EXPECT_GT(run["compute"].get<double>(), 0.0);
  EXPECT_EQ(run["final_val_loss"], 2.75);
  EXPECT_DOUBLE_EQ(run["final_train_loss"].get<double>(), (5.0 + 4.0 + 3.0 + 2.0) / 4);
  EXPECT_EQ(run["loss"], 2.75) << "val loss first";

  EXPECT_EQ(runs[1]["state"], "pending");
  EXPECT_TRUE(runs[1]["loss"].is_null());
  EXPECT_TRUE(runs[1]["final_train_loss"].is_null());
  EXPECT_EQ(runs[1]["params"], counts.activated - counts.embedding);
}

TEST_F(HttpApiTest, FitsAreNoneUntilStoredThenTheLatestOrAllVersions) {
  auto sweep = store_->create_sweep(make_sweep("s", 1), "name: s", "s.yaml", false).sweep;
  // No fit yet is an answer, not a missing resource (a browser logs every 404 as an error); no sweep is a 404.
  EXPECT_EQ(get("/api/sweeps/" + sweep.id + "/fits"), json({{"version", 0}, {"fits", json::array()}}));
  EXPECT_EQ(get("/api/sweeps/" + sweep.id + "/fits?all=1"), json({{"fits", json::array()}}));
  get("/api/sweeps/9999/fits", 404);
  store_->add_fit(sweep.id, "scale.variant", {"1"}, {{"n", R"({"law":"n","groups":[]})"}});
  store_->add_fit(sweep.id, "scale.variant", {"1", "2"},
                  {{"n", R"({"law":"n","groups":[{"group":"baseline"}]})"}, {"c", R"({"law":"c","groups":[]})"}});
  const json latest = get("/api/sweeps/" + sweep.id + "/fits");
  EXPECT_EQ(latest["version"], 2);
  ASSERT_EQ(latest["fits"].size(), 2u) << "every law of the newest version";
  EXPECT_EQ(latest["fits"][0]["law"], "n");
  EXPECT_EQ(latest["fits"][1]["law"], "c");
  EXPECT_EQ(latest["fits"][0]["job_ids"], json({"1", "2"}));
  EXPECT_EQ(json::parse(latest["fits"][0]["report_json"].get<std::string>())["groups"][0]["group"], "baseline");
  const json all = get("/api/sweeps/" + sweep.id + "/fits?all=1");
  ASSERT_EQ(all["fits"].size(), 3u);
  EXPECT_EQ(all["fits"][2]["version"], 1);
  EXPECT_FALSE(all.contains("next_before_version")) << "no older version";

  // The history a page of versions at a time, a version's laws together.
  for (int v = 3; v <= 12; ++v) store_->add_fit(sweep.id, "scale.variant", {"1"}, {{"n", "{}"}});
  const std::string history = "/api/sweeps/" + sweep.id + "/fits?all=1";
  const json newest = get(history);
  EXPECT_EQ(newest["fits"].size(), 10u) << "10 versions by default";
  EXPECT_EQ(newest["fits"][0]["version"], 12);
  EXPECT_EQ(newest["next_before_version"], 3);
  std::vector<int> versions;
  std::string next = history + "&limit=4";
  for (int pages = 0; pages < 10; ++pages) {
    const json page = get(next);
    for (const json& fit : page["fits"]) versions.push_back(fit["version"]);
    if (!page.contains("next_before_version")) break;
    next = history + "&limit=4&before_version=" + std::to_string(page["next_before_version"].get<int>());
  }
  EXPECT_EQ(versions, (std::vector<int>{12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 2, 1})) << "every fit once";
  EXPECT_TRUE(get(history + "&before_version=1")["fits"].empty()) << "nothing older than the first";
  EXPECT_EQ(get(history + "&limit=101", 400)["error"], "limit: expected an integer from 1 to 100, got '101'");
  EXPECT_EQ(get(history + "&before_version=0", 400)["error"].get<std::string>().rfind("before_version: ", 0), 0u);
}

// POST that must answer `status` with a JSON body.
json post(httplib::Client& client, const std::string& path, int status) {
  auto res = client.Post(path.c_str(), "", "text/plain");
  EXPECT_TRUE(res) << path;
  if (!res) return nullptr;
  EXPECT_EQ(res->status, status) << path << ": " << res->body;
  return json::parse(res->body);
}

TEST_F(HttpApiTest, JobHistoryWithAttemptsWorkersAndReasonsBounded) {
  auto [sweep, job] = sweep_with_running_job({}, false);
  ASSERT_TRUE(store_->finish(worker_, job.id, 1, AttemptEnd::kFailed, "exit code 1: out of memory"));
  const json history = get("/api/jobs/" + job.id + "/events");
  EXPECT_EQ(history["earlier"], false);
  const json& events = history["events"];
  ASSERT_EQ(events.size(), 4u) << events.dump();
  std::vector<std::string> kinds;
  for (const json& e : events) kinds.push_back(e["kind"]);
  EXPECT_EQ(kinds, (std::vector<std::string>{"submitted", "leased", "started", "requeued"}));
  EXPECT_EQ(events[1]["state"], "leased");
  EXPECT_EQ(events[1]["attempt"], 1);
  EXPECT_EQ(events[1]["worker_id"], worker_);
  EXPECT_EQ(events[1]["worker"], "host");
  EXPECT_EQ(events[3]["state"], "pending");
  EXPECT_EQ(events[3]["detail"], "exit code 1: out of memory");
  EXPECT_TRUE(events[3]["at_ms"].is_number_integer());
  const json last = get("/api/jobs/" + job.id + "/events?limit=2");
  ASSERT_EQ(last["events"].size(), 2u);
  EXPECT_EQ(last["events"][1]["kind"], "requeued");
  EXPECT_EQ(last["earlier"], true);
  EXPECT_EQ(get("/api/jobs/" + job.id + "/events?limit=0", 400)["error"],
            "limit: expected an integer from 1 to 1000, got '0'");
  get("/api/jobs/" + job.id + "/events?limit=1001", 400);
  get("/api/jobs/999/events", 404);
}

TEST_F(HttpApiTest, LogTailIsTheLast64KiBOfValidTextWithoutControlCharacters) {
  auto [sweep, job] = sweep_with_running_job({}, false);
  const json none = get("/api/jobs/" + job.id + "/log");
  EXPECT_EQ(none["exists"], false);
  EXPECT_EQ(none["text"], "");
  const auto log = options_.shared_root / "jobs" / job.id / "log.txt";
  std::filesystem::create_directories(log.parent_path());
  const std::string euro = "\xE2\x82\xAC";  // 3 bytes
  // 70,000 bytes of euro signs: the last 64 KiB starts inside one, which is dropped whole.
  std::string body;
  while (body.size() < 70000 - 16) body += euro;
  const std::string end = "\x1B[1mdone\x1B[0m\r\nlast \xFF line\n";
  std::ofstream(log, std::ios::binary) << body << end;
  const json tail = get("/api/jobs/" + job.id + "/log");
  EXPECT_EQ(tail["exists"], true);
  EXPECT_EQ(tail["size"], body.size() + end.size());
  EXPECT_EQ(tail["truncated"], true);
  const std::string text = tail["text"];
  EXPECT_LE(text.size(), 65536u);
  EXPECT_GT(text.size(), 65536u - 8);
  EXPECT_EQ(text.substr(0, 3), euro) << "starts at a whole character";
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_TRUE(text.ends_with("[1mdone[0m\nlast " + fffd + " line\n")) << text.substr(text.size() - 40);
  const json small = get("/api/jobs/" + job.id + "/log?tail_bytes=10");
  EXPECT_EQ(small["text"], " " + fffd + " line\n");
  get("/api/jobs/" + job.id + "/log?tail_bytes=65537", 400);
  get("/api/jobs/999/log", 404);
}

TEST_F(HttpApiTest, CheckpointsAreListedByNameStepAndSizeNeverRead) {
  auto [sweep, job] = sweep_with_running_job({}, false);
  EXPECT_EQ(get("/api/jobs/" + job.id + "/checkpoints")["checkpoints"], json::array());
  const auto dir = options_.shared_root / "jobs" / job.id / "ckpt";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "ckpt_000000010.safetensors") << std::string(100, 'x');
  std::ofstream(dir / "ckpt_000000020.safetensors") << std::string(250, 'y');
  std::ofstream(dir / "ckpt_000000020.safetensors.sum") << "{}";
  std::ofstream(dir / "latest") << "ckpt_000000020.safetensors\n";
  std::filesystem::create_directories(dir / "ckpt_000000030.safetensors");  // a directory: not a checkpoint
  std::filesystem::create_symlink(dir / "ckpt_000000010.safetensors", dir / "ckpt_000000040.safetensors");
  const json list = get("/api/jobs/" + job.id + "/checkpoints");
  EXPECT_EQ(list["dir"], "jobs/" + job.id + "/ckpt");
  EXPECT_EQ(list["truncated"], false);
  ASSERT_EQ(list["checkpoints"].size(), 2u) << list.dump();
  EXPECT_EQ(list["checkpoints"][0]["name"], "ckpt_000000020.safetensors");
  EXPECT_EQ(list["checkpoints"][0]["step"], 20);
  EXPECT_EQ(list["checkpoints"][0]["bytes"], 250);
  EXPECT_GT(list["checkpoints"][0]["modified_ms"].get<std::int64_t>(), 0);
  EXPECT_EQ(list["checkpoints"][1]["step"], 10);
  EXPECT_EQ(list.dump().find("yyy"), std::string::npos);
  get("/api/jobs/999/checkpoints", 404);
}

// Links in the shared root (core/shared_root_files.h): at the log, at the job's directory, at ckpt/. The routes
// answer "no log" and "no checkpoints" with the reason, never a byte or a name of what the link points at.
TEST_F(HttpApiTest, LogAndCheckpointRoutesNeverFollowALink) {
  auto [sweep, job] = sweep_with_running_job({}, false);
  const auto outside = path_.parent_path() / "outside";
  std::filesystem::create_directories(outside / "ckpt");
  std::ofstream(outside / "server.key") << "CANARY-PRIVATE-KEY";
  std::ofstream(outside / "log.txt") << "CANARY-LOG";
  std::ofstream(outside / "ckpt" / "ckpt_000000010.safetensors") << "CANARY-CKPT";
  const auto dir = options_.shared_root / "jobs" / job.id;
  const std::string log = "/api/jobs/" + job.id + "/log", checkpoints = "/api/jobs/" + job.id + "/checkpoints";
  const std::string rel = "jobs/" + job.id;
  const auto refused = [&](const std::string& route, const std::string& reason) {
    const json answer = get(route);
    EXPECT_EQ(answer["refused"], reason) << route;
    EXPECT_EQ(answer.value("exists", false), false);
    EXPECT_EQ(answer.value("checkpoints", json::array()), json::array());
    EXPECT_EQ(answer.dump().find("CANARY"), std::string::npos) << answer.dump();
  };
  std::filesystem::create_directories(dir);
  std::filesystem::create_symlink(outside / "server.key", dir / "log.txt");
  refused(log, rel + "/log.txt: is a symbolic link (not followed)");
  std::filesystem::remove(dir / "log.txt");
  std::filesystem::create_symlink(outside / "absent", dir / "log.txt");  // dangling
  refused(log, rel + "/log.txt: is a symbolic link (not followed)");
  std::filesystem::remove(dir / "log.txt");
  ASSERT_EQ(::mkfifo((dir / "log.txt").c_str(), 0644), 0);
  refused(log, rel + "/log.txt: is not a regular file");
  std::filesystem::remove(dir / "log.txt");
  std::filesystem::create_directory_symlink(outside / "ckpt", dir / "ckpt");
  refused(checkpoints, rel + "/ckpt: is a symbolic link (not followed)");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directory_symlink(outside, dir);
  refused(log, rel + ": is a symbolic link (not followed)");
  refused(checkpoints, rel + ": is a symbolic link (not followed)");
}

TEST_F(HttpApiTest, CancelAndRetryUseTheStoresOperations) {
  auto [sweep, running] = sweep_with_running_job({}, false);
  const JobRecord pending = store_->list_jobs(sweep.id).at(1);
  // A pending job is cancelled at once; a running one is flagged for its worker and stays running until then.
  EXPECT_EQ(post(*client_, "/api/jobs/" + pending.id + "/cancel", 200)["state"], "cancelled");
  EXPECT_EQ(post(*client_, "/api/jobs/" + running.id + "/cancel", 200)["state"], "running");
  EXPECT_TRUE(store_->heartbeat(worker_, {{running.id, 1}}, false, 10000).cancel_job_ids ==
              std::vector<std::string>{running.id});
  ASSERT_TRUE(store_->finish(worker_, running.id, 1, AttemptEnd::kCancelled, ""));
  EXPECT_EQ(post(*client_, "/api/jobs/" + running.id + "/cancel", 409)["error"],
            "job " + running.id + " was cancelled; only pending, leased or running jobs can be cancelled");
  const json retried = post(*client_, "/api/jobs/" + running.id + "/retry", 200);
  EXPECT_EQ(retried["state"], "pending");
  EXPECT_EQ(retried["attempt"], 0);
  EXPECT_EQ(post(*client_, "/api/jobs/" + running.id + "/retry", 409)["error"],
            "job " + running.id + " is pending; only failed or cancelled jobs can be retried");
  std::vector<std::string> kinds;
  for (const JobEvent& e : store_->job_events(running.id, 100).events) kinds.push_back(e.kind);
  EXPECT_EQ(kinds, (std::vector<std::string>{"submitted", "leased", "started", "cancel_requested", "cancelled",
                                             "retried"}));
  post(*client_, "/api/jobs/999/cancel", 404);
  post(*client_, "/api/jobs/999/retry", 404);
  auto get_cancel = client_->Get(("/api/jobs/" + pending.id + "/cancel").c_str());
  ASSERT_TRUE(get_cancel);
  EXPECT_EQ(get_cancel->status, 405) << "a GET changes nothing";
  EXPECT_EQ(store_->find_job(pending.id)->state, JobState::kCancelled);
}

// A sweep file submitted and cancelled over HTTP (the Python client's route), the same operations as the CLI's.
TEST_F(HttpApiTest, ASweepIsSubmittedAndCancelledOverHttp) {
  const std::string yaml = "name: web\nbase: {model: {d_model: 32, n_heads: 4}, steps: 10}\nseeds: 3\n";
  auto created = client_->Post("/api/sweeps?file_name=web.yaml", yaml, "application/yaml");
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 201) << created->body;
  const json answer = json::parse(created->body);
  EXPECT_EQ(answer["sweep"]["name"], "web");
  EXPECT_EQ(answer["jobs_created"], 3);
  EXPECT_EQ(answer["jobs_reused"], 0);
  EXPECT_EQ(store_->list_jobs(answer["sweep"]["id"].get<std::string>()).size(), 3u);

  // A file with problems: 422, each problem where it is, nothing stored.
  auto refused = client_->Post("/api/sweeps?file_name=bad.yaml",
                               "name: bad\nbase: {model: {d_model: 32, n_heads: 4}, stepz: 10}\n", "application/yaml");
  ASSERT_TRUE(refused);
  ASSERT_EQ(refused->status, 422) << refused->body;
  const json problems = json::parse(refused->body);
  EXPECT_EQ(problems["error"], "1 problem(s) in bad.yaml");
  EXPECT_EQ(problems["problems"][0]["line"], 2);
  EXPECT_EQ(problems["problems"][0]["file"], "bad.yaml");
  EXPECT_NE(problems["problems"][0]["message"].get<std::string>().find("unknown key 'stepz'"), std::string::npos);
  EXPECT_EQ(get("/api/sweeps").size(), 1u) << "nothing stored";

  // Its parameters are checked, naming the limit and the value.
  auto bad_rerun = client_->Post("/api/sweeps?rerun=yes", yaml, "application/yaml");
  ASSERT_TRUE(bad_rerun);
  EXPECT_EQ(bad_rerun->status, 400);
  EXPECT_EQ(json::parse(bad_rerun->body)["error"], "rerun: expected 0 or 1, got 'yes'");
  auto long_name = client_->Post(("/api/sweeps?file_name=" + std::string(2000, 'x')).c_str(), yaml, "application/yaml");
  ASSERT_TRUE(long_name);
  EXPECT_EQ(long_name->status, 400);
  EXPECT_EQ(json::parse(long_name->body)["error"], "file_name: expected 1 to 1024 bytes of UTF-8, got 2000 bytes");

  const std::string id = answer["sweep"]["id"].get<std::string>();
  EXPECT_EQ(post(*client_, "/api/sweeps/" + id + "/cancel", 200)["cancelled"], 3);
  for (const JobRecord& job : store_->list_jobs(id)) EXPECT_EQ(job.state, JobState::kCancelled) << job.id;
  post(*client_, "/api/sweeps/nope/cancel", 404);
}

TEST_F(HttpApiTest, ServesDashboardAndUPlotButNotPackageFiles) {
  auto index = client_->Get("/");
  ASSERT_TRUE(index);
  EXPECT_EQ(index->status, 200);
  EXPECT_NE(index->body.find("gammalab"), std::string::npos);
  auto uplot = client_->Get("/vendor/uplot/uPlot.esm.js");
  ASSERT_TRUE(uplot);
  EXPECT_EQ(uplot->status, 200);
  EXPECT_NE(uplot->get_header_value("Content-Type").find("javascript"), std::string::npos)
      << "ES modules need a JavaScript MIME type";
  for (const char* hidden : {"/package.json", "/node_modules/uplot/dist/uPlot.esm.js"}) {
    auto res = client_->Get(hidden);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 404) << hidden;
  }
}

// Only the dashboard's own files, however a path to another file under web/ (or beyond) is spelled.
TEST_F(HttpApiTest, OtherFilesUnderTheWebRootAre404HoweverThePathIsSpelled) {
  std::filesystem::create_directories(options_.web_root / "test");
  std::ofstream(options_.web_root / "test" / "dashboard.test.js") << "secret test";
  std::ofstream(options_.web_root / ".env") << "secret";
  std::ofstream(options_.web_root / "app.js") << "export {};";
  client_->set_url_encode(false);  // send each spelling as it is
  for (const char* path :
       {"//package.json", "///package.json", "/./package.json", "/.//package.json", "/%2e/package.json",
        "/%2e%2e/", "/%2e%2e/gammalab.db", "/%2E%2E%2Fgammalab.db", "/..%2fgammalab.db", "/%2Fpackage.json",
        "/%2fpackage.json", "/package%2ejson", "/.env", "/%2eenv", "/test/dashboard.test.js",
        "//test/dashboard.test.js", "/test%2Fdashboard.test.js", "/node_modules/uplot/dist/uPlot.esm.js",
        "//node_modules/uplot/dist/uPlot.esm.js", "/node_modules%2Fuplot%2Fdist%2FuPlot.esm.js",
        "/vendor/uplot/%2e%2e/%2e%2e/%2e%2e/package.json", "/vendor/uplot/..%2F..%2F..%2Fpackage.json",
        "/vendor/uplot//uPlot.esm.js", "/vendor//uplot/uPlot.esm.js", "/app.js/", "/app.js%00.html", "/app.js\\"}) {
    auto res = client_->Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 404) << path << ": " << res->body;
    EXPECT_EQ(res->body.find("secret"), std::string::npos) << path;
    EXPECT_EQ(res->body.find('{'), std::string::npos) << path << " served package.json: " << res->body;
  }
  for (const char* path : {"/", "/index.html", "/app.js", "/vendor/uplot/uPlot.esm.js"}) {
    auto res = client_->Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 200) << path;
  }
}

TEST_F(HttpApiTest, EventStreamSendsHelloThenChangeAfterAWrite) {
  auto sweep = store_->create_sweep(make_sweep("s", 1), "", "", false).sweep;
  std::mutex mutex;
  std::condition_variable cv;
  std::string received;
  bool closed = false;
  std::thread reader([&] {
    httplib::Client sse("127.0.0.1", api_->port());
    sse.set_read_timeout(60, 0);
    sse.Get("/api/events", [&](const char* data, size_t size) {
      std::lock_guard lock(mutex);
      received.append(data, size);
      cv.notify_all();
      return received.find("event: change") == std::string::npos;  // stop reading after the first change
    });
    std::lock_guard lock(mutex);
    closed = true;
    cv.notify_all();
  });
  auto wait_for = [&](const std::string& text) {
    std::unique_lock lock(mutex);
    return cv.wait_for(lock, std::chrono::seconds(60),
                       [&] { return received.find(text) != std::string::npos || closed; }) &&
           received.find(text) != std::string::npos;
  };
  EXPECT_TRUE(wait_for("event: hello\ndata: {\"version\":")) << received;
  {
    std::lock_guard lock(mutex);
    EXPECT_EQ(received.find("event: change"), std::string::npos) << "no change before a write: " << received;
  }
  auto lease = store_->lease(store_->register_worker("host", 1, {}, ""), 10000);
  ASSERT_TRUE(lease);
  store_->add_metrics(lease->job.id, 1, {{1, 10, "train/loss", 2.0}});
  EXPECT_TRUE(wait_for("event: change\ndata: {\"version\":")) << received;
  reader.join();
}

TEST_F(HttpApiTest, ShutdownEndsAnOpenEventStreamPromptly) {
  std::atomic<bool> hello{false};
  std::thread reader([&] {
    httplib::Client sse("127.0.0.1", api_->port());
    sse.set_read_timeout(60, 0);
    sse.Get("/api/events", [&](const char* data, size_t size) {
      if (std::string(data, size).find("event: hello") != std::string::npos) hello = true;
      return true;
    });
  });
  for (int i = 0; i < 6000 && !hello; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(hello);
  const auto start = std::chrono::steady_clock::now();
  api_.reset();
  // The stream is quiet (its next ping is 15 s away); stopping must not wait for it. Generous bound.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(12));
  reader.join();
}

}  // namespace
}  // namespace gammalab::testing

namespace gammalab::testing {
namespace {

// A page that keeps a sweep's jobs asks for what changed since its last answer: the whole list says where the
// changes start (X-Change-Seq), changed_after gives only the jobs written since, and X-Pending-Basis moves when
// the live workers change, since a pending job's reason may then change without its row.
TEST_F(HttpApiTest, JobsChangedAfterGiveOnlyTheJobsWrittenSinceTheLastAnswer) {
  const auto sweep = store_->create_sweep(make_sweep("c", 3), "name: c", "c.yaml", false).sweep;
  auto whole = client_->Get(("/api/sweeps/" + sweep.id + "/jobs").c_str());
  ASSERT_TRUE(whole);
  ASSERT_EQ(whole->status, 200);
  EXPECT_EQ(json::parse(whole->body).size(), 3u);
  const std::string seq = whole->get_header_value("X-Change-Seq");
  ASSERT_FALSE(seq.empty());
  EXPECT_EQ(whole->get_header_value("X-Pending-Basis"), "none") << "no worker is alive";
  EXPECT_EQ(json::parse(whole->body)[0]["pending_reason"].get<std::string>().find("no worker is alive") !=
                std::string::npos,
            true);

  auto quiet = client_->Get(("/api/sweeps/" + sweep.name + "/jobs?changed_after=" + seq).c_str());
  ASSERT_TRUE(quiet);
  EXPECT_EQ(json::parse(quiet->body), json::array()) << "nothing changed; the sweep's name serves as its id";
  EXPECT_EQ(quiet->get_header_value("X-Change-Seq"), seq);

  worker_ = store_->register_worker("host", 2, {}, "");
  auto lease = store_->lease(worker_, 10000);
  ASSERT_TRUE(lease);
  auto changed = client_->Get(("/api/sweeps/" + sweep.id + "/jobs?changed_after=" + seq).c_str());
  ASSERT_TRUE(changed);
  const json jobs = json::parse(changed->body);
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0]["id"], lease->job.id);
  EXPECT_EQ(jobs[0]["state"], "leased");
  EXPECT_EQ(changed->get_header_value("X-Pending-Basis"), "2") << "one live worker with 2 slots";
  EXPECT_NE(changed->get_header_value("X-Change-Seq"), seq);

  get("/api/sweeps/" + sweep.id + "/jobs?changed_after=-1", 400);
  const json refused = get("/api/sweeps/" + sweep.id + "/jobs?changed_after=x", 400);
  EXPECT_NE(refused["error"].get<std::string>().find("changed_after"), std::string::npos) << refused;
  get("/api/sweeps/999/jobs?changed_after=0", 404);
}

}  // namespace
}  // namespace gammalab::testing
