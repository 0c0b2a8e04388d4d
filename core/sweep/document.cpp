// Reads a sweep file into a SweepDocument: checks the structure and every size limit (core/limits.h) before
// the work that size would cost, and reports each problem with its place.
#include "core/sweep/document.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "core/edit_distance.h"
#include "core/job_command.h"
#include "core/limits.h"
#include "core/expression.h"
#include "core/sweep/schema.h"
#include "core/utf8_text.h"
#include "core/yaml_depth.h"
#include "core/yaml_json.h"
#include "core/sweep/more_seeds.h"

namespace gammalab {

namespace {

const std::vector<std::string> kTopLevelKeys = {"name", "description", "base", "axes", "seeds", "priority",
                                                "max_attempts", "tune", "branches", "command", "more_seeds"};
const std::vector<std::string> kMoreSeedsKeys = {"where", "seeds"};
const std::vector<std::string> kBranchKeys = {"tokens", "tokens_per_param", "fraction", "decay"};
const std::vector<std::string> kTuneKeys = {"grid", "axes", "base", "seeds", "per", "carry", "allow_edge", "extend", "refine", "size_rule"};
const std::vector<std::string> kAxesKeys = {"grid", "zip"};

SourceRef at(const YAML::Node& node, std::string path) {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return {std::move(path), 0, 0};
  return {std::move(path), mark.line + 1, mark.column + 1};
}

// Long text (a 100,000-digit number) quoted in a message: its start and its length.
std::string shortened(const std::string& text) {
  constexpr std::size_t kShown = 40;
  if (text.size() <= kShown + 20) return text;
  return text.substr(0, kShown) + "... (" + std::to_string(text.size()) + " characters)";
}

std::string format_limit(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

std::string join(const std::string& prefix, const std::string& key) { return prefix.empty() ? key : prefix + "." + key; }

// The checks that come before the document is built: its size and its nesting.
bool within_file_limits(const std::string& yaml_text, DiagnosticList& diagnostics) {
  if (yaml_text.size() > limits::kMaxSweepFileBytes) {
    diagnostics.add(SourceRef{}, "the file is " + std::to_string(yaml_text.size()) +
                                     " bytes, more than the limit of " +
                                     std::to_string(limits::kMaxSweepFileBytes) + " bytes for a sweep");
    return false;
  }
  // YAML is Unicode text, and every string of a sweep ends up in JSON (the config hash) and in protobuf
  // messages, which refuse malformed UTF-8: a file that is not valid UTF-8 is refused here, as a whole,
  // before any of its strings is read.
  if (const std::optional<std::size_t> bad = utf8_first_invalid(yaml_text)) {
    const std::string_view before(yaml_text.data(), *bad);
    const std::size_t newline = before.rfind('\n');
    const auto line = 1 + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
    const auto column = 1 + static_cast<int>(newline == std::string_view::npos ? *bad : *bad - newline - 1);
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(yaml_text[*bad])));
    diagnostics.add(SourceRef{"", line, column}, "the file is not valid UTF-8: byte " + std::to_string(*bad) + " (" +
                                                     byte + ") does not start or continue a character; save it as UTF-8");
    return false;
  }
  if (const std::optional<YAML::Mark> deep = yaml_too_deep(yaml_text, limits::kMaxYamlDepth)) {
    diagnostics.add(SourceRef{"", deep->line + 1, deep->column + 1},
                    "YAML nested more than " + std::to_string(limits::kMaxYamlDepth) +
                        " levels deep here (the limit for a sweep)");
    return false;
  }
  return true;  // syntax errors are YAML::Exception, reported by the caller
}

const char* node_type_name(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Null: return "nothing";
    default: return "a scalar";
  }
}

std::string json_type_name(const nlohmann::json& value) {
  if (value.is_null()) return "nothing";
  if (value.is_boolean()) return "a boolean";
  if (value.is_number_integer() || value.is_number_unsigned()) return "an integer";
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  return value.type_name();
}

class DocumentParser {
 public:
  DocumentParser(SweepDocument& doc, DiagnosticList& diagnostics) : doc_(doc), diagnostics_(diagnostics) {}

