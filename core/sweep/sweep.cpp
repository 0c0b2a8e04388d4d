#include "core/sweep/sweep.h"

#include <absl/strings/str_join.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "core/config_paths.h"
#include "core/sweep/branches.h"
#include "core/sweep/config_hash.h"
#include "core/sweep/diagnostics.h"
#include "core/sweep/document.h"
#include "core/sweep/job_resolver.h"
#include "core/sweep/more_seeds.h"
#include "core/sweep/schema.h"
#include "core/sweep/tune.h"
#include "core/sweep/tune_rounds.h"

namespace gammalab {

namespace {

// The fields that make up the fixed part of a job name; other varying axes are appended as key=value.
const std::vector<std::pair<std::string, std::string>> kNameFields = {
    {"model.preset", "custom"}, {"scale.variant", "baseline"}, {"optim.name", "adamw"}, {"schedule.kind", "cosine"}};

// A value as a part of a job name: as written, without spaces, and with no '/' (the name's separator).
std::string name_part(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == ' ' || c == '\t') continue;
    out += c == '/' ? '_' : c;
  }
  return out;
}

std::string job_name(const JobFields& fields, const std::vector<std::string>& varying_axes, std::uint64_t seed) {
  std::vector<std::string> parts;
  for (const auto& [path, fallback] : kNameFields) {
    auto it = fields.find(path);
    parts.push_back(it == fields.end() ? fallback : name_part(it->second->text));
  }
  for (const auto& path : varying_axes) {
    parts.push_back(SweepSchema::instance().short_name(path) + "=" + name_part(fields.at(path)->text));
  }
  parts.push_back("s" + std::to_string(seed));
  return absl::StrJoin(parts, "/");
}

bool in_fixed_name(const SweepAxis& axis) {
  return std::any_of(kNameFields.begin(), kNameFields.end(),
                     [&](const auto& field) { return field.first == axis.key; });
}

// Axes with more than one value that the fixed name does not already tell apart. A zip dimension that moves
// a fixed-name field (model.preset with its lr) is told apart by that field, so its other axes stay out.
std::vector<std::string> varying_axes(const SweepDocument& doc) {
  std::vector<std::string> out;
  for (const auto& dimension : doc.dimensions) {
    if (dimension.size() < 2) continue;
    if (std::any_of(dimension.axes.begin(), dimension.axes.end(), in_fixed_name)) continue;
    for (const auto& axis : dimension.axes) out.push_back(axis.key);
  }
  return out;
}

// The same problem in many jobs is reported once, saying how many jobs it affects.
class ProblemTally {
 public:
  void add(const SweepDiagnostic& d, const std::string& job) {
    auto key = std::make_tuple(d.line, d.column, d.path, d.message);
    auto it = index_.find(key);
    if (it == index_.end()) {
      index_.emplace(key, entries_.size());
      entries_.push_back({d, job, 1});
    } else {
      ++entries_[it->second].jobs;
    }
  }

  void report(std::size_t total_jobs, std::vector<SweepDiagnostic>& out) const {
    for (const auto& e : entries_) {
      SweepDiagnostic d = e.diagnostic;
      // A problem at an axis value is placed by its line already; elsewhere say which jobs have it.
      if (e.jobs < total_jobs && d.path.rfind("axes.", 0) != 0) {
        d.message += " [in " + std::to_string(e.jobs) + " of " + std::to_string(total_jobs) + " jobs, e.g. " +
                     e.first_job + "]";
      }
      out.push_back(std::move(d));
    }
  }

 private:
  struct Entry {
    SweepDiagnostic diagnostic;
    std::string first_job;
    std::size_t jobs;
  };
  std::map<std::tuple<int, int, std::string, std::string>, std::size_t> index_;
  std::vector<Entry> entries_;
};

}  // namespace

