#include "core/host_port.h"

#include <charconv>

#include "core/utf8_text.h"

namespace gammalab {

namespace {

bool host_char(char c, bool bracketed) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
         c == '_' || (bracketed && c == ':');
}

}  // namespace

std::variant<HostPort, std::string> parse_host_port(std::string_view text, std::string_view field,
                                                    std::uint16_t min_port) {
  const std::string shown = "'" + utf8_head(text, 80) + (text.size() > 80 ? "...'" : "'");
  const std::string prefix = std::string(field) + ": ";
  const std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return prefix + "must be host:port, got " + shown;
  std::string_view host = text.substr(0, colon);
  const std::string_view port_text = text.substr(colon + 1);
  const bool bracketed = host.size() >= 2 && host.front() == '[' && host.back() == ']';
  if (bracketed) host = host.substr(1, host.size() - 2);
  if (host.empty() || host.size() > kMaxHostBytes) {
    return prefix + "the host must be 1 to " + std::to_string(kMaxHostBytes) + " bytes, got " +
           std::to_string(host.size()) + " in " + shown;
  }
  for (char c : host) {
    if (!host_char(c, bracketed)) {
      return prefix + "the host may hold only letters, digits, '.', '-' and '_' (and ':' inside [ ]), got " + shown;
    }
  }
  unsigned port = 0;
  const auto [end, error] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || error != std::errc() || end != port_text.data() + port_text.size() ||
      port < min_port || port > 65535) {
    return prefix + "the port must be an integer in [" + std::to_string(min_port) + ", 65535], got " + shown;
  }
  return HostPort{std::string(host), static_cast<std::uint16_t>(port)};
}

std::string host_port_text(const HostPort& endpoint) {
  const bool v6 = endpoint.host.find(':') != std::string::npos;
  return (v6 ? "[" + endpoint.host + "]" : endpoint.host) + ":" + std::to_string(endpoint.port);
}

}  // namespace gammalab
