// Reads a law file: every size is checked before the work it costs (the text, its nesting, the expression, the
// grid of starts), and every problem names its field, the limit and the value.
#include "core/scaling/law_form.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "core/config_error.h"
#include "core/json_fields.h"
#include "core/utf8_text.h"
#include "core/yaml_depth.h"
#include "core/yaml_json.h"

namespace gammalab {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::size_t kMaxNameBytes = 64;
constexpr std::size_t kMaxSourceBytes = 512;
constexpr std::size_t kDefaultStarts = 5;

// A name the expression language reads as one name: a letter or '_', then letters, digits and '_'.
bool is_name(const std::string& name) {
  if (name.empty() || name.size() > kMaxNameBytes) return false;
  if (!std::isalpha(static_cast<unsigned char>(name[0])) && name[0] != '_') return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::string shown_text(const std::string& text) {
  return "'" + (text.size() > 40 ? text.substr(0, 40) + "...' (" + std::to_string(text.size()) + " characters)"
                                 : text + "'");
}

std::string number_text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// A number in a law file: a YAML number, ±.inf (or ±inf), or a constant expression such as exp(25).
double constant(const nlohmann::json& value, const std::string& path) {
  if (value.is_number()) {
    const double v = value.get<double>();
    if (std::isnan(v)) throw ConfigError(path, "not a number");
    return v;
  }
  if (!value.is_string()) throw ConfigError(path, std::string("expected a number, got ") + value.type_name());
  const std::string text = value.get<std::string>();
  if (text == ".inf" || text == "+.inf" || text == "inf" || text == "+inf") return kInf;
  if (text == "-.inf" || text == "-inf") return -kInf;
  try {
    const Expression e = Expression::parse(text);
    return e.evaluate([&](const std::string& name, std::size_t offset) -> double {
      throw ExpressionError(offset, "a constant may not name '" + name + "'");
    });
  } catch (const ExpressionError& e) {
    throw ConfigError(path, std::string(e.what()) + " at column " + std::to_string(e.offset() + 1) + " of " +
                                shown_text(text));
  }
}

// Evenly spread inside finite bounds, on the scale searched: 1/6, 2/6, ..., 5/6 of the way.
std::vector<double> default_starts(const LawParameter& p, const std::string& path) {
  const double a = p.searched_lower(), b = p.searched_upper();
  if (!std::isfinite(a) || !std::isfinite(b)) {
    throw ConfigError(path, "a parameter with an infinite bound needs its own starts (a list of values)");
  }
  std::vector<double> starts;
  for (std::size_t i = 1; i <= kDefaultStarts; ++i) {
    const double u = a + (b - a) * static_cast<double>(i) / (kDefaultStarts + 1);
    starts.push_back(p.scale == ParameterScale::kLog ? std::exp(u) : u);
  }
  return starts;
}

LawParameter read_parameter(const std::string& name, const nlohmann::json& spec, const std::string& path) {
  if (!is_name(name)) {
    throw ConfigError(path, "a parameter's name must be a letter or '_' and then letters, digits or '_', at most " +
                                std::to_string(kMaxNameBytes) + " characters; got " + shown_text(name));
  }
  if (!spec.is_object()) throw ConfigError(path, std::string("expected a mapping, got ") + spec.type_name());
  JsonFields fields(spec, path);
  LawParameter p;
  p.name = name;
  const nlohmann::json* bounds = fields.any("bounds");
  if (bounds == nullptr) {
    throw ConfigError(path + ".bounds", "every parameter needs bounds: [lower, upper] (use -.inf or .inf for none)");
  }
  if (!bounds->is_array() || bounds->size() != 2) {
    throw ConfigError(path + ".bounds", "expected [lower, upper], got " + bounds->dump().substr(0, 60));
  }
  p.lower = constant((*bounds)[0], path + ".bounds[0]");
  p.upper = constant((*bounds)[1], path + ".bounds[1]");
  std::string scale = "linear";
  fields.read("scale", scale);
  if (scale != "linear" && scale != "log") {
    throw ConfigError(path + ".scale", "expected linear or log, got " + shown_text(scale));
  }
  p.scale = scale == "log" ? ParameterScale::kLog : ParameterScale::kLinear;
  if (!(p.lower < p.upper)) {
    throw ConfigError(path + ".bounds", "the lower bound " + number_text(p.lower) + " is not below the upper " +
                                            number_text(p.upper));
  }
  if (p.scale == ParameterScale::kLog && p.lower < 0) {
    throw ConfigError(path + ".bounds", "a log-scale parameter is positive: its lower bound must be 0 or more, got " +
                                            number_text(p.lower));
  }
  const nlohmann::json* starts = fields.any("starts");
  if (starts == nullptr) {
    p.starts = default_starts(p, path + ".starts");
  } else {
    if (!starts->is_array() || starts->empty()) {
      throw ConfigError(path + ".starts", "expected a list of values inside the bounds");
    }
    if (starts->size() > law_form_limits::kMaxStartsPerParameter) {
      throw ConfigError(path + ".starts", std::to_string(starts->size()) + " values, more than the limit of " +
                                              std::to_string(law_form_limits::kMaxStartsPerParameter));
    }
    for (std::size_t i = 0; i < starts->size(); ++i) {
      const std::string at = path + ".starts[" + std::to_string(i) + "]";
      const double v = constant((*starts)[i], at);
      if (!(v > p.lower && v < p.upper) || !std::isfinite(v)) {
        throw ConfigError(at, number_text(v) + " is not strictly inside the bounds [" + number_text(p.lower) + ", " +
                                  number_text(p.upper) + "]");
      }
      p.starts.push_back(v);
    }
  }
  fields.reject_unknown();
  return p;
}

std::vector<std::string> read_variables(const nlohmann::json* it) {
  if (it == nullptr) throw ConfigError("variables", "required: the columns the law reads, e.g. [params, tokens]");
  if (!it->is_array() || it->empty()) throw ConfigError("variables", "expected a list of column names");
  if (it->size() > static_cast<std::size_t>(law_form_limits::kMaxVariables)) {
    throw ConfigError("variables", std::to_string(it->size()) + " columns, more than the limit of " +
                                       std::to_string(law_form_limits::kMaxVariables));
  }
  std::vector<std::string> variables;
  for (std::size_t i = 0; i < it->size(); ++i) {
    const std::string at = "variables[" + std::to_string(i) + "]";
    if (!(*it)[i].is_string() || !is_name((*it)[i].get<std::string>())) {
      throw ConfigError(at, "expected a column name (a letter or '_', then letters, digits or '_'), got " +
                                (*it)[i].dump().substr(0, 60));
    }
    const std::string name = (*it)[i].get<std::string>();
    if (std::find(variables.begin(), variables.end(), name) != variables.end()) {
      throw ConfigError(at, "'" + name + "' is listed twice");
    }
    variables.push_back(name);
  }
  return variables;
}

// The loss: parsed, every name a parameter or a variable and every one of them used, no piecewise-constant
// function (its derivative is zero: the optimiser could not move the parameters inside it).
void read_loss(LawForm& form, const nlohmann::json* it) {
  if (it == nullptr || !it->is_string()) {
    throw ConfigError("loss", "required: the law's loss as an expression, e.g. 'E + A / params^alpha'");
  }
  const std::string text = it->get<std::string>();
  std::vector<std::string> slots;
  for (const auto& p : form.parameters) slots.push_back(p.name);
  for (const auto& v : form.variables) slots.push_back(v);
  try {
    form.loss = Expression::parse(text);
    form.program = form.loss.compile([&](const std::string& name) {
      const auto at = std::find(slots.begin(), slots.end(), name);
      return at == slots.end() ? -1 : static_cast<int>(at - slots.begin());
    });
  } catch (const ExpressionError& e) {
    std::string known;
    for (const auto& s : slots) known += (known.empty() ? "" : ", ") + s;
    throw ConfigError("loss", std::string(e.what()) + " at column " + std::to_string(e.offset() + 1) +
                                  " (parameters and variables: " + known + ")");
  }
  for (const std::string& function : form.loss.functions()) {
    if (function == "floor" || function == "ceil" || function == "round") {
      throw ConfigError("loss", function + "() is piecewise constant: its derivative is zero, so a fit could not "
                                           "move the parameters inside it");
    }
  }
  const std::vector<std::string> used = form.loss.names();
  for (const auto& s : slots) {
    if (std::find(used.begin(), used.end(), s) == used.end()) {
      throw ConfigError("loss", "'" + s + "' is declared but the loss does not use it (a parameter the loss " +
                                    "ignores cannot be fitted; a variable it ignores is not part of the law)");
    }
  }
  for (std::size_t i = 0; i + 1 < form.program.ops.size(); ++i) {
    const auto& op = form.program.ops[i];
    if (op.code == ExpressionOp::Code::kConstant && op.value == 0 &&
        form.program.ops[i + 1].code == ExpressionOp::Code::kDivide) {
      throw ConfigError("loss", "divides by the constant 0");
    }
  }
}

}  // namespace

double LawParameter::searched_lower() const {
  if (scale == ParameterScale::kLinear) return lower;
  return lower > 0 ? std::log(lower) : -kInf;
}

double LawParameter::searched_upper() const {
  return scale == ParameterScale::kLinear ? upper : std::log(upper);
}

double LawParameter::to_search(double value) const {
  const double u = scale == ParameterScale::kLog ? std::log(value) : value;
  const double a = searched_lower(), b = searched_upper();
  const bool has_a = std::isfinite(a), has_b = std::isfinite(b);
  if (!has_a && !has_b) return u;
  if (!has_b) return std::log(u - a);
  if (!has_a) return std::log(b - u);
  return std::atanh(2.0 * (u - a) / (b - a) - 1.0);
}

double LawParameter::from_search(double z) const { return parameter_from_search(*this, z); }

bool LawParameter::at_bound(double value) const {
  const double u = scale == ParameterScale::kLog ? std::log(value) : value;
  const double a = searched_lower(), b = searched_upper();
  const double width = std::isfinite(a) && std::isfinite(b) ? b - a : 1.0 + std::abs(std::isfinite(a) ? a : b);
  const double tolerance = 1e-6 * width;
  return (std::isfinite(a) && u - a <= tolerance) || (std::isfinite(b) && b - u <= tolerance);
}

std::size_t LawForm::start_count() const {
  std::size_t count = 1;
  for (const auto& p : parameters) count *= p.starts.size();
  return count;
}

LawForm parse_law_form(const std::string& yaml_text, const std::string& origin) {
  auto in_file = [&](const std::string& problem) { return origin + ": " + problem; };
  if (yaml_text.size() > law_form_limits::kMaxFileBytes) {
    throw ConfigError("", in_file("the file is " + std::to_string(yaml_text.size()) +
                                  " bytes, more than the limit of " +
                                  std::to_string(law_form_limits::kMaxFileBytes) + " for a law file"));
  }
  if (const auto bad = utf8_first_invalid(yaml_text)) {
    throw ConfigError("", in_file("not valid UTF-8 at byte " + std::to_string(*bad)));
  }
  try {
    if (const auto deep = yaml_too_deep(yaml_text, law_form_limits::kMaxYamlDepth)) {
      throw ConfigError("", in_file("nested more than " + std::to_string(law_form_limits::kMaxYamlDepth) +
                                    " levels deep at line " + std::to_string(deep->line + 1) +
                                    " (the limit for a law file)"));
    }
    const nlohmann::json root = yaml_to_json(YAML::Load(yaml_text));
    if (!root.is_object()) throw ConfigError("", in_file("expected a mapping with law, variables, loss, parameters"));
    JsonFields fields(root, "");
    LawForm form;
    fields.read("law", form.name);
    if (!is_name(form.name)) {
      throw ConfigError("law", "required: the law's name, a letter or '_' then letters, digits or '_', at most " +
                                   std::to_string(kMaxNameBytes) + " characters; got " + shown_text(form.name));
    }
    fields.read("source", form.source);
    if (form.source.size() > kMaxSourceBytes) {
      throw ConfigError("source", std::to_string(form.source.size()) + " characters, more than the limit of " +
                                      std::to_string(kMaxSourceBytes));
    }
    form.variables = read_variables(fields.any("variables"));
    const nlohmann::json& parameters = fields.object("parameters");
    if (!parameters.is_object() || parameters.empty()) {
      throw ConfigError("parameters", "required: a mapping from each parameter's name to its bounds and starts");
    }
    if (parameters.size() > static_cast<std::size_t>(law_form_limits::kMaxParameters)) {
      throw ConfigError("parameters", std::to_string(parameters.size()) + " parameters, more than the limit of " +
                                          std::to_string(law_form_limits::kMaxParameters));
    }
    for (const auto& [name, spec] : parameters.items()) {
      if (std::find(form.variables.begin(), form.variables.end(), name) != form.variables.end()) {
        throw ConfigError("parameters." + name, "'" + name + "' is also a variable");
      }
      form.parameters.push_back(read_parameter(name, spec, "parameters." + name));
    }
    std::size_t starts = 1;
    for (const auto& p : form.parameters) {
      starts *= p.starts.size();
      if (starts > law_form_limits::kMaxStarts) {
        throw ConfigError("parameters", "the grid of starts has more than " +
                                            std::to_string(law_form_limits::kMaxStarts) +
                                            " points (the product of every parameter's starts; the limit)");
      }
    }
    read_loss(form, fields.any("loss"));
    form.family = {0};
    if (const nlohmann::json* family = fields.any("family")) {
      if (!family->is_array() || family->empty() || family->size() > form.variables.size()) {
        throw ConfigError("family", "expected a list of the law's variables, e.g. [params]");
      }
      form.family.clear();
      for (const auto& v : *family) {
        const auto at = v.is_string() ? std::find(form.variables.begin(), form.variables.end(), v.get<std::string>())
                                      : form.variables.end();
        if (at == form.variables.end()) {
          throw ConfigError("family", v.dump().substr(0, 60) + " is not one of the law's variables");
        }
        form.family.push_back(static_cast<std::size_t>(at - form.variables.begin()));
      }
    }
    const nlohmann::json& settings = fields.object("settings");
    JsonFields setting_fields(settings, "settings");
    setting_fields.read("huber_delta", form.huber_delta);
    if (form.huber_delta && !(*form.huber_delta >= 1e-12 && *form.huber_delta <= 10.0)) {
      throw ConfigError("settings.huber_delta", "must be in [1e-12, 10], got " + number_text(*form.huber_delta));
    }
    setting_fields.reject_unknown();
    fields.reject_unknown();
    return form;
  } catch (const YAML::Exception& e) {
    throw ConfigError("", in_file(std::string("not valid YAML: ") + e.what()));
  } catch (const ConfigError& e) {
    if (e.path().empty()) throw;
    throw ConfigError("", in_file(e.what()));  // "law.yaml: parameters.E.bounds: ..."
  }
}

LawForm read_law_form(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw ConfigError("", path + ": cannot open");
  std::string text;
  std::vector<char> buffer(law_form_limits::kMaxFileBytes + 1);
  file.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  text.assign(buffer.data(), static_cast<std::size_t>(file.gcount()));
  if (text.size() > law_form_limits::kMaxFileBytes) {
    throw ConfigError("", path + ": the file is more than " + std::to_string(law_form_limits::kMaxFileBytes) +
                              " bytes, the limit for a law file");
  }
  return parse_law_form(text, path);
}

double law_form_value(const LawForm& form, const std::vector<double>& parameters, const std::vector<double>& values) {
  ExpressionStack<double> stack;
  return evaluate_program(form.program, parameters.data(), static_cast<int>(parameters.size()), values.data(), stack);
}

double law_form_loss(const LawForm& form, const std::vector<double>& parameters, const std::vector<double>& values) {
  const double loss = law_form_value(form, parameters, values);
  return std::isfinite(loss) && loss > 0 ? loss : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace gammalab
