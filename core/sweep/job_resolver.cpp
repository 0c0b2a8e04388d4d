// Resolves one point of a sweep into a validated JobConfig (see job_resolver.h): presets, derived fields in
// dependency order, validate(), and each problem placed where the file caused it.
#include "core/sweep/job_resolver.h"

#include <absl/strings/str_join.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "core/config_error.h"
#include "core/data_path.h"
#include "core/decimal_text.h"
#include "core/edit_distance.h"
#include "core/limits.h"
#include "core/expression.h"
#include "core/model_preset.h"
#include "core/param_count.h"
#include "core/sweep/schema.h"

namespace gammalab {

namespace {

// `params` counts the baseline's model at the job's shape (one γ per norm, no QK-norm), activated per token
// for MoE, so that every variant of a study, the controls with a model switch included, gets the same token
// budget and its runs pair with the baseline's; `variant_params` counts the job's own model and variant,
// `total_params` all experts of the baseline's model.
const std::vector<std::string> kDerivedNames = {"params", "total_params", "variant_params"};

// Thrown when a field cannot be evaluated because one it depends on already failed (and was reported).
struct DependencyFailed {};

bool is_whole(double v) { return std::abs(v - std::round(v)) <= 1e-9 * std::max(1.0, std::abs(v)); }

std::string prefix_of(const std::string& path) {
  const auto dot = path.find('.');
  return dot == std::string::npos ? "" : path.substr(0, dot);
}

// Evaluates the numeric fields of one job lazily, each once, in whatever order their expressions need.
class JobEvaluation {
 public:
  // `stand_in_model`: the model preset failed and a default model stands in, so values derived from it
  // (whole steps of a budget) are not checked, only names and syntax.
  JobEvaluation(const JobFields& fields, nlohmann::json defaults, const SourceRef& fallback,
                DiagnosticList& diagnostics, bool stand_in_model)
      : fields_(fields), defaults_(std::move(defaults)), fallback_(fallback), diagnostics_(diagnostics),
        stand_in_model_(stand_in_model) {}

  // Evaluates every numeric field (reporting each failure) and returns the full config JSON, or nullopt.
  std::optional<nlohmann::json> evaluate_all() {
    bool ok = true;
    for (const auto& leaf : SweepSchema::instance().leaves()) {
      if (!is_numeric(*SweepSchema::instance().find(leaf)) || unset(leaf)) continue;
      try {
        value_of(leaf);
      } catch (const DependencyFailed&) {
        ok = false;
      }
    }
    if (!ok) return std::nullopt;
    return assemble("");
  }

  double value_of(const std::string& path) {
    Slot& slot = slots_[path];
    if (slot.state == State::kDone) return slot.value;
    if (slot.state == State::kFailed) throw DependencyFailed{};
    slot.state = State::kEvaluating;
    stack_.push_back(path);
    try {
      slot.value = compute(path);
      slot.state = State::kDone;
      stack_.pop_back();
      return slot.value;
    } catch (const ExpressionError& e) {
      const SweepValue* given = given_value(path);
      if (given != nullptr) {
        diagnostics_.add(given->source, e.what(), given->text_column - given->source.column + int(e.offset()));
      } else {
        diagnostics_.add(SourceRef{"base." + path, fallback_.line, fallback_.column}, e.what());
      }
    } catch (const DependencyFailed&) {
    }
    slot.state = State::kFailed;
    stack_.pop_back();
    throw DependencyFailed{};
  }

  std::int64_t params(const char* which) {
    // A program of the user's own may declare its N (docs/own-program.md): budgets are then written in that.
    if (std::string(which) == "params" && given_value("declared_params") != nullptr) {
      return std::llround(value_of("declared_params"));
    }
    const ModelSpec model = model_spec_from_json(assemble("model")["model"], "model");
    if (model.n_heads < 1 || model.d_model < 1) {  // count_params divides by n_heads; validate() says more
      throw ExpressionError(0, std::string(which) + " needs a valid model: model.n_heads and model.d_model must be at least 1");
    }
    if (std::string(which) == "variant_params") {
      return count_params(model, scale_spec_from_json(assemble("scale")["scale"], "scale")).activated;
    }
    if (std::string(which) == "params") return sweep_params(model);
    ModelSpec baseline_model = model;
    baseline_model.qk_norm = false;  // as sweep_params: a control's model switch is not part of the size
    return count_params(baseline_model, ScaleSpec{}).total;
  }

 private:
  enum class State { kPending, kEvaluating, kDone, kFailed };
  struct Slot {
    State state = State::kPending;
    double value = 0;
  };

