#include "core/metric.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace gammalab {

namespace {

double number_of(const nlohmann::json& v, const std::string& name) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  throw std::invalid_argument("metric '" + name + "': not a number");
}

}  // namespace

std::optional<std::vector<MetricPoint>> parse_metric_line(std::string_view line) {
  if (line.empty() || line.front() != '{') return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("metrics")) return std::nullopt;
  if (!j["metrics"].is_object()) throw std::invalid_argument("metric line: 'metrics' is not an object");
  if (!j.contains("step") || !j["step"].is_number_integer())
    throw std::invalid_argument("metric line: no integer 'step'");
  MetricPoint base;
  base.step = j["step"].get<std::int64_t>();
  if (j.contains("tokens")) {
    if (!j["tokens"].is_number_integer()) throw std::invalid_argument("metric line: 'tokens' is not an integer");
    base.tokens = j["tokens"].get<std::int64_t>();
  }
  std::vector<MetricPoint> points;
  for (const auto& [name, value] : j["metrics"].items()) {
    MetricPoint p = base;
    p.name = name;
    p.value = number_of(value, name);
    points.push_back(std::move(p));
  }
  return points;
}

std::string format_metric_line(std::int64_t step, std::int64_t tokens, const std::map<std::string, double>& values) {
  nlohmann::json metrics = nlohmann::json::object();
  for (const auto& [name, v] : values) {
    if (std::isnan(v))
      metrics[name] = "nan";
    else if (std::isinf(v))
      metrics[name] = v > 0 ? "inf" : "-inf";
    else
      metrics[name] = v;
  }
  nlohmann::json line = {{"step", step}, {"tokens", tokens}, {"metrics", std::move(metrics)}};
  return line.dump();
}

}  // namespace gammalab
