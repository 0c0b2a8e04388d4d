#pragma once
// A network endpoint written "host:port": where a gang's node 0 hosts the rendezvous store (docs/distributed.md),
// and where the HTTP servers listen (--http, --health; port 0 there: any free port). The coordinator checks what
// node 0's worker reports before it hands it to the other workers, and each of them checks what it is handed
// before it becomes a trainer flag: either side may be hostile.
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace gammalab {

struct HostPort {
  std::string host;  // a host name, an IPv4 address, or an IPv6 address without its brackets
  std::uint16_t port = 0;
};

inline constexpr std::size_t kMaxHostBytes = 253;  // the longest DNS name

// `text` as "host:port" ("[v6]:port" for an IPv6 address), or the reason it is not one: the host is 1 to 253
// letters, digits and '.', '-', '_' (or ':' inside brackets), the port an integer in [min_port, 65535] (0 only
// for an address to listen on). The reason names `field`, the limit and the value.
std::variant<HostPort, std::string> parse_host_port(std::string_view text, std::string_view field,
                                                    std::uint16_t min_port = 1);

// "host:port", with the brackets an IPv6 host needs.
std::string host_port_text(const HostPort& endpoint);

}  // namespace gammalab