  const SweepValue* given_value(const std::string& path) const {
    auto it = fields_.find(path);
    return it == fields_.end() ? nullptr : it->second;
  }

  // An optional field that this job does not set: it has no value and stays absent from the config.
  bool unset(const std::string& path) const {
    return SweepSchema::instance().is_optional(path) && given_value(path) == nullptr;
  }

  // The value of a field, with the limits that only a value computed here can break: a given token budget
  // (validate() bounds steps * batch_tokens, not `tokens`).
  double compute(const std::string& path) {
    const double value = compute_unchecked(path);
    if (path == "tokens" && given_value(path) != nullptr && std::abs(value) > double(limits::kMaxTokens)) {
      throw ExpressionError(0, "tokens = " + number_text(value) + " is more than the limit of " +
                                   std::to_string(limits::kMaxTokens) + " tokens per job");
    }
    return value;
  }

  double compute_unchecked(const std::string& path) {
    const SweepValue* given = given_value(path);
    const bool integer = *SweepSchema::instance().find(path) == FieldKind::kInteger;
    if (given != nullptr && !given->expression) {
      return given->value.get<double>();
    } else if (given != nullptr) {
      const double value = Expression::parse(given->value.get<std::string>()).evaluate(
          [&](const std::string& name, std::size_t offset) { return lookup(name, offset); });
      if (!std::isfinite(value)) throw ExpressionError(0, "= " + number_text(value) + ", not a finite number");
      if (integer && std::abs(value) > limits::kMaxExactInteger) {
        throw ExpressionError(0, "= " + number_text(value) + ", larger than the limit of 2^53 (" +
                                     number_text(limits::kMaxExactInteger) + ") for an integer field");
      }
      if (integer && !is_whole(value) && !stand_in_model_) {
        const std::string what = path == "steps" || path == "tokens"
                                     ? "the budget does not divide into whole steps: "
                                     : "must be a whole number: ";
        throw ExpressionError(0, what + given->value.get<std::string>() + " = " + number_text(value) +
                                     "; write floor(...) or round(...) to round it");
      }
      return integer ? std::round(value) : value;
    } else if (path == "tokens") {
      return value_of("steps") * value_of("batch_tokens");
    } else if (path == "steps" && given_value("tokens") != nullptr) {
      return steps_from_tokens();
    }
    return json_at(defaults_, path).get<double>();
  }

  // A budget given as tokens with no steps: steps = tokens / batch_tokens, which must come out whole.
  double steps_from_tokens() {
    const double tokens = value_of("tokens");
    const double batch = value_of("batch_tokens");
    if (batch <= 0) throw DependencyFailed{};  // validate() reports batch_tokens
    const double steps = tokens / batch;
    if (!is_whole(steps) && !stand_in_model_) {
      const SweepValue* at = given_value("tokens");
      diagnostics_.add(at->source, "the budget does not divide into whole steps: tokens / batch_tokens = " +
                                       number_text(tokens) + " / " + number_text(batch) + " = " +
                                       number_text(steps) + "; round the budget (e.g. tokens: round(... / " +
                                       "batch_tokens) * batch_tokens) or set steps: round(tokens / batch_tokens)");
      throw DependencyFailed{};
    }
    return std::round(steps);
  }

  double lookup(const std::string& name, std::size_t offset) {
    for (const auto& derived : kDerivedNames) {
      if (name == derived) return double(params(derived.c_str()));
    }
    const std::string path = SweepSchema::instance().path_of_name(name);
    if (path.empty()) {
      std::vector<std::string> known = SweepSchema::instance().expression_names();
      known.insert(known.end(), kDerivedNames.begin(), kDerivedNames.end());
      throw ExpressionError(offset, "unknown name '" + name + "'" + did_you_mean(name, known));
    }
    if (path == "tokens" && given_value("tokens") == nullptr &&
        std::find(stack_.begin(), stack_.end(), "steps") != stack_.end()) {
      throw ExpressionError(offset, "tokens is not set, and its default (steps * batch_tokens) needs this field");
    }
    if (unset(path)) {
      throw ExpressionError(offset, "'" + name + "' has no value: " + path + " is optional and not set in this job");
    }
    if (slots_[path].state == State::kEvaluating) {
      std::string chain;
      auto start = std::find(stack_.begin(), stack_.end(), path);
      for (auto it = start; it != stack_.end(); ++it) chain += *it + " -> ";
      throw ExpressionError(offset, "circular definition: " + chain + path);
    }
    return value_of(path);
  }

