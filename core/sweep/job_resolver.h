#pragma once
// Turns one point of a sweep (the base fields with the point's axis values on top) into a resolved,
// validated JobConfig: loads the model and variant presets, evaluates derived fields (`tokens: 100 * params`,
// `steps: tokens / batch_tokens`) in dependency order, and runs validate(JobConfig). Every problem is
// reported with the place in the file that caused it.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <variant>

#include "core/config_error.h"
#include "core/job_config.h"
#include "core/sweep/diagnostics.h"
#include "core/sweep/document.h"

namespace gammalab {

struct ResolvedJob {
  JobConfig config;
  std::int64_t tokens = 0;  // the token budget (steps * batch_tokens unless `tokens` is set)
  std::int64_t params = 0;  // what `params` means in expressions (see job_resolver.cpp)
};

// config dot path -> the value the file gives it for this job.
using JobFields = std::map<std::string, const SweepValue*>;

class SweepJobResolver {
 public:
  // `fallback` is where problems without a place of their own are reported (the `base` key). The document's
  // `command:` goes into every job's config as written; its problems are reported at the argument.
  SweepJobResolver(std::filesystem::path preset_dir, SourceRef fallback, const SweepDocument* document = nullptr);

  // Reports problems to `diagnostics` and returns nullopt if there are any.
  std::optional<ResolvedJob> resolve(const JobFields& fields, std::uint64_t seed, DiagnosticList& diagnostics);

  // A model preset, or the message saying why it cannot be loaded. Loaded once per sweep.
  const std::variant<ModelSpec, std::string>& model_preset(const std::string& name);

 private:
  void report_config_error(const ConfigError& e, const JobFields& fields, const std::string& preset_name,
                           const std::string& variant_name, DiagnosticList& diagnostics) const;


  std::filesystem::path preset_dir_;
  SourceRef fallback_;
  std::optional<std::vector<std::string>> command_;
  SourceRef command_source_;
  std::vector<SourceRef> command_arg_sources_;
  std::map<std::string, std::variant<ModelSpec, std::string>> presets_;
};

// Names usable in expressions besides config fields: params, total_params, variant_params.
const std::vector<std::string>& derived_expression_names();

}  // namespace gammalab
