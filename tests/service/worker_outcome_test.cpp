// A real worker daemon against the coordinator's real services on loopback, with a stand-in trainer (a shell
// script) that fails after printing bytes no real trainer is guaranteed to avoid: a character split by the
// end of the log, and bytes that are not UTF-8 at all. The failure must still reach the coordinator: the
// error is the log's end, cut at a character and made valid, not a FinishJob the coordinator cannot parse
// and the worker resends for ever. Likewise a metric report the coordinator refuses is dropped, not resent.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <thread>

#include "core/utf8_text.h"
#include "tests/service/in_process_coordinator.h"
#include "worker/worker_daemon.h"

namespace gammalab::testing {
namespace {

// Runs one job to its end with `script` (a shell script's body) as the trainer; returns the job as the
// coordinator then has it, and its stored train/loss points in `losses`.
v1::Job run_job(const std::string& name, const std::string& script, std::vector<MetricPoint>* losses = nullptr) {
  InProcessCoordinator coordinator(name);
  const std::string sweep = coordinator.store().create_sweep(make_sweep(name, 1, 0, 1), "", "", false).sweep.id();
  const std::string job_id = coordinator.store().list_jobs(sweep).at(0).id();

  const auto trainer = coordinator.db_path().parent_path() / "fake-train.sh";
  std::ofstream(trainer, std::ios::binary) << "#!/bin/sh\n" << script;
  ::chmod(trainer.c_str(), 0755);

  WorkerOptions options;
  options.coordinator = coordinator.address();
  options.trainer = trainer;
  options.shared_root = coordinator.db_path().parent_path() / "shared";
  options.hostname = "test-host";
  options.poll_interval_ms = 50;
  auto daemon = std::make_unique<WorkerDaemon>(options);
  std::thread thread([&daemon] { daemon->run(); });

  v1::Job job;
  bool ended = false;
  for (int i = 0; i < 400 && !ended; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    job = *coordinator.store().find_job(job_id);
    ended = job.state() == v1::JOB_STATE_FAILED || job.state() == v1::JOB_STATE_SUCCEEDED;
  }
  daemon->request_drain();
  if (!ended) {
    // The worker is stuck resending and would never join: leave it behind, the test has failed.
    ADD_FAILURE() << "the job did not end within 20 s; state " << v1::JobState_Name(job.state());
    thread.detach();
    (void)daemon.release();
    return job;
  }
  thread.join();
  if (losses) *losses = coordinator.store().metrics(job_id, {"train/loss"});
  return job;
}

// A trainer that writes `log_text` to its stderr (the job log) and exits 3.
v1::Job run_failing_job(const std::string& name, const std::string& log_text) {
  return run_job(name, "cat >&2 <<'END_OF_LOG'\n" + log_text + "\nEND_OF_LOG\nexit 3\n");
}

TEST(WorkerOutcome, ALogEndingInASplitCharacterStillFailsTheJob) {
  const std::string euro = "\xE2\x82\xAC";
  std::string text = "step 10 diverged: ";
  for (int i = 0; i < 300; ++i) text += euro;  // the 600-byte tail starts inside one of these
  text += "\xE2\x82";                         // and the log ends inside another
  const v1::Job job = run_failing_job("split-utf8", text);
  ASSERT_EQ(job.state(), v1::JOB_STATE_FAILED);
  EXPECT_NE(job.error().find("exited with code 3"), std::string::npos) << job.error();
  EXPECT_EQ(utf8_valid(job.error()), job.error()) << "the stored error is valid UTF-8";
  EXPECT_NE(job.error().find(euro + euro), std::string::npos) << "whole characters of the log's end are kept";
}

TEST(WorkerOutcome, ALogWithInvalidBytesStillFailsTheJob) {
  const v1::Job job = run_failing_job("invalid-utf8", "loss \xFF\xFE\xC0\xAF is not text");
  ASSERT_EQ(job.state(), v1::JOB_STATE_FAILED);
  EXPECT_EQ(utf8_valid(job.error()), job.error());
  EXPECT_NE(job.error().find("loss \xEF\xBF\xBD"), std::string::npos) << job.error();
  EXPECT_NE(job.error().find("is not text"), std::string::npos) << job.error();
}

// The coordinator refuses a metric line with a NaN loss; the worker drops it (with a warning) instead of
// resending it for ever, so the job's outcome is reported and later points are stored.
TEST(WorkerOutcome, ARefusedMetricReportIsDroppedAndTheJobStillEnds) {
  std::vector<MetricPoint> losses;
  const v1::Job job = run_job("refused-metrics",
                              "echo '{\"step\":1,\"tokens\":100,\"metrics\":{\"train/loss\":\"nan\"}}'\n"
                              "echo '{\"step\":2,\"tokens\":200,\"metrics\":{\"train/loss\":2.5}}'\n"
                              "exit 0\n",
                              &losses);
  EXPECT_EQ(job.state(), v1::JOB_STATE_SUCCEEDED) << job.error();
  ASSERT_EQ(losses.size(), 1u);
  EXPECT_EQ(losses[0].step, 2);
}

}  // namespace
}  // namespace gammalab::testing