  static const nlohmann::json& json_at(const nlohmann::json& root, const std::string& path) {
    const nlohmann::json* node = &root;
    std::size_t start = 0;
    while (true) {
      const auto dot = path.find('.', start);
      node = &node->at(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
      if (dot == std::string::npos) return *node;
      start = dot + 1;
    }
  }

  static void set_at(nlohmann::json& root, const std::string& path, nlohmann::json value) {
    nlohmann::json* node = &root;
    std::size_t start = 0;
    while (true) {
      const auto dot = path.find('.', start);
      const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      if (dot == std::string::npos) {
        (*node)[key] = std::move(value);
        return;
      }
      node = &(*node)[key];
      start = dot + 1;
    }
  }

  // The config JSON with every field under `section` ("" = all) set: given literals, evaluated numbers.
  nlohmann::json assemble(const std::string& section) {
    nlohmann::json out = defaults_;
    for (const auto& leaf : SweepSchema::instance().leaves()) {
      if (leaf == "tokens" || (!section.empty() && prefix_of(leaf) != section)) continue;
      const FieldKind kind = *SweepSchema::instance().find(leaf);
      if (unset(leaf)) continue;
      if (is_numeric(kind)) {
        const double v = value_of(leaf);
        if (kind == FieldKind::kInteger) set_at(out, leaf, static_cast<std::int64_t>(std::llround(v)));
        else set_at(out, leaf, v);
      } else if (const SweepValue* given = given_value(leaf)) {
        set_at(out, leaf, given->value);
      }
    }
    return out;
  }

  const JobFields& fields_;
  nlohmann::json defaults_;
  const SourceRef& fallback_;
  DiagnosticList& diagnostics_;
  std::map<std::string, Slot> slots_;
  std::vector<std::string> stack_;
  bool stand_in_model_;
};

// Sets the field at `path` in `json` back to its value in `defaults`, or removes it where the defaults leave
// it unset (an optional field).
void reset_to_default(nlohmann::json& json, const nlohmann::json& defaults, const std::string& path) {
  std::string text = "/" + path;
  std::replace(text.begin(), text.end(), '.', '/');
  const nlohmann::json::json_pointer field(text);
  if (defaults.contains(field)) json[field] = defaults.at(field);
  else json.at(field.parent_pointer()).erase(field.back());
}

}  // namespace

const std::vector<std::string>& derived_expression_names() { return kDerivedNames; }

SweepJobResolver::SweepJobResolver(std::filesystem::path preset_dir, SourceRef fallback, const SweepDocument* document)
    : preset_dir_(std::move(preset_dir)), fallback_(std::move(fallback)) {
  if (document != nullptr) {
    command_ = document->command;
    command_source_ = document->command_source;
    command_arg_sources_ = document->command_arg_sources;
  }
}

const std::variant<ModelSpec, std::string>& SweepJobResolver::model_preset(const std::string& name) {
  auto it = presets_.find(name);
  if (it != presets_.end()) return it->second;
  const std::vector<std::string> known = list_model_presets(preset_dir_);
  std::variant<ModelSpec, std::string> entry;
  if (std::find(known.begin(), known.end(), name) == known.end()) {
    std::string message = "unknown model preset '" + name + "'" + did_you_mean(name, known);
    if (closest_match(name, known).empty()) {
      const std::string list = absl::StrJoin(known, ", ");
      message += " (known: " + (list.empty() ? "none in " + preset_dir_.string() : list) + ")";
    }
    entry = message;
  } else {
    try {
      entry = load_model_preset(name, preset_dir_);
    } catch (const ConfigError& e) {
      entry = std::string("model preset '") + name + "': " + e.what();
    }
  }
  return presets_.emplace(name, std::move(entry)).first->second;
}

std::optional<ResolvedJob> SweepJobResolver::resolve(const JobFields& fields, std::uint64_t seed,
                                                     DiagnosticList& diagnostics) {
  const std::size_t problems_before = diagnostics.size();
  auto given = [&](const std::string& path) -> const SweepValue* {
    auto it = fields.find(path);
    return it == fields.end() ? nullptr : it->second;
  };

  // Presets first: the fields the file sets override what they supply.
  nlohmann::json defaults = to_json(JobConfig{});
  std::string preset_name;
  bool model_ok = true;
  if (const SweepValue* preset = given("model.preset")) {
    preset_name = preset->value.get<std::string>();
    const auto& entry = model_preset(preset_name);
    if (const auto* model = std::get_if<ModelSpec>(&entry)) {
      defaults["model"] = to_json(*model);
    } else {
      diagnostics.add(preset->source, std::get<std::string>(entry));
      model_ok = false;
    }
  }
  std::string variant_name = "baseline";
  if (const SweepValue* variant = given("scale.variant")) {
    variant_name = variant->value.get<std::string>();
    const auto names = variant_names();
    if (std::find(names.begin(), names.end(), variant_name) == names.end()) {
      const std::string list = absl::StrJoin(names, ", ");
      diagnostics.add(variant->source, "unknown variant '" + variant_name + "'" + did_you_mean(variant_name, names) +
                                           " (known: " + list + ")");
    } else {
      defaults["scale"] = to_json(variant_preset(variant_name));
      if (variant_sets_qk_norm(variant_name)) defaults["model"]["qk_norm"] = true;
    }
  }
  if (const SweepValue* imported = given("imported")) {
    diagnostics.add(imported->source, "is set by `gammalab import` on runs trained elsewhere; a sweep file's jobs are "
                                      "run, so it cannot set it");
  }
  defaults["seed"] = seed;
  // With a bad model preset the expressions are still checked against a stand-in (the default model), but
  // nothing that depends on the model's values.

  JobEvaluation evaluation(fields, defaults, fallback_, diagnostics, !model_ok);
  ResolvedJob job;
  std::optional<nlohmann::json> json;
  try {
    json = evaluation.evaluate_all();
    if (!json) return std::nullopt;
    job.tokens = static_cast<std::int64_t>(std::llround(evaluation.value_of("tokens")));
    job.params = evaluation.params("params");
    if (command_) (*json)["command"] = *command_;
  } catch (const ConfigError& e) {
    report_config_error(e, fields, preset_name, variant_name, diagnostics);
    return std::nullopt;
  } catch (const DependencyFailed&) {
    return std::nullopt;
  }
  // Reading the config (a value that is not one of a field's names) and validate() (a value out of range) each
  // stop at the first problem: report it, put that field back to its default, and check again, so that every
  // problem in the file is reported at once.
  std::set<std::string> reported;
  while (true) {
    try {
      job.config = job_config_from_json(*json);
      validate(job.config);
      check_data_paths(job.config);  // the coordinator hands these to workers: never outside their data dir
      break;
    } catch (const ConfigError& e) {
      // Without its preset the model is a stand-in: its fields (and those checked against it) say nothing.
      const bool about_stand_in = !model_ok && (prefix_of(e.path()) == "model" || e.path() == "batch_tokens" ||
                                                  e.path() == "micro_batch");
      if (!about_stand_in) report_config_error(e, fields, preset_name, variant_name, diagnostics);
      if (!reported.insert(e.path()).second || reported.size() > 32) break;
      try {
        reset_to_default(*json, defaults, e.path());
      } catch (const std::exception&) {
        break;
      }
    }
  }
  if (diagnostics.size() > problems_before) return std::nullopt;
  return job;
}

void SweepJobResolver::report_config_error(const ConfigError& e, const JobFields& fields,
                                           const std::string& preset_name, const std::string& variant_name,
                                           DiagnosticList& diagnostics) const {
  auto given = [&](const std::string& path) -> const SweepValue* {
    auto it = fields.find(path);
    return it == fields.end() ? nullptr : it->second;
  };
  // Point at the value that caused it: the field itself, else the preset that supplied it, else `base`.
  const std::string& path = e.path();
  std::string message = e.what();
  if (message.rfind(path + ": ", 0) == 0) message = message.substr(path.size() + 2);
  if (const SweepValue* value = given(path)) {
    diagnostics.add(value->source, message);
  } else if (path.rfind("command", 0) == 0 && command_) {
    // command[i]: at the argument; command: at the key.
    SourceRef at = command_source_;
    for (std::size_t i = 0; i < command_arg_sources_.size(); ++i) {
      if (path == "command[" + std::to_string(i) + "]") at = command_arg_sources_[i];
    }
    diagnostics.add(SourceRef{path, at.line, at.column}, message);
  } else if (path == "steps" && given("tokens") != nullptr) {
    diagnostics.add(given("tokens")->source, "steps = tokens / batch_tokens: " + message);
  } else if (prefix_of(path) == "model" && given("model.preset") != nullptr) {
    const SourceRef& at = given("model.preset")->source;
    diagnostics.add(SourceRef{"base." + path, at.line, at.column},
                    message + " (from model preset '" + preset_name + "')");
  } else if (prefix_of(path) == "scale" && given("scale.variant") != nullptr) {
    const SourceRef& at = given("scale.variant")->source;
    diagnostics.add(SourceRef{"base." + path, at.line, at.column},
                    message + " (from variant '" + variant_name + "')");
  } else {
    diagnostics.add(SourceRef{"base." + path, fallback_.line, fallback_.column}, message);
  }
}

}  // namespace gammalab
