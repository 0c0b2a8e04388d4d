#pragma once
// Whether a listen address (HOST:PORT) accepts connections from this machine only: what --insecure-no-auth
// requires of every address the coordinator listens on.
#include <string>

namespace gammalab {

// True for 127.0.0.0/8, ::1 ([::1]:PORT) and "localhost"; false for anything else (0.0.0.0, [::], a name).
bool is_loopback_listen_address(const std::string& address);

// The same for an HTTP Host header, whose port is optional ("localhost", "127.0.0.1:8080", "[::1]"). Without
// tokens, the HTTP API answers only requests whose Host is loopback: a web page whose name an attacker points
// at 127.0.0.1 (DNS rebinding) sends its own name as Host, and is refused.
bool is_loopback_host_header(const std::string& host);

}  // namespace gammalab