namespace {

// The jobs of one stage of a parsed document. Problems go to `diagnostics`; the caller throws.
std::vector<SweepJob> expand_jobs(const SweepDocument& doc, const std::string& file_name, const SweepOptions& options,
                                  const std::string& name_prefix, DiagnosticList& diagnostics) {
  // Count before expanding, so a typo like 10 axes of 10 values is refused without building 10^10 jobs.
  double points = 1.0;
  for (const auto& dimension : doc.dimensions) points *= double(dimension.size());
  const double planned = points * double(doc.seeds.size()) + more_seed_jobs_bound(doc);
  if (planned > double(options.max_jobs)) {
    diagnostics.add(doc.axes_source, "the " + (name_prefix.empty() ? std::string("sweep") : "tune stage") +
                                         " expands to " + std::to_string(std::llround(planned)) +
                                         " jobs, more than the limit of " + std::to_string(options.max_jobs) +
                                         " (SweepOptions::max_jobs)");
    return {};
  }

  SweepJobResolver resolver(options.preset_dir.empty() ? model_preset_dir() : options.preset_dir, doc.base_source,
                            &doc);
  const std::vector<std::string> varying = varying_axes(doc);
  ProblemTally tally;
  std::map<std::string, std::size_t> names;
  std::vector<SweepJob> jobs;
  std::vector<std::size_t> index(doc.dimensions.size(), 0);  // mixed-radix counter; the last dimension is fastest
  for (std::size_t point = 0; double(point) < points; ++point) {
    JobFields fields;
    for (const auto& [path, value] : doc.base) fields[path] = &value;
    for (std::size_t d = 0; d < doc.dimensions.size(); ++d) {
      for (const auto& axis : doc.dimensions[d].axes) fields[axis.key] = &axis.values[index[d]];
    }
    for (std::uint64_t seed : point_seeds(doc, fields)) {
      SweepJob job;
      job.name = name_prefix + job_name(fields, varying, seed);
      DiagnosticList job_problems(file_name);
      if (auto resolved = resolver.resolve(fields, seed, job_problems)) {
        job.config = std::move(resolved->config);
        job.tokens = resolved->tokens;
        job.params = resolved->params;
        job.config_hash = config_hash(job.config);
      }
      for (const auto& problem : job_problems.items()) tally.add(problem, job.name);
      if (++names[job.name] == 2 && doc.axes_complete) {
        diagnostics.add(doc.axes_source, "two jobs are both named " + job.name +
                                             "; make the axis values differ as written");
      }
      jobs.push_back(std::move(job));
    }
    for (std::size_t d = doc.dimensions.size(); d-- > 0;) {
      if (++index[d] < doc.dimensions[d].size()) break;
      index[d] = 0;
    }
  }
  std::vector<SweepDiagnostic> problems;
  tally.report(jobs.size(), problems);
  for (auto& p : problems) diagnostics.add(std::move(p));
  return jobs;
}

// The tune stage as a document of its own: the main document with the tune block's axis values, base
// overrides and seeds, and its grid as further (fastest) axes.
SweepDocument tune_document(const SweepDocument& doc) {
  const SweepTune& tune = *doc.tune;
  SweepDocument out = doc;
  out.tune.reset();
  out.more_seeds.clear();  // the main stage's: the tune runs keep the tune stage's own seeds
  for (const auto& [path, value] : tune.base) out.base[path] = value;
  for (auto& dimension : out.dimensions) {
    for (const auto& axis : tune.axes) {
      if (dimension.axes.size() == 1 && dimension.axes.front().key == axis.key) dimension.axes.front() = axis;
    }
  }
  for (const auto& axis : tune.grid) out.dimensions.push_back(SweepDimension{{axis}});
  if (tune.seeds) out.seeds = *tune.seeds;
  return out;
}

Sweep sweep_header(const SweepDocument& doc, const std::string& file_name) {
  Sweep sweep;
  sweep.name = doc.name.empty() ? std::filesystem::path(file_name).stem().string() : doc.name;
  if (sweep.name.empty()) sweep.name = "sweep";
  sweep.description = doc.description;
  sweep.priority = doc.priority;
  sweep.max_attempts = doc.max_attempts;
  return sweep;
}

[[noreturn]] void throw_sorted(std::vector<SweepDiagnostic> all) {
  // In file order, so the list reads top to bottom; problems without a place come last.
  std::stable_sort(all.begin(), all.end(), [](const SweepDiagnostic& a, const SweepDiagnostic& b) {
    const int la = a.line > 0 ? a.line : std::numeric_limits<int>::max();
    const int lb = b.line > 0 ? b.line : std::numeric_limits<int>::max();
    return std::tie(la, a.column) < std::tie(lb, b.column);
  });
  throw SweepError(std::move(all));
}

}  // namespace

