#pragma once
// The layout of the shared root, the directory the coordinator and every worker see at the same place (NFS, a
// PVC, a local disk for one machine). Nobody else builds these paths. All are relative to the shared root.
//   jobs/<job id>/config.json   the resolved job config the worker hands to gammalab-train
//   jobs/<job id>/log.txt       the trainer's log, appended by every attempt
//   jobs/<job id>/log.node<k>.txt, config.node<k>.json   of a job that spans workers: node k's (k >= 1)
//   jobs/<job id>/ckpt/         the job's checkpoints (atomic renames; newest wins on resume):
//                               ckpt_<step, 9 digits or more>.safetensors, each with its .sum beside it
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
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
// The log and the config of node `node` > 0 of a job that spans workers (node 0 writes log.txt and
// config.json): one file per writer, as workers on different machines must neither append to one file nor
// rewrite a config another node's ranks are reading.
inline std::filesystem::path job_node_log_path(std::string_view job_id, int node) {
  return job_dir(job_id) / ("log.node" + std::to_string(node) + ".txt");
}
inline std::filesystem::path job_node_config_path(std::string_view job_id, int node) {
  return job_dir(job_id) / ("config.node" + std::to_string(node) + ".json");
}

// The file name of the checkpoint at `step` (step >= 0), and the step a checkpoint's file name holds (nullopt
// for any other name).
inline std::string checkpoint_file_name(std::int64_t step) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "ckpt_%09lld.safetensors", static_cast<long long>(step));
  return buf;
}
inline std::optional<std::int64_t> checkpoint_step(std::string_view file_name) {
  constexpr std::string_view prefix = "ckpt_", suffix = ".safetensors";
  if (file_name.size() <= prefix.size() + suffix.size() || !file_name.starts_with(prefix) ||
      !file_name.ends_with(suffix)) {
    return std::nullopt;
  }
  const std::string_view digits = file_name.substr(prefix.size(), file_name.size() - prefix.size() - suffix.size());
  if (digits.size() > 18) return std::nullopt;  // beyond any step, and would overflow
  std::int64_t step = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    step = step * 10 + (c - '0');
  }
  return step;
}

}  // namespace gammalab::shared_root
