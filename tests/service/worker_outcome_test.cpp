// A real worker daemon against the coordinator's real services on loopback, with a stand-in trainer (a shell
// script) that fails after printing bytes no real trainer is guaranteed to avoid: a character split by the
// end of the log, and bytes that are not UTF-8 at all. The failure must still reach the coordinator: the
// error is the log's end, cut at a character and made valid, not a FinishJob the coordinator cannot parse
// and the worker resends for ever. Likewise a metric report the coordinator refuses is dropped, not resent,
// and the attempt that lost it fails: a run with a hole is never reported as a success.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <thread>

#include "core/utf8_text.h"
#include "tests/service/in_process_coordinator.h"
#include "worker/worker_daemon.h"

namespace gammalab::testing {
namespace {

struct Outcome {
  JobRecord job;                    // as the coordinator has it at the end
  std::vector<MetricPoint> losses;  // its stored train/loss points
  grpc::Status log_status;          // GetJobLog of the whole log
  std::string log;
  grpc::Status tail_status;         // GetJobLog of its last 100 bytes
  std::string tail;
};

// Runs one job to its end with `script` (a shell script's body) as the trainer; `before` may plant files in the
// shared root (given the root and the job's id) before the worker starts.
Outcome run_job(const std::string& name, const std::string& script,
                const std::function<void(const std::filesystem::path&, const std::string&)>& before = {}) {
  InProcessCoordinator coordinator(name);
  const std::string sweep = coordinator.store().create_sweep(make_sweep(name, 1, 0, 1), "", "", false).sweep.id;
  const std::string job_id = coordinator.store().list_jobs(sweep).at(0).id;
  if (before) before(coordinator.db_path().parent_path() / "shared", job_id);

  const auto trainer = coordinator.db_path().parent_path() / "fake-train.sh";
  std::ofstream(trainer, std::ios::binary) << "#!/bin/sh\n" << script;
  ::chmod(trainer.c_str(), 0755);

  WorkerOptions options;
  options.coordinator = coordinator.address();
  options.security = coordinator.worker_security();
  options.trainer = trainer;
  options.shared_root = coordinator.db_path().parent_path() / "shared";
  options.hostname = "test-host";
  options.poll_interval_ms = 50;
  auto daemon = std::make_unique<WorkerDaemon>(options);
  std::thread thread([&daemon] { daemon->run(); });

  Outcome outcome;
  JobRecord& job = outcome.job;
  bool ended = false;
  for (int i = 0; i < 400 && !ended; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    job = *coordinator.store().find_job(job_id);
    ended = job.state == JobState::kFailed || job.state == JobState::kSucceeded;
  }
  daemon->request_drain();
  if (!ended) {
    // The worker is stuck resending and would never join: leave it behind, the test has failed.
    ADD_FAILURE() << "the job did not end within 20 s; state " << job_state_name(job.state);
    thread.detach();
    (void)daemon.release();
    return outcome;
  }
  thread.join();
  outcome.losses = coordinator.store().metrics(job_id, {"train/loss"});
  auto stub = v1::Coordinator::NewStub(coordinator.own_channel());
  for (const std::int64_t tail : {0, 100}) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    v1::GetJobLogRequest request;
    request.set_job_id(job_id);
    request.set_tail_bytes(tail);
    v1::GetJobLogResponse response;
    (tail == 0 ? outcome.log_status : outcome.tail_status) = stub->GetJobLog(&context, request, &response);
    (tail == 0 ? outcome.log : outcome.tail) = response.text();
  }
  return outcome;
}

// A trainer that writes `log_text` to its stderr (the job log) and exits 3.
Outcome run_failing_job(const std::string& name, const std::string& log_text) {
  return run_job(name, "cat >&2 <<'END_OF_LOG'\n" + log_text + "\nEND_OF_LOG\nexit 3\n");
}

TEST(WorkerOutcome, ALogEndingInASplitCharacterStillFailsTheJob) {
  const std::string euro = "\xE2\x82\xAC";
  std::string text = "step 10 diverged: ";
  for (int i = 0; i < 300; ++i) text += euro;  // the 600-byte tail starts inside one of these
  text += "\xE2\x82";                         // and the log ends inside another
  const Outcome outcome = run_failing_job("split-utf8", text);
  const JobRecord& job = outcome.job;
  ASSERT_EQ(job.state, JobState::kFailed);
  EXPECT_NE(job.error.find("exited with code 3"), std::string::npos) << job.error;
  EXPECT_EQ(utf8_valid(job.error), job.error) << "the stored error is valid UTF-8";
  EXPECT_NE(job.error.find(euro + euro), std::string::npos) << "whole characters of the log's end are kept";
  // The log itself, whole or its tail, reaches a client (as valid UTF-8, or the reply would not parse).
  ASSERT_TRUE(outcome.log_status.ok()) << outcome.log_status.error_message();
  ASSERT_TRUE(outcome.tail_status.ok()) << outcome.tail_status.error_message();
  EXPECT_NE(outcome.log.find("step 10 diverged: " + euro), std::string::npos);
  EXPECT_LE(outcome.tail.size(), 100u);
  EXPECT_NE(outcome.tail.find(euro), std::string::npos) << outcome.tail;
}

TEST(WorkerOutcome, ALogWithInvalidBytesStillFailsTheJob) {
  const Outcome outcome = run_failing_job("invalid-utf8", "loss \xFF\xFE\xC0\xAF is not text");
  const JobRecord& job = outcome.job;
  ASSERT_EQ(job.state, JobState::kFailed);
  ASSERT_TRUE(outcome.log_status.ok()) << outcome.log_status.error_message();
  EXPECT_NE(outcome.log.find("loss \xEF\xBF\xBD"), std::string::npos) << outcome.log;
  EXPECT_EQ(utf8_valid(job.error), job.error);
  EXPECT_NE(job.error.find("loss \xEF\xBF\xBD"), std::string::npos) << job.error;
  EXPECT_NE(job.error.find("is not text"), std::string::npos) << job.error;
}

// The coordinator refuses a metric line with a NaN loss; the worker drops it (with a warning) instead of
// resending it for ever, stops the trainer (it would only train on into a run that cannot be stored whole) and
// fails the attempt for good, naming the refusal; the points before it stay stored as they were.
TEST(WorkerOutcome, ARefusedMetricReportFailsTheAttemptInsteadOfLeavingAHole) {
  const Outcome outcome = run_job("refused-metrics",
                                  "echo '{\"step\":1,\"tokens\":100,\"metrics\":{\"train/loss\":3.0}}'\n"
                                  "sleep 1\n"
                                  "echo '{\"step\":2,\"tokens\":200,\"metrics\":{\"train/loss\":\"nan\"}}'\n"
                                  "sleep 1\n"
                                  "echo '{\"step\":3,\"tokens\":300,\"metrics\":{\"train/loss\":2.5}}'\n"
                                  "exit 0\n");
  EXPECT_EQ(outcome.job.state, JobState::kFailed) << outcome.job.error;
  EXPECT_EQ(outcome.job.attempt, 1) << "not tried again: no later attempt fills the hole";
  for (const char* needle : {"not stored, so its run is not whole", "from step 2", "refused by the coordinator",
                             "train/loss", "nan"}) {
    EXPECT_NE(outcome.job.error.find(needle), std::string::npos) << needle << " not in: " << outcome.job.error;
  }
  ASSERT_GE(outcome.losses.size(), 1u);
  EXPECT_EQ(outcome.losses[0].step, 1);
  EXPECT_EQ(outcome.losses[0].value, 3.0);
  for (const MetricPoint& p : outcome.losses) EXPECT_FALSE(std::isnan(p.value));
}

// A trainer line that looks like a metric line but cannot be read is a hole too: the attempt fails, naming it.
TEST(WorkerOutcome, AnUnreadableMetricLineFailsTheAttempt) {
  const Outcome outcome = run_job("unreadable-metrics",
                                  "echo '{\"step\":1,\"tokens\":100,\"metrics\":{\"train/loss\":3.0}}'\n"
                                  "echo '{\"step\":\"two\",\"metrics\":{\"train/loss\":2.9}}'\n"
                                  "exit 0\n");
  EXPECT_EQ(outcome.job.state, JobState::kFailed) << outcome.job.error;
  EXPECT_NE(outcome.job.error.find("a metric line the worker cannot read"), std::string::npos) << outcome.job.error;
  EXPECT_NE(outcome.log.find("the trainer is stopped"), std::string::npos) << outcome.log;
}

// Links planted in the shared root (core/shared_root_files.h) at every path the worker opens, and the log
// routes' answer for them. Outside the root, a canary file and directory: never written, never created in,
// never quoted. A link at the job's directory, at ckpt/ or at the log fails the attempt, naming the link; one
// at config.json is replaced by the worker's atomic rename (the job runs).
struct Canary {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("gammalab-canary-" + std::to_string(::getpid()));
  Canary() {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "inside");
    std::ofstream(dir / "secret.key") << "CANARY-PRIVATE-KEY";
  }
  ~Canary() { std::filesystem::remove_all(dir); }
  void expect_untouched() const {
    std::ifstream in(dir / "secret.key");
    std::string text;
    std::getline(in, text);
    EXPECT_EQ(text, "CANARY-PRIVATE-KEY");
    std::size_t entries = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) entries += e.path() != dir / "inside";
    EXPECT_EQ(entries, 1u) << "something was created outside the shared root";
  }
};

