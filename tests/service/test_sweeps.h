#pragma once
// Small expanded sweeps for the service tests (no YAML needed: the store takes expanded jobs).
#include <filesystem>
#include <random>
#include <string>

#include "core/sweep/config_hash.h"
#include "core/sweep/sweep.h"

namespace gammalab::testing {

inline Sweep make_sweep(const std::string& name, int jobs, int priority = 0, int max_attempts = 3) {
  Sweep sweep;
  sweep.name = name;
  sweep.priority = priority;
  sweep.max_attempts = max_attempts;
  for (int i = 0; i < jobs; ++i) {
    SweepJob job;
    job.config.seed = static_cast<std::uint64_t>(i);
    job.config.steps = 10;
    job.config.data.train = name;  // distinct configs per sweep, so no accidental reuse
    job.name = name + "/job" + std::to_string(i);
    job.config_hash = config_hash(job.config);
    sweep.jobs.push_back(std::move(job));
  }
  return sweep;
}

inline std::filesystem::path temp_db(const std::string& name) {
  std::random_device rd;
  auto dir = std::filesystem::temp_directory_path() / ("gammalab-" + name + "-" + std::to_string(rd()));
  std::filesystem::create_directories(dir);
  return dir / "gammalab.db";
}

}  // namespace gammalab::testing
