// WorkerDaemon's drain: on SIGTERM the worker stops leasing and each trainer gets SIGTERM, on which it writes a
// checkpoint and exits with exit_codes::kStopped; run_job then hands the job back (FinishJob with
// JOB_OUTCOME_HANDED_BACK, fenced by the attempt), which requeues it without using up an attempt and keeps its
// stored points, so the next worker resumes from the checkpoint. A trainer that has not exited after
// --drain-grace-ms, or any trainer once a second stop signal comes (request_stop_now), is killed: its job is
// requeued as a failed attempt, as if the worker had been lost.
#include <signal.h>
#include <spdlog/spdlog.h>

#include "worker/worker_daemon.h"

namespace gammalab {

void WorkerDaemon::drain_running_jobs() {
  spdlog::info("draining: {} running job(s) will checkpoint and be handed back (grace {} ms)", jobs_.size(),
               options_.drain_grace_ms);
  for (auto& job : jobs_) stop_child(*job, false, std::chrono::milliseconds(options_.drain_grace_ms));
}

void WorkerDaemon::kill_running_jobs() {
  spdlog::warn("stopping now: killing {} running trainer(s); their jobs are requeued as failed attempts",
               jobs_.size());
  for (auto& job : jobs_) stop_child(*job, true, {});
}

// A trainer started while the drain began (the lease was already on its way) is stopped like the others.
void WorkerDaemon::drain_starting_job(RunningJob& job) {
  if (stop_now_) {
    stop_child(job, true, {});
  } else if (drain_) {
    stop_child(job, false, std::chrono::milliseconds(options_.drain_grace_ms));
  }
}

void WorkerDaemon::hand_back_unstarted(RunningJob& job) {
  spdlog::info("job {}: leased as the drain began; handed back unstarted", job.job_id);
  report_finish(job, v1::JOB_OUTCOME_HANDED_BACK, "", 0);
}

std::string WorkerDaemon::drain_kill_note(int exit_code) {
  if (exit_code != 128 + SIGKILL) return "";
  return " (killed while the worker drained: the trainer outlived --drain-grace-ms, or a second stop signal came)";
}

}  // namespace gammalab
