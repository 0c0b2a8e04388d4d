#pragma once
// The layout of the shared root, the directory the coordinator and every worker see at the same place (NFS, a
// PVC, a local disk for one machine). Nobody else builds these paths. All are relative to the shared root.
//   jobs/<job id>/config.json   the resolved job config the worker hands to gammalab-train
//   jobs/<job id>/log.txt       the trainer's log, appended by every attempt
//   jobs/<job id>/ckpt/         the job's checkpoints (atomic renames; newest wins on resume)
#include <filesystem>
#include <string_view>

namespace gammalab::shared_root {

// A job id as the coordinator makes them: the decimal row id, 1 to 19 digits, no leading zero. A worker
// builds paths from ids it is sent, so it checks this first: an id like "../../etc" or "/root" must never
// reach a path (whoever answers as coordinator chooses the ids).
inline bool is_job_id(std::string_view id) {
  if (id.empty() || id.size() > 19 || id.front() == '0') return false;
  for (char c : id) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

inline std::filesystem::path job_dir(std::string_view job_id) { return std::filesystem::path("jobs") / job_id; }
inline std::filesystem::path job_config_path(std::string_view job_id) { return job_dir(job_id) / "config.json"; }
inline std::filesystem::path job_log_path(std::string_view job_id) { return job_dir(job_id) / "log.txt"; }
inline std::filesystem::path job_ckpt_dir(std::string_view job_id) { return job_dir(job_id) / "ckpt"; }

}  // namespace gammalab::shared_root
