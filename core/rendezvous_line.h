#pragma once
// The line by which node 0 of a job that spans machines announces its rendezvous store on stdout, beside the
// metric lines: {"rendezvous_port": P}. Its launcher hosts the store at a port the kernel picks (so no two jobs
// race for one), and its worker reads the port from this line and reports host:port to the coordinator, which
// hands it to the other machines' workers (docs/distributed.md).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gammalab {

std::string format_rendezvous_line(std::uint16_t port);

// The port of a rendezvous line; nullopt for any other line (a metric line, a log line, a port outside
// [1, 65535]).
std::optional<std::uint16_t> parse_rendezvous_line(std::string_view line);

}  // namespace gammalab
