#pragma once
// TLS settings of the coordinator (--tls-cert, --tls-key, --tls-client-ca), checked once at start-up so a
// missing or unreadable file is a clear error naming the flag, not a failed handshake later.
#include <optional>
#include <string>

#include "server/server_options.h"

namespace gammalab {

struct TlsFiles {
  std::string cert_pem;       // the server's certificate chain
  std::string key_pem;        // its private key
  std::string client_ca_pem;  // empty: no client certificates asked for
};

// nullopt when no TLS flag is set. Throws std::invalid_argument naming the flag: a certificate without a key
// (or the other way round), a client CA without a certificate, a file that cannot be read or is not PEM.
std::optional<TlsFiles> read_tls_files(const ServerOptions& options);

// The PEM text of `path`, at most 1 MiB; throws std::invalid_argument naming `flag` and the path.
std::string read_pem_file(const std::string& flag, const std::string& path);

}  // namespace gammalab