SweepStages expand_stages(const std::string& yaml_text, const std::string& file_name, const SweepOptions& options) {
  DiagnosticList diagnostics(file_name);
  const SweepDocument doc = parse_sweep_document(yaml_text, diagnostics);
  SweepStages stages;
  stages.main = sweep_header(doc, file_name);
  stages.main.jobs = expand_jobs(doc, file_name, options, "", diagnostics);
  if (doc.branches && diagnostics.items().empty()) {
    // With a tune stage, the branches are of the main stage as written; apply_picks gives a run and its branches
    // the same pick (they share every `per` field) and checks that each branch still starts from its run.
    if (const std::size_t family = doc.branches->at.size() + 1;
               stages.main.jobs.size() * family > options.max_jobs) {
      // Counted before any branch is made, as the axes are.
      diagnostics.add(doc.branches->source, std::to_string(stages.main.jobs.size()) + " runs with " +
                                                std::to_string(family - 1) + " branches each are " +
                                                std::to_string(stages.main.jobs.size() * family) +
                                                " jobs, more than the limit of " + std::to_string(options.max_jobs) +
                                                " (SweepOptions::max_jobs)");
    } else {
      add_branches(stages.main, *doc.branches, diagnostics);
    }
  }
  if (doc.tune) {
    Sweep tune = sweep_header(doc, file_name);
    tune.jobs = expand_jobs(tune_document(doc), file_name, options, "tune/", diagnostics);
    stages.tune = std::move(tune);
    for (const auto& axis : doc.tune->grid) stages.tuned_fields.push_back(axis.key);
    stages.per = doc.tune->per;
    if (stages.per.empty()) {
      for (const auto& dimension : doc.dimensions) {
        for (const auto& axis : dimension.axes) stages.per.push_back(axis.key);
      }
    }
    stages.allow_edge = doc.tune->allow_edge;
    stages.extend = doc.tune->extend;
    stages.refine = doc.tune->refine;
    stages.size_rule = doc.tune->size_rule;
    for (const auto& [field, value] : doc.tune->carry) {
      stages.carry[field] = value.value.is_string() ? value.value.get<std::string>() : value.value.dump();
    }
    if (diagnostics.items().empty()) {
      if (auto uncovered = uncovered_main_job(stages)) diagnostics.add(doc.tune->per_source, *uncovered);
    }
    // The rounds of tune.extend and tune.refine count at their most: a file cannot grow past the limit later.
    const std::size_t rounds = diagnostics.items().empty() ? max_tune_round_jobs(stages) : 0;
    if (stages.main.jobs.size() + stages.tune->jobs.size() + rounds > options.max_jobs) {
      diagnostics.add(doc.tune->source, "the tune and main stages expand to " +
                                            std::to_string(stages.main.jobs.size() + stages.tune->jobs.size()) +
                                            " jobs together" +
                                            (rounds > 0 ? ", and their rounds may add " + std::to_string(rounds) : "") +
                                            ", more than the limit of " + std::to_string(options.max_jobs) +
                                            " (SweepOptions::max_jobs)");
    }
  }
  if (!diagnostics.items().empty()) throw_sorted(diagnostics.items());
  return stages;
}

Sweep expand_sweep(const std::string& yaml_text, const std::string& file_name, const SweepOptions& options) {
  return expand_stages(yaml_text, file_name, options).main;
}

}  // namespace gammalab
