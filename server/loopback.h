#pragma once
// Whether a listen address (HOST:PORT) accepts connections from this machine only: what --insecure-no-auth
// requires of every address the coordinator listens on.
#include <string>

namespace gammalab {

// True for 127.0.0.0/8, ::1 ([::1]:PORT) and "localhost"; false for anything else (0.0.0.0, [::], a name).
bool is_loopback_listen_address(const std::string& address);

}  // namespace gammalab
