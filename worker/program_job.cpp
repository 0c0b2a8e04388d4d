#include "worker/program_job.h"

#include <unistd.h>

#include <stdexcept>
#include <system_error>

#include "core/config_error.h"
#include "core/job_command.h"
#include "core/utf8_text.h"

namespace gammalab {

namespace {

// A program named without a slash is looked up on PATH, as a shell would (execve itself does not).
std::string find_program(const std::string& name, const std::string& path_variable) {
  if (name.find('/') != std::string::npos) return name;
  std::size_t start = 0;
  while (start <= path_variable.size()) {
    const std::size_t colon = std::min(path_variable.find(':', start), path_variable.size());
    const std::string dir = path_variable.substr(start, colon - start);
    const std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / name;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) {
      return candidate.string();
    }
    start = colon + 1;
  }
  throw std::runtime_error("command[0]: '" + utf8_head(name, 128) + "' is not found on the worker's PATH (" +
                           utf8_head(path_variable, 512) + "); give its path, or put it on the worker's PATH");
}

}  // namespace

ProgramLaunch program_launch(const JobConfig& config, const ProgramAttempt& attempt, const std::string& path_variable) {
  if (!config.command) throw ConfigError("command", "this job runs gammalab-train, not a command of its own");
  ProgramLaunch launch;
  launch.argv = command_argv(config);
  launch.argv.front() = find_program(launch.argv.front(), path_variable);
  launch.env = {
      "GAMMALAB_JOB_ID=" + attempt.job_id,
      "GAMMALAB_JOB_UID=" + attempt.job_uid,
      "GAMMALAB_ATTEMPT=" + std::to_string(attempt.attempt),
      "GAMMALAB_CONFIG=" + attempt.config.string(),
      "GAMMALAB_CHECKPOINT_DIR=" + attempt.ckpt_dir.string(),
      "GAMMALAB_SHARED_ROOT=" + attempt.shared_root.string(),
      "GAMMALAB_DATA_DIR=" + attempt.data_dir.string(),
      "GAMMALAB_STORED_THROUGH_STEP=" + std::to_string(attempt.stored_through_step),
      "GAMMALAB_STEPS=" + std::to_string(config.steps),
      "GAMMALAB_LOG_EVERY=" + std::to_string(config.log_every),
      "GAMMALAB_SEED=" + std::to_string(config.seed),
      // One process, rank 0 of 1, as torch.distributed's env:// reads it; no rendezvous of the worker's own.
      "RANK=0",
      "LOCAL_RANK=0",
      "WORLD_SIZE=1",
      "LOCAL_WORLD_SIZE=1",
      "MASTER_ADDR=127.0.0.1",
      "MASTER_PORT=",
  };
  return launch;
}

}  // namespace gammalab
