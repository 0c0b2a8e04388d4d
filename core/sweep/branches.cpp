#include "core/sweep/branches.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "core/branch_point.h"
#include "core/config_error.h"
#include "core/sweep/config_hash.h"

namespace gammalab {

namespace {

// The budget in tokens that `at` names for a run of `job`.
double budget_tokens(const SweepBranches& branches, double at, const SweepJob& job) {
  switch (branches.unit) {
    case SweepBranches::Unit::Tokens: return at;
    case SweepBranches::Unit::TokensPerParam: return at * double(job.params);
    case SweepBranches::Unit::Fraction: return at * double(job.config.steps * job.config.batch_tokens);
  }
  return at;
}

// One problem per message, however many runs have it, naming the first of them.
class Problems {
 public:
  explicit Problems(DiagnosticList& diagnostics) : diagnostics_(diagnostics) {}
  void add(const SourceRef& at, const std::string& message, const std::string& run) {
    if (seen_.insert(message).second) first_.emplace_back(at, message + " (" + run + ")");
  }
  ~Problems() {
    for (auto& [at, message] : first_) diagnostics_.add(at, message);
  }

 private:
  DiagnosticList& diagnostics_;
  std::set<std::string> seen_;
  std::vector<std::pair<SourceRef, std::string>> first_;
};

}  // namespace

void add_branches(Sweep& main, const SweepBranches& branches, DiagnosticList& diagnostics) {
  Problems problems(diagnostics);
  std::vector<SweepJob> jobs;
  jobs.reserve(main.jobs.size() * (branches.at.size() + 1));
  for (SweepJob& run : main.jobs) {
    const std::size_t parent = jobs.size();
    const JobConfig& c = run.config;
    std::vector<SweepJob> family;
    if (c.schedule.kind != ScheduleKind::Wsd) {
      problems.add(branches.source,
                   "branches start from a WSD run's stable phase; this run's schedule.kind is " +
                       std::string(enum_name(c.schedule.kind)),
                   run.name);
      jobs.push_back(std::move(run));
      continue;
    }
    std::int64_t previous = 0;
    for (const double at : branches.at) {
      const double tokens = budget_tokens(branches, at, run);
      const std::int64_t steps = std::max<std::int64_t>(1, std::llround(tokens / double(c.batch_tokens)));
      const auto decay = std::max<std::int64_t>(1, std::llround(branches.decay * double(steps)));
      const std::int64_t start = steps - decay;
      const std::string budget = std::to_string(steps * c.batch_tokens) + " tokens (" + std::to_string(steps) + " steps)";
      if (steps >= c.steps) {
        problems.add(branches.at_source,
                     "a budget of " + budget + " is not inside the run's own " + std::to_string(c.steps) +
                         " steps (its own decay is the last budget)",
                     run.name);
        continue;
      }
      if (steps == previous) {
        problems.add(branches.at_source, "two budgets round to the same " + budget + " at this batch size", run.name);
        continue;
      }
      previous = steps;
      SweepJob branch;
      branch.name = run.name + "/D=" + std::to_string(steps * c.batch_tokens);
      branch.config = c;
      branch.config.steps = steps;
      branch.config.schedule.decay_steps = decay;
      branch.tokens = steps * c.batch_tokens;
      branch.params = run.params;
      try {
        validate(branch.config);
      } catch (const ConfigError& e) {
        problems.add(branches.at_source, "the branch at " + budget + ": " + e.what(), run.name);
        continue;
      }
      if (const std::string mismatch = branch_point_mismatch(c, branch.config, start); !mismatch.empty()) {
        problems.add(branches.at_source, "the branch at " + budget + " would start at step " + std::to_string(start) +
                                             ": " + mismatch,
                     run.name);
        continue;
      }
      branch.config_hash = config_hash(branch.config);
      branch.parent = parent;
      branch.branch_step = start;
      run.branch_points.push_back(start);
      family.push_back(std::move(branch));
    }
    jobs.push_back(std::move(run));
    for (SweepJob& branch : family) jobs.push_back(std::move(branch));
  }
  main.jobs = std::move(jobs);
}

}  // namespace gammalab