const char* const kTrainerPrintsItsConfig = "cat \"$3\" >&2\nexit 0\n";

TEST(WorkerSharedRootLinks, ALinkAtAnyDirectoryOrLogTheWorkerOpensFailsTheAttemptNamingIt) {
  const Canary canary;
  using Plant = std::function<void(const std::filesystem::path&)>;  // given jobs/<id>
  const std::vector<std::pair<std::string, Plant>> cases = {
      {"", [&](const auto& job) { std::filesystem::create_directory_symlink(canary.dir / "inside", job); }},
      {"/ckpt", [&](const auto& job) {
         std::filesystem::create_directories(job);
         std::filesystem::create_directory_symlink(canary.dir / "inside", job / "ckpt");
       }},
      {"/log.txt", [&](const auto& job) {
         std::filesystem::create_directories(job);
         std::filesystem::create_symlink(canary.dir / "secret.key", job / "log.txt");
       }},
      {"/log.txt", [&](const auto& job) {  // dangling: its target must not be created
         std::filesystem::create_directories(job);
         std::filesystem::create_symlink(canary.dir / "inside" / "made", job / "log.txt");
       }},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& [where, plant] = cases[i];
    std::string planted;
    const Outcome outcome = run_job("link" + std::to_string(i), kTrainerPrintsItsConfig,
                                    [&](const std::filesystem::path& shared, const std::string& id) {
                                      std::filesystem::create_directories(shared / "jobs");
                                      planted = "jobs/" + id + where;
                                      plant(shared / "jobs" / id);
                                    });
    EXPECT_EQ(outcome.job.state, JobState::kFailed) << planted;
    EXPECT_NE(outcome.job.error.find(planted + ": is a symbolic link (not followed)"), std::string::npos)
        << outcome.job.error;
    // The log route answers with the refusal (or no log), never the target's bytes.
    EXPECT_EQ(outcome.log.find("CANARY"), std::string::npos);
    if (where != "/ckpt") {
      EXPECT_EQ(outcome.log_status.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << planted;
      EXPECT_NE(outcome.log_status.error_message().find("is a symbolic link"), std::string::npos)
          << outcome.log_status.error_message();
    }
    canary.expect_untouched();
  }
}

TEST(WorkerSharedRootLinks, ALinkAtTheConfigIsReplacedNeverWrittenThrough) {
  const Canary canary;
  std::filesystem::path config;
  const Outcome outcome = run_job("config-link", kTrainerPrintsItsConfig,
                                  [&](const std::filesystem::path& shared, const std::string& id) {
                                    config = shared / "jobs" / id / "config.json";
                                    std::filesystem::create_directories(config.parent_path());
                                    std::filesystem::create_symlink(canary.dir / "secret.key", config);
                                  });
  EXPECT_EQ(outcome.job.state, JobState::kSucceeded) << outcome.job.error;
  ASSERT_TRUE(outcome.log_status.ok()) << outcome.log_status.error_message();
  EXPECT_EQ(outcome.log.find("CANARY"), std::string::npos) << outcome.log;
  EXPECT_NE(outcome.log.find("\"model\""), std::string::npos)
      << "the trainer read the job's own config: " << outcome.log;
  canary.expect_untouched();
}

// A link at the log after the job ran (the trainer, or anyone, replaced it): the log routes refuse it.
TEST(WorkerSharedRootLinks, TheLogRoutesRefuseALinkAtTheLog) {
  const Canary canary;
  InProcessCoordinator coordinator("log-route-link");
  const std::string sweep = coordinator.store().create_sweep(make_sweep("l", 1, 0, 1), "", "", false).sweep.id;
  const std::string job_id = coordinator.store().list_jobs(sweep).at(0).id;
  const auto job = coordinator.db_path().parent_path() / "shared" / "jobs" / job_id;
  std::filesystem::create_directories(job);
  auto stub = v1::Coordinator::NewStub(coordinator.own_channel());
  const auto get_log = [&](grpc::Status& status) {
    grpc::ClientContext context;
    v1::GetJobLogRequest request;
    request.set_job_id(job_id);
    v1::GetJobLogResponse response;
    status = stub->GetJobLog(&context, request, &response);
    return response.text();
  };
  grpc::Status status;
  std::filesystem::create_symlink(canary.dir / "secret.key", job / "log.txt");
  EXPECT_EQ(get_log(status), "");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(status.error_message(), "jobs/" + job_id + "/log.txt: is a symbolic link (not followed)");
  std::filesystem::remove(job / "log.txt");
  ASSERT_EQ(::mkfifo((job / "log.txt").c_str(), 0644), 0);
  EXPECT_EQ(get_log(status), "");
  EXPECT_EQ(status.error_message(), "jobs/" + job_id + "/log.txt: is not a regular file");
  std::filesystem::remove(job / "log.txt");
  std::filesystem::remove(job);
  std::filesystem::create_directory_symlink(canary.dir, job);  // the whole job directory, log.txt and all
  std::filesystem::copy_file(canary.dir / "secret.key", canary.dir / "log.txt");
  EXPECT_EQ(get_log(status), "");
  EXPECT_EQ(status.error_message(), "jobs/" + job_id + ": is a symbolic link (not followed)");
  std::filesystem::remove(canary.dir / "log.txt");
  canary.expect_untouched();
}

}  // namespace
}  // namespace gammalab::testing