  void parse(const YAML::Node& root) {
    doc_.document_source = at(root, "");
    doc_.base_source = doc_.axes_source = doc_.document_source;
    if (!root.IsMap()) {
      diagnostics_.add(doc_.document_source, std::string("a sweep must be a mapping, got ") + node_type_name(root));
      return;
    }
    for (const auto& [key_node, value] : mapping_entries(root, "")) {
      const std::string key = key_node.Scalar();
      const SourceRef key_ref = at(key_node, key);
      if (key == "name") read_string(value, key, doc_.name);
      else if (key == "description") read_string(value, key, doc_.description);
      else if (key == "priority") read_int(value, key, doc_.priority, std::numeric_limits<int>::min());
      else if (key == "max_attempts") read_int(value, key, doc_.max_attempts, 1, limits::kMaxAttempts);
      else if (key == "seeds") read_seeds(value, "seeds", doc_.seeds);
      else if (key == "more_seeds") read_more_seeds(value);
      else if (key == "tune") read_tune(key_ref, value);
      else if (key == "branches") read_branches(key_ref, value);
      else if (key == "command") read_command(key_ref, value);
      else if (key == "base") {
        doc_.base_source = key_ref;
        read_base(value, "", "base", doc_.base);
      } else if (key == "axes") {
        doc_.axes_source = key_ref;
        read_axes(value);
      } else {
        diagnostics_.add(key_ref, "unknown key '" + shortened(key) + "'" + did_you_mean(key, kTopLevelKeys));
      }
    }
    check_tune();
    check_more_seeds(doc_, diagnostics_);
    // A cooldown branch starts from its run's checkpoint in gammalab-train's format (docs/branches.md); a program
    // of the user's own is told no such start, so its branches would train from scratch under a branch's name.
    if (doc_.command && doc_.branches) {
      diagnostics_.add(doc_.branches->source, "cooldown branches need gammalab-train's checkpoints; a sweep with a "
                                              "`command` of its own cannot have them (docs/own-program.md)");
    }
  }

 private:
  // A list of strings, each bounded; placeholders are checked per job against its config (job_resolver.cpp).
  void read_command(const SourceRef& key_ref, const YAML::Node& node) {
    doc_.command_source = key_ref;
    if (!node.IsSequence() || node.size() == 0) {
      diagnostics_.add(at(node, "command"), std::string("expected a list such as [python3, train.py, --lr, "
                                                        "\"{optim.lr}\"], got ") +
                                                (node.IsSequence() ? "an empty list" : node_type_name(node)));
      return;
    }
    if (node.size() > kMaxCommandArgs) {
      diagnostics_.add(at(node, "command"), std::to_string(node.size()) + " arguments, more than the limit of " +
                                                std::to_string(kMaxCommandArgs));
      return;
    }
    std::vector<std::string> command;
    for (std::size_t i = 0; i < node.size(); ++i) {
      const std::string path = "command[" + std::to_string(i) + "]";
      if (!node[i].IsScalar()) {
        diagnostics_.add(at(node[i], path), std::string("expected a string, got ") + node_type_name(node[i]));
        return;
      }
      if (!within_scalar_limit(node[i], path)) return;
      command.push_back(node[i].Scalar());
      doc_.command_arg_sources.push_back(at(node[i], path));
    }
    doc_.command = std::move(command);
  }

