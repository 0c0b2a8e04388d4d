#include "core/rendezvous_line.h"

#include <nlohmann/json.hpp>

namespace gammalab {

namespace {
constexpr const char* kKey = "rendezvous_port";
}  // namespace

std::string format_rendezvous_line(std::uint16_t port) { return nlohmann::json{{kKey, port}}.dump(); }

std::optional<std::uint16_t> parse_rendezvous_line(std::string_view line) {
  if (line.empty() || line.front() != '{' || line.find(kKey) == std::string_view::npos) return std::nullopt;
  const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || j.size() != 1 || !j.contains(kKey)) return std::nullopt;
  const nlohmann::json& port = j[kKey];
  if (!port.is_number_integer()) return std::nullopt;
  const std::int64_t p = port.get<std::int64_t>();
  if (p < 1 || p > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(p);
}

}  // namespace gammalab
