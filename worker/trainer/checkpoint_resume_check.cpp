#include "worker/trainer/checkpoint_resume_check.h"

#include <algorithm>
#include <utility>

namespace gammalab::trainer {

namespace {

// Where two configs first differ, as a JSON pointer ("/optim/lr"), for the message.
std::string first_difference(const nlohmann::json& was, const nlohmann::json& now) {
  const nlohmann::json patch = nlohmann::json::diff(was, now);
  if (patch.empty()) return "";
  const std::string path = patch.front().value("path", "");
  return path.empty() ? "/" : path;
}

// What a run may change when it resumes its own checkpoint by hand: how long it runs, how often it reports and
// checkpoints, and where and on how many ranks or threads it computes. Everything else (model, variant,
// optimizer, schedule, data, seed, batch) decides the trajectory the checkpoint is a point of.
nlohmann::json trajectory(nlohmann::json config) {
  if (config.is_object()) {
    for (const char* key : {"steps", "ckpt_every", "log_every", "eval_every", "sharpness_every", "threads", "device",
                            "world_size", "nodes", "micro_batch"}) {
      config.erase(key);
    }
  }
  return config;
}

}  // namespace

ResumeCheck resume_check(std::string job_uid, nlohmann::json config, StoredMetrics stored) {
  return [job_uid = std::move(job_uid), config = std::move(config),
          stored = std::move(stored)](const CheckpointMeta& meta) -> std::optional<ResumeRefusal> {
    using Kind = ResumeRefusal::Kind;
    if (!job_uid.empty() && !meta.job_uid.empty() && meta.job_uid != job_uid) {
      return ResumeRefusal{"written by job uid " + meta.job_uid + ", not this job's (" + job_uid +
                               "): another job's, left by a job of the same id (a database restored from a "
                               "backup, or another coordinator's)",
                           Kind::kForeign};
    }
    // A job's config never changes between its attempts: under a coordinator, a checkpoint from before uids
    // with another config is another job's.
    if (!job_uid.empty() && meta.job_uid.empty() && meta.config != config) {
      return ResumeRefusal{"written with another config (they differ at " + first_difference(meta.config, config) +
                               "): another job's",
                           Kind::kForeign};
    }
    // Run by hand, a run may go on longer or on other ranks; another trajectory is the directory of another
    // run: an error, as a checkpoint of another model has always been, rather than starting over on it.
    const nlohmann::json was = trajectory(meta.config), now = trajectory(config);
    if (was != now) {
      return ResumeRefusal{"written with another config (they differ at " + first_difference(was, now) +
                               "): give this run a checkpoint directory of its own",
                           Kind::kError};
    }
    const std::int64_t last_step = config.value("steps", std::int64_t{0});
    if (meta.step > last_step) {
      return ResumeRefusal{"its step " + std::to_string(meta.step) + " is past this run's last step " +
                               std::to_string(last_step) + ": give this run a checkpoint directory of its own",
                           Kind::kError};
    }
    // Every line before stored_now is stored; the checkpoint keeps every line from lines_stored_before on.
    const std::int64_t stored_now = std::max<std::int64_t>(0, stored.last_step);
    if (meta.lines_stored_before && *meta.lines_stored_before > stored_now) {
      return ResumeRefusal{"keeps the metric lines from step " + std::to_string(*meta.lines_stored_before) +
                           " on, but the coordinator stores them only up to step " + std::to_string(stored_now) +
                           " (its database is older than this checkpoint): resuming here would lose the points "
                           "in between",
                           Kind::kSkip};
    }
    return std::nullopt;
  };
}

}  // namespace gammalab::trainer
