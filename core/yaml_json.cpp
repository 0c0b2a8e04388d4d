// YAML -> JSON for the strict field readers. Scalars are typed by a linear hand-written scan (decimal_text.h),
// never std::regex, so a 100,000-digit scalar costs one pass and no stack.
#include "core/yaml_json.h"

#include "core/decimal_text.h"

namespace gammalab {

namespace {

nlohmann::json scalar_to_json(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") return text;  // quoted: always a string
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  if (text == "null" || text == "~" || text.empty()) return nullptr;
  const DecimalScan scan = scan_decimal(text, true);
  if (scan.length != text.size()) return text;
  if (scan.integer) {
    if (const auto value = decimal_integer(text)) return static_cast<std::int64_t>(*value);
  }
  // A float, or an integer too large for int64; beyond a double it is +-infinity, which readers reject.
  return decimal_value(text);
}

}  // namespace

nlohmann::json yaml_to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json out = nlohmann::json::object();
      for (const auto& kv : node) out[kv.first.as<std::string>()] = yaml_to_json(kv.second);
      return out;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& item : node) out.push_back(yaml_to_json(item));
      return out;
    }
    case YAML::NodeType::Scalar:
      return scalar_to_json(node);
    default:
      return nullptr;
  }
}

}  // namespace gammalab
