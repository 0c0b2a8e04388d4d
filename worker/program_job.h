#pragma once
// How the worker starts a command job (docs/own-program.md): the sweep's command with its placeholders filled
// from the job's config, its program found on the worker's PATH, and the environment the contract promises.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/job_config.h"

namespace gammalab {

// What the worker knows of the attempt that the program is told.
struct ProgramAttempt {
  std::string job_id;
  std::string job_uid;  // empty from a coordinator older than uids
  int attempt = 0;
  std::filesystem::path config;       // the job's config.json (absolute)
  std::filesystem::path ckpt_dir;     // its checkpoint directory (absolute), kept across attempts
  std::filesystem::path shared_root;  // the worker's --shared-root
  std::filesystem::path data_dir;     // the worker's --data-dir (may be empty)
  std::int64_t stored_through_step = -1;  // the last step the coordinator stores a metric of; -1: none
};

struct ProgramLaunch {
  std::vector<std::string> argv;  // argv[0] a path
  std::vector<std::string> env;   // NAME=value, added to (or replacing in) the worker's environment
};

// Throws std::runtime_error naming command[0] when its program is not a path and not on `path_variable`
// (the worker's PATH), and ConfigError for a config without a command or with a placeholder it cannot fill.
ProgramLaunch program_launch(const JobConfig& config, const ProgramAttempt& attempt, const std::string& path_variable);

}  // namespace gammalab