  void read_tune(const SourceRef& key_ref, const YAML::Node& node) {
    SweepTune& tune = doc_.tune.emplace();
    tune.source = tune.per_source = key_ref;
    if (!node.IsMap()) {
      diagnostics_.add(at(node, "tune"), std::string("expected a mapping with grid, axes, base, seeds, per, "
                                                     "allow_edge, extend, refine, size_rule; got ") + node_type_name(node));
      return;
    }
    for (const auto& [key_node, value] : mapping_entries(node, "tune")) {
      const std::string key = key_node.Scalar();
      const std::string path = "tune." + key;
      if (key == "grid" || key == "axes") {
        if (!value.IsMap()) {
          diagnostics_.add(at(value, path), std::string("expected a mapping of field: [values], got ") +
                                                node_type_name(value));
          continue;
        }
        std::set<std::string> keys_in_use;
        for (const auto& [axis_key, axis_values] : mapping_entries(value, path)) {
          SweepAxis axis;
          if (read_axis(axis_key, axis_values, path, true, keys_in_use, axis)) {
            (key == "grid" ? tune.grid : tune.axes).push_back(std::move(axis));
          }
        }
      } else if (key == "base") {
        read_base(value, "", path, tune.base);
      } else if (key == "seeds") {
        read_seeds(value, path, tune.seeds.emplace());
      } else if (key == "per") {
        tune.per_source = at(value, path);
        read_fields(value, path, tune.per);
      } else if (key == "carry") {
        read_carry(value, path, tune.carry);
      } else if (key == "allow_edge") {
        const nlohmann::json v = value.IsScalar() ? yaml_to_json(value) : nlohmann::json();
        if (!v.is_boolean()) diagnostics_.add(at(value, path), "expected true or false");
        else tune.allow_edge = v.get<bool>();
      } else if (key == "extend") {
        const nlohmann::json v = value.IsScalar() ? yaml_to_json(value) : nlohmann::json();
        if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > kMaxTuneExtensions) {
          diagnostics_.add(at(value, path), "expected a whole number from 0 to " + std::to_string(kMaxTuneExtensions) +
                                                " (values added beyond each edge of the grid), got " +
                                                shortened(value.IsScalar() ? value.Scalar() : node_type_name(value)));
        } else {
          tune.extend = static_cast<int>(v.get<std::int64_t>());
        }
      } else if (key == "size_rule") {
        const nlohmann::json v = value.IsScalar() ? yaml_to_json(value) : nlohmann::json();
        if (!v.is_boolean()) diagnostics_.add(at(value, path), "expected true or false");
        else tune.size_rule = v.get<bool>();
        tune.size_rule_source = at(value, path);
      } else if (key == "refine") {
        const nlohmann::json v = value.IsScalar() ? yaml_to_json(value) : nlohmann::json();
        if (!v.is_boolean()) diagnostics_.add(at(value, path), "expected true or false");
        else tune.refine = v.get<bool>();
      } else {
        diagnostics_.add(at(key_node, path), "unknown key '" + shortened(key) + "'" + did_you_mean(key, kTuneKeys));
      }
    }
    if (tune.grid.empty()) diagnostics_.add(key_ref, "tune needs a grid: the fields to tune and their values");
  }

  // `branches: {tokens_per_param: [5, 10, 20], decay: 0.2}`: exactly one unit, its budgets positive and
  // increasing (a fraction below 1); `decay` in (0, 1).
  void read_branches(const SourceRef& key_ref, const YAML::Node& node) {
    SweepBranches& branches = doc_.branches.emplace();
    branches.source = branches.at_source = branches.decay_source = key_ref;
    if (!node.IsMap()) {
      diagnostics_.add(at(node, "branches"), std::string("expected a mapping with one of tokens, tokens_per_param "
                                                         "or fraction, and decay; got ") + node_type_name(node));
      return;
    }
    int units = 0;
    for (const auto& [key_node, value] : mapping_entries(node, "branches")) {
      const std::string key = key_node.Scalar();
      const std::string path = "branches." + key;
      if (key == "decay") {
        branches.decay_source = at(value, path);
        const nlohmann::json v = value.IsScalar() ? yaml_to_json(value) : nlohmann::json();
        if (!v.is_number() || !(v.get<double>() > 0 && v.get<double>() < 1)) {
          diagnostics_.add(at(value, path), "expected a fraction of each branch's steps in (0, 1), such as 0.2");
        } else {
          branches.decay = v.get<double>();
        }
      } else if (key == "tokens" || key == "tokens_per_param" || key == "fraction") {
        ++units;
        branches.unit_key = key;
        branches.unit = key == "tokens"             ? SweepBranches::Unit::Tokens
                        : key == "tokens_per_param" ? SweepBranches::Unit::TokensPerParam
                                                    : SweepBranches::Unit::Fraction;
        branches.at_source = at(value, path);
        read_budgets(value, path, branches);
      } else {
        diagnostics_.add(at(key_node, path), "unknown key '" + shortened(key) + "'" + did_you_mean(key, kBranchKeys));
      }
    }
    if (units != 1) {
      diagnostics_.add(key_ref, units == 0 ? "branches needs its budgets: tokens, tokens_per_param or fraction"
                                           : "branches takes its budgets in one unit: tokens, tokens_per_param or "
                                             "fraction, not several");
    }
  }

  void read_budgets(const YAML::Node& node, const std::string& path, SweepBranches& branches) {
    if (!node.IsSequence() || node.size() == 0) {
      diagnostics_.add(at(node, path), std::string("expected a list of budgets, got ") + node_type_name(node));
      return;
    }
    if (node.size() > limits::kMaxAxisValues) {
      diagnostics_.add(at(node, path), std::to_string(node.size()) + " budgets, more than the limit of " +
                                           std::to_string(limits::kMaxAxisValues));
      return;
    }
    branches.at.clear();
    for (std::size_t i = 0; i < node.size(); ++i) {
      const std::string item = path + "[" + std::to_string(i) + "]";
      const nlohmann::json v = node[i].IsScalar() ? yaml_to_json(node[i]) : nlohmann::json();
      if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0) {
        diagnostics_.add(at(node[i], item), "expected a positive number");
        return;
      }
      const double budget = v.get<double>();
      if (branches.unit == SweepBranches::Unit::Fraction && budget >= 1) {
        diagnostics_.add(at(node[i], item), "a fraction of the run's own tokens must be below 1 (the run's own "
                                            "decay is its last budget)");
        return;
      }
      if (!branches.at.empty() && budget <= branches.at.back()) {
        diagnostics_.add(at(node[i], item), "budgets must increase: " + v.dump() + " follows " +
                                                nlohmann::json(branches.at.back()).dump());
        return;
      }
      branches.at.push_back(budget);
    }
  }

  // `carry: {optim.lr: "tuned.optim.lr * tuned.model.d_model / model.d_model"}`: numeric fields only.
  void read_carry(const YAML::Node& node, const std::string& path, std::map<std::string, SweepValue>& carry) {
    if (!node.IsMap()) {
      diagnostics_.add(at(node, path), std::string("expected a mapping of field: expression, got ") +
                                           node_type_name(node));
      return;
    }
    const SweepSchema& schema = SweepSchema::instance();
    for (const auto& [key_node, value] : mapping_entries(node, path)) {
      const std::string field = key_node.Scalar();
      const std::string field_path = path + "." + field;
      const FieldKind* kind = schema.find(field);
      if (kind == nullptr || (*kind != FieldKind::kNumber && *kind != FieldKind::kInteger)) {
        diagnostics_.add(at(key_node, field_path), "'" + shortened(field) + "' is not a numeric field; carry gives "
                                                   "an expression for a numeric tuned field");
        continue;
      }
      SweepValue v;
      if (read_value(value, *kind, field_path, v)) carry[field] = std::move(v);
    }
  }

  // A list of config fields (dot paths), each a known leaf.
  void read_fields(const YAML::Node& node, const std::string& path, std::vector<std::string>& out) {
    if (!node.IsSequence()) {
      diagnostics_.add(at(node, path), std::string("expected a list of fields, got ") + node_type_name(node));
      return;
    }
    if (node.size() > limits::kMaxAxisValues) {
      diagnostics_.add(at(node, path), std::to_string(node.size()) + " fields, more than the limit of " +
                                           std::to_string(limits::kMaxAxisValues));
      return;
    }
    const SweepSchema& schema = SweepSchema::instance();
    for (std::size_t i = 0; i < node.size(); ++i) {
      const std::string item = path + "[" + std::to_string(i) + "]";
      if (!node[i].IsScalar() || node[i].Scalar().size() > limits::kMaxKeyBytes) {
        diagnostics_.add(at(node[i], item), "expected a field name such as scale.variant");
        continue;
      }
      const std::string field = node[i].Scalar();
      const FieldKind* kind = schema.find(field);
      if (kind == nullptr || *kind == FieldKind::kObject) {
        diagnostics_.add(at(node[i], item), "unknown field '" + shortened(field) + "'" +
                                                did_you_mean(field, schema.leaves()));
        continue;
      }
      out.push_back(field);
    }
  }

  // What a tune block may name, checked once the whole document is read: its axes replace main grid axes,
  // its grid does not vary a main axis (a field is tuned or swept, not both).
  void check_tune() {
    if (!doc_.tune) return;
    auto main_grid_axis = [&](const std::string& key) {
      for (const auto& d : doc_.dimensions) {
        if (d.axes.size() == 1 && d.axes.front().key == key) return true;
      }
      return false;
    };
    auto main_axis = [&](const std::string& key) {
      for (const auto& d : doc_.dimensions) {
        for (const auto& a : d.axes) {
          if (a.key == key) return true;
        }
      }
      return false;
    };
    for (const auto& axis : doc_.tune->axes) {
      if (!main_grid_axis(axis.key)) {
        diagnostics_.add(axis.source, "'" + axis.key + "' is not a grid axis of the sweep; tune.axes gives the "
                                      "values of a main grid axis that the tune runs use");
      }
    }
    const SweepSchema& schema = SweepSchema::instance();
    for (const auto& [field, value] : doc_.tune->carry) {
      // Structured bindings are not captured by lambdas before clang 16 (the fuzz build's compiler is 14).
      const bool tuned = std::any_of(doc_.tune->grid.begin(), doc_.tune->grid.end(),
                                     [&key = field](const SweepAxis& a) { return a.key == key; });
      if (!tuned) diagnostics_.add(value.source, "'" + field + "' is not a field of tune.grid: only a tuned value is carried");
      if (!value.expression) continue;
      for (const auto& name : Expression::parse(value.value.get<std::string>()).names()) {
        const std::string leaf = name.rfind("tuned.", 0) == 0 ? name.substr(6) : name;
        const FieldKind* kind = schema.find(leaf);
        if (kind == nullptr || (*kind != FieldKind::kNumber && *kind != FieldKind::kInteger)) {
          diagnostics_.add(value.source, "unknown name '" + shortened(name) + "': a carry expression uses numeric "
                                         "fields, of the main job (model.d_model) or of the tune runs of the pick "
                                         "(tuned.model.d_model)");
        }
      }
    }
    if (doc_.tune->size_rule) check_size_rule(main_axis);
    for (const auto& axis : doc_.tune->grid) {
      if (main_axis(axis.key)) {
        diagnostics_.add(axis.source, "'" + axis.key + "' is also an axis of the sweep: a field is tuned or swept, "
                                      "not both");
      }
    }
  }

  // tune.size_rule (core/sweep/tune_rule.h): one tuned field, not carried, and groups that differ in size.
  template <typename MainAxis>
  void check_size_rule(const MainAxis& main_axis) {
    const SweepTune& tune = *doc_.tune;
    if (tune.grid.size() != 1) {
      diagnostics_.add(tune.size_rule_source, "tune.size_rule fits one tuned field across sizes; tune.grid has " +
                                                  std::to_string(tune.grid.size()) + " fields");
    }
    for (const auto& [field, value] : tune.carry) {
      diagnostics_.add(value.source, "tune.size_rule gives each main job its value from the rule; '" + field +
                                         "' cannot also be carried");
    }
    const auto sized = [](const std::string& key) { return key.rfind("model.", 0) == 0; };
    bool by_size = false;
    if (tune.per.empty()) {
      for (const auto& d : doc_.dimensions) {
        for (const auto& a : d.axes) by_size = by_size || sized(a.key);
      }
    } else {
      by_size = std::any_of(tune.per.begin(), tune.per.end(), [&](const std::string& k) { return sized(k) && main_axis(k); });
    }
    if (!by_size) {
      diagnostics_.add(tune.size_rule_source, "tune.size_rule needs tune groups of several sizes: an axis of a model "
                                              "field (model.preset) that tune.per includes (it does by default)");
    }
  }

  // The entries of a mapping, reporting duplicate keys (yaml-cpp keeps both silently).
  std::vector<std::pair<YAML::Node, YAML::Node>> mapping_entries(const YAML::Node& map, const std::string& prefix) {
    std::vector<std::pair<YAML::Node, YAML::Node>> entries;
    std::set<std::string> seen;
    for (const auto& kv : map) {
      if (!kv.first.IsScalar()) {
        diagnostics_.add(at(kv.first, prefix), "keys must be plain names");
        continue;
      }
      const std::string key = kv.first.Scalar();
      if (key.size() > limits::kMaxKeyBytes) {
        diagnostics_.add(at(kv.first, prefix), "a key of " + std::to_string(key.size()) +
                                                   " bytes, more than the limit of " +
                                                   std::to_string(limits::kMaxKeyBytes));
        continue;
      }
      if (!seen.insert(key).second) {
        diagnostics_.add(at(kv.first, join(prefix, key)), "duplicate key '" + key + "'");
        continue;
      }
      entries.emplace_back(kv.first, kv.second);
    }
    return entries;
  }

  void read_string(const YAML::Node& node, const std::string& path, std::string& out) {
    const nlohmann::json value = node.IsScalar() ? yaml_to_json(node) : nlohmann::json();
    if (!node.IsScalar() || !value.is_string()) {
      diagnostics_.add(at(node, path), "expected a string, got " +
                                           (node.IsScalar() ? json_type_name(value) : node_type_name(node)));
      return;
    }
    if (!within_scalar_limit(node, path)) return;
    out = value.get<std::string>();
  }

  // A string value longer than the limit is reported (with its length) and left out.
  bool within_scalar_limit(const YAML::Node& node, const std::string& path) {
    if (node.Scalar().size() <= limits::kMaxScalarBytes) return true;
    diagnostics_.add(at(node, path), "the value is " + std::to_string(node.Scalar().size()) +
                                         " bytes long, more than the limit of " +
                                         std::to_string(limits::kMaxScalarBytes));
    return false;
  }

  void read_int(const YAML::Node& node, const std::string& path, int& out, int minimum,
                int maximum = std::numeric_limits<int>::max()) {
    const nlohmann::json value = node.IsScalar() ? yaml_to_json(node) : nlohmann::json();
    if (!value.is_number_integer()) {
      diagnostics_.add(at(node, path), "expected an integer, got " +
                                           (node.IsScalar() ? json_type_name(value) : node_type_name(node)));
      return;
    }
    const auto v = value.get<std::int64_t>();
    if (v < minimum) {
      diagnostics_.add(at(node, path), "must be at least " + std::to_string(minimum));
      return;
    }
    if (v > maximum) {
      diagnostics_.add(at(node, path), std::to_string(v) + " is more than the limit of " + std::to_string(maximum));
      return;
    }
    out = static_cast<int>(v);
  }

  // `more_seeds: [{where: {axis: value, ...}, seeds: [2]}, ...]`; checked against the axes once all are read
  // (core/sweep/more_seeds.h).
  void read_more_seeds(const YAML::Node& node) {
    if (!node.IsSequence()) {
      diagnostics_.add(at(node, "more_seeds"), std::string("expected a list of {where, seeds}, got ") +
                                                   node_type_name(node));
      return;
    }
    if (node.size() > limits::kMaxMoreSeedEntries) {
      diagnostics_.add(at(node, "more_seeds"), std::to_string(node.size()) + " entries, more than the limit of " +
                                                   std::to_string(limits::kMaxMoreSeedEntries));
      return;
    }
    for (std::size_t i = 0; i < node.size(); ++i) {
      const std::string path = "more_seeds[" + std::to_string(i) + "]";
      if (!node[i].IsMap()) {
        diagnostics_.add(at(node[i], path), std::string("expected {where, seeds}, got ") + node_type_name(node[i]));
        continue;
      }
      SweepMoreSeeds entry;
      entry.source = at(node[i], path);
      bool has_seeds = false, has_where = false;
      for (const auto& [key_node, value] : mapping_entries(node[i], path)) {
        const std::string key = key_node.Scalar();
        const std::string key_path = path + "." + key;
        if (key == "seeds") {
          has_seeds = true;
          read_seeds(value, key_path, entry.seeds);
        } else if (key == "where") {
          has_where = true;
          if (!value.IsMap() || value.size() == 0) {
            diagnostics_.add(at(value, key_path), "expected a mapping of axis fields to one of their values");
            continue;
          }
          for (const auto& [field_node, field_value] : mapping_entries(value, key_path)) {
            const std::string field = field_node.Scalar();
            if (!field_value.IsScalar() || !within_scalar_limit(field_value, key_path + "." + field)) {
              diagnostics_.add(at(field_value, key_path + "." + field), "expected one value of the axis");
              continue;
            }
            SweepValue v;
            v.source = at(field_value, key_path + "." + field);
            v.text = field_value.Scalar();
            v.value = yaml_to_json(field_value);
            entry.where.emplace_back(field, std::move(v));
          }
        } else {
          diagnostics_.add(at(key_node, key_path),
                           "unknown key '" + shortened(key) + "'" + did_you_mean(key, kMoreSeedsKeys));
        }
      }
      if (!has_where) diagnostics_.add(entry.source, path + " has no `where`: name the axis values it adds seeds to");
      if (!has_seeds) diagnostics_.add(entry.source, path + " has no `seeds`");
      if (has_seeds && has_where) doc_.more_seeds.push_back(std::move(entry));
    }
  }

  // `seeds: 3` means 0, 1, 2; `seeds: [0, 7]` lists them.
  void read_seeds(const YAML::Node& node, const std::string& key, std::vector<std::uint64_t>& seeds) {
    if (node.IsScalar()) {
      const nlohmann::json value = yaml_to_json(node);
      if (!value.is_number_integer() || value.get<std::int64_t>() < 1) {
        diagnostics_.add(at(node, key), "expected a positive number of seeds or a list of seeds");
        return;
      }
      const auto count = value.get<std::int64_t>();
      if (!within_seed_limit(node, key, count, std::to_string(count))) return;
      seeds.clear();
      for (std::int64_t s = 0; s < count; ++s) seeds.push_back(std::uint64_t(s));
      return;
    }
    if (!node.IsSequence()) {
      diagnostics_.add(at(node, key), "expected a positive number of seeds or a list of seeds");
      return;
    }
    if (node.size() == 0) {
      diagnostics_.add(at(node, key), "no seeds: the sweep would expand to nothing");
      return;
    }
    const auto listed = static_cast<std::int64_t>(node.size());
    if (!within_seed_limit(node, key, listed, "a list of " + std::to_string(listed))) return;
    seeds.clear();
    std::set<std::uint64_t> seen;
    for (std::size_t i = 0; i < node.size(); ++i) {
      const std::string path = key + "[" + std::to_string(i) + "]";
      const nlohmann::json value = node[i].IsScalar() ? yaml_to_json(node[i]) : nlohmann::json();
      if (!value.is_number_integer() || value.get<std::int64_t>() < 0) {
        diagnostics_.add(at(node[i], path), "a seed must be a non-negative integer");
        continue;
      }
      const auto seed = value.get<std::uint64_t>();
      if (!seen.insert(seed).second) {
        diagnostics_.add(at(node[i], path), "duplicate seed " + std::to_string(seed));
        continue;
      }
      seeds.push_back(seed);
    }
  }

  // Checked before any seed is built.
  bool within_seed_limit(const YAML::Node& node, const std::string& key, std::int64_t count, const std::string& what) {
    if (count <= limits::kMaxSeeds) return true;
    diagnostics_.add(at(node, key), what + " seeds is more than the limit of " +
                                            std::to_string(limits::kMaxSeeds) + " seeds per sweep");
    return false;
  }

  void read_base(const YAML::Node& node, const std::string& prefix, const std::string& doc_path,
                 std::map<std::string, SweepValue>& base) {
    if (!node.IsMap()) {
      diagnostics_.add(at(node, doc_path), std::string("expected a mapping, got ") + node_type_name(node));
      return;
    }
    const SweepSchema& schema = SweepSchema::instance();
    for (const auto& [key_node, value] : mapping_entries(node, doc_path)) {
      const std::string key = key_node.Scalar();
      const std::string path = join(prefix, key);
      const std::string key_doc_path = join(doc_path, key);
      const FieldKind* kind = schema.find(path);
      if (path == "seed") {
        diagnostics_.add(at(key_node, key_doc_path), "set the seeds with the top-level `seeds:`, not base.seed");
        continue;
      }
      if (kind == nullptr) {
        diagnostics_.add(at(key_node, key_doc_path),
                         "unknown key '" + key + "'" + did_you_mean(key, schema.children(prefix)));
        continue;
      }
      if (*kind == FieldKind::kObject) {
        read_base(value, path, key_doc_path, base);
        continue;
      }
      SweepValue v;
      if (read_value(value, *kind, key_doc_path, v)) base[path] = std::move(v);
    }
  }

  // Type-checks one scalar against its field; numeric fields also take an expression (checked for syntax).
  bool read_value(const YAML::Node& node, FieldKind kind, const std::string& doc_path, SweepValue& out) {
    out.source = at(node, doc_path);
    if (!node.IsScalar()) {
      diagnostics_.add(out.source, std::string("expected ") + kind_description(kind) + ", got " + node_type_name(node));
      return false;
    }
    if (kind == FieldKind::kString && !within_scalar_limit(node, doc_path)) return false;
    out.text = node.Scalar();
    out.text_column = out.source.column + (node.Tag() == "!" ? 1 : 0);  // quoted: skip the quote
    out.value = yaml_to_json(node);
    const nlohmann::json& v = out.value;
    auto too_large_for_double = [&] {
      diagnostics_.add(out.source, shortened(out.text) + " is too large for a number (the limit of a double is " +
                                       "about 1.8e308)");
      return false;
    };
    auto wrong_type = [&] {
      diagnostics_.add(out.source, std::string("expected ") + kind_description(kind) + ", got " + json_type_name(v) +
                                       (v.is_string() ? " '" + shortened(v.get<std::string>()) + "'" : ""));
      return false;
    };
    switch (kind) {
      case FieldKind::kBool:
        return v.is_boolean() ? true : wrong_type();
      case FieldKind::kString:
        return v.is_string() ? true : wrong_type();
      case FieldKind::kInteger:
        if (v.is_number_float()) {  // 1e9 is a float in YAML; accept it when whole
          const double d = v.get<double>();
          if (!std::isfinite(d)) return too_large_for_double();
          if (std::abs(d) > limits::kMaxExactInteger) {
            diagnostics_.add(out.source, shortened(out.text) + " is larger than the limit of " +
                                             format_limit(limits::kMaxExactInteger) +
                                             " (2^53) for an integer field");
            return false;
          }
          if (std::floor(d) != d) {
            diagnostics_.add(out.source, "expected an integer, got " + shortened(out.text));
            return false;
          }
          out.value = static_cast<std::int64_t>(d);
          return true;
        }
        [[fallthrough]];
      case FieldKind::kNumber:
        if (v.is_number_float() && !std::isfinite(v.get<double>())) return too_large_for_double();
        if (v.is_number() && !v.is_boolean()) return true;
        if (!v.is_string()) return wrong_type();
        try {
          Expression::parse(v.get<std::string>());
        } catch (const ExpressionError& e) {
          diagnostics_.add(out.source, std::string("bad expression: ") + e.what(),
                           out.text_column - out.source.column + static_cast<int>(e.offset()));
          return false;
        }
        out.expression = true;
        return true;
      case FieldKind::kObject:
        break;
    }
    return wrong_type();
  }

  void read_axes(const YAML::Node& node) {
    if (!node.IsMap()) {
      diagnostics_.add(at(node, "axes"), std::string("expected a mapping with grid and/or zip, got ") +
                                             node_type_name(node));
      return;
    }
    std::set<std::string> keys_in_use;
    for (const auto& [key_node, value] : mapping_entries(node, "axes")) {
      const std::string kind = key_node.Scalar();
      if (kind != "grid" && kind != "zip") {
        diagnostics_.add(at(key_node, "axes." + kind),
                         "unknown key '" + kind + "'" + did_you_mean(kind, kAxesKeys) + "; axes has grid and zip");
        continue;
      }
      const std::string block_path = "axes." + kind;
      if (!value.IsMap()) {
        diagnostics_.add(at(value, block_path), std::string("expected a mapping of field: [values], got ") +
                                                    node_type_name(value));
        continue;
      }
      SweepDimension zip;
      for (const auto& [axis_key_node, axis_values] : mapping_entries(value, block_path)) {
        SweepAxis axis;
        if (!read_axis(axis_key_node, axis_values, block_path, kind == "grid", keys_in_use, axis)) {
          doc_.axes_complete = false;
          continue;
        }
        if (kind == "grid") doc_.dimensions.push_back(SweepDimension{{std::move(axis)}});
        else zip.axes.push_back(std::move(axis));
      }
      if (zip.axes.empty()) continue;
      if (zip_lengths_match(zip) && zip_rows_distinct(zip)) doc_.dimensions.push_back(std::move(zip));
      else doc_.axes_complete = false;
    }
  }

  // `distinct`: a grid axis must not repeat a value (zip rows are checked as a whole instead).
  bool read_axis(const YAML::Node& key_node, const YAML::Node& values, const std::string& block_path,
                 bool distinct, std::set<std::string>& keys_in_use, SweepAxis& axis) {
    const SweepSchema& schema = SweepSchema::instance();
    axis.key = key_node.Scalar();
    axis.source = at(key_node, block_path + "." + axis.key);
    const FieldKind* kind = schema.find(axis.key);
    if (axis.key == "seed") {
      diagnostics_.add(axis.source, "set the seeds with the top-level `seeds:`, not an axis");
      return false;
    }
    if (kind == nullptr) {
      diagnostics_.add(axis.source, "unknown field '" + axis.key + "'" + did_you_mean(axis.key, schema.leaves()));
      return false;
    }
    if (*kind == FieldKind::kObject) {
      diagnostics_.add(axis.source, "'" + axis.key + "' is a group of fields; an axis names one field, e.g. " +
                                        join(axis.key, schema.children(axis.key).front()));
      return false;
    }
    if (!keys_in_use.insert(axis.key).second) {
      diagnostics_.add(axis.source, "'" + axis.key + "' is already an axis");
      return false;
    }
    if (!values.IsSequence()) {
      diagnostics_.add(at(values, axis.source.path), std::string("expected a list of values, got ") +
                                                         node_type_name(values));
      return false;
    }
    if (values.size() == 0) {
      diagnostics_.add(at(values, axis.source.path), "no values: the sweep would expand to nothing");
      return false;
    }
    if (values.size() > limits::kMaxAxisValues) {  // before the pairwise duplicate check
      diagnostics_.add(at(values, axis.source.path), std::to_string(values.size()) +
                                                         " values, more than the limit of " +
                                                         std::to_string(limits::kMaxAxisValues) + " per axis");
      return false;
    }
    bool ok = true;
    for (std::size_t i = 0; i < values.size(); ++i) {
      SweepValue v;
      const std::string path = axis.source.path + "[" + std::to_string(i) + "]";
      if (!read_value(values[i], *kind, path, v)) {
        ok = false;
        continue;
      }
      for (const auto& earlier : axis.values) {
        if (distinct && earlier.value == v.value) {
          diagnostics_.add(v.source, "duplicate value " + shortened(v.text) + " (also at line " +
                                         std::to_string(earlier.source.line) + "): it would repeat jobs");
          ok = false;
        }
      }
      axis.values.push_back(std::move(v));
    }
    return ok;
  }

  bool zip_lengths_match(const SweepDimension& zip) {
    const SweepAxis& first = zip.axes.front();
    bool match = true;
    for (const auto& axis : zip.axes) {
      if (axis.values.size() == first.values.size()) continue;
      match = false;
      diagnostics_.add(axis.source, "zip lists must have equal length: '" + axis.key + "' has " +
                                        std::to_string(axis.values.size()) + " values, '" + first.key + "' has " +
                                        std::to_string(first.values.size()));
    }
    return match;
  }

  bool zip_rows_distinct(const SweepDimension& zip) {
    bool distinct = true;
    for (std::size_t row = 0; row < zip.size(); ++row) {
      for (std::size_t earlier = 0; earlier < row; ++earlier) {
        const bool same = std::all_of(zip.axes.begin(), zip.axes.end(), [&](const SweepAxis& axis) {
          return axis.values[row].value == axis.values[earlier].value;
        });
        if (!same) continue;
        const SweepValue& first = zip.axes.front().values[row];
        diagnostics_.add(first.source, "zip row " + std::to_string(row + 1) + " repeats row " +
                                           std::to_string(earlier + 1) + ": it would repeat jobs");
        distinct = false;
        break;
      }
    }
    return distinct;
  }

  SweepDocument& doc_;
  DiagnosticList& diagnostics_;
};

}  // namespace

SweepDocument parse_sweep_document(const std::string& yaml_text, DiagnosticList& diagnostics) {
  SweepDocument doc;
  YAML::Node root;
  try {
    if (!within_file_limits(yaml_text, diagnostics)) return doc;
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    diagnostics.add(SourceRef{"", e.mark.line + 1, e.mark.column + 1}, e.msg);
    return doc;
  }
  DocumentParser(doc, diagnostics).parse(root);
  return doc;
}

}  // namespace gammalab
