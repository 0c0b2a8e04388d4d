#include "server/loopback.h"

#include <arpa/inet.h>

namespace gammalab {

bool is_loopback_listen_address(const std::string& address) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos) return false;
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host == "localhost") return true;
  in_addr v4{};
  if (::inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (::inet_pton(AF_INET6, host.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

bool is_loopback_host_header(const std::string& host) {
  if (host.empty()) return false;
  // "[::1]" and "localhost" have no port; "[::1]:8080" and "localhost:8080" do.
  const bool has_port = host.front() == '[' ? host.back() != ']' : host.find(':') != std::string::npos;
  return is_loopback_listen_address(has_port ? host : host + ":0");
}

}  // namespace gammalab
