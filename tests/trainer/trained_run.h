#pragma once
// A trainer run in-process, as the trainer tests read it: its exit code, every line it printed, its metrics by
// name and step, its log and its final parameters. One home for reading a run's output in tests.
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/job_config.h"
#include "core/metric.h"
#include "worker/trainer/trainer.h"

namespace gammalab::trainer::testing {

struct TrainedRun {
  int code = 0;
  std::vector<std::string> lines;                                // stdout, line by line
  std::map<std::string, std::map<std::int64_t, double>> series;  // metric -> step -> value
  std::string log;
  std::map<std::string, at::Tensor> params;  // the final parameters

  // train/loss by step; empty when the run printed none.
  const std::map<std::int64_t, double>& loss() const {
    static const std::map<std::int64_t, double> none;
    const auto it = series.find("train/loss");
    return it == series.end() ? none : it->second;
  }
};

// The lines and metrics of a trainer's stdout.
inline TrainedRun read_trained_run(const std::string& out) {
  TrainedRun r;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    r.lines.push_back(line);
    if (auto points = parse_metric_line(line)) {
      for (const auto& p : *points) r.series[p.name][p.step] = p.value;
    }
  }
  return r;
}

inline TrainedRun train_in_process(const JobConfig& config, const TrainerOptions& options = {}) {
  std::ostringstream out, log;
  Trainer trainer(config, options, out, log);
  const int code = trainer.run();
  TrainedRun r = read_trained_run(out.str());
  r.code = code;
  r.log = log.str();
  for (const auto& p : trainer.model().store().params()) r.params[p.name] = p.tensor.clone();
  return r;
}

}  // namespace gammalab::trainer::testing
