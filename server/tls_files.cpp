#include "server/tls_files.h"

#include "core/file_util.h"

#include <sstream>
#include <stdexcept>

namespace gammalab {

namespace {
constexpr std::size_t kMaxPemBytes = 1 << 20;
}

std::string read_pem_file(const std::string& flag, const std::string& path) {
  std::string text = read_file_bounded(flag, path, kMaxPemBytes);
  if (text.find("-----BEGIN ") == std::string::npos) throw std::invalid_argument(flag + " " + path + ": not a PEM file");
  return text;
}

std::optional<TlsFiles> read_tls_files(const ServerOptions& options) {
  if (options.tls_cert.empty() && options.tls_key.empty() && options.tls_client_ca.empty()) return std::nullopt;
  if (options.tls_cert.empty() || options.tls_key.empty()) {
    throw std::invalid_argument("--tls-cert and --tls-key: give both or neither");
  }
  TlsFiles files;
  files.cert_pem = read_pem_file("--tls-cert", options.tls_cert);
  files.key_pem = read_pem_file("--tls-key", options.tls_key);
  if (!options.tls_client_ca.empty()) files.client_ca_pem = read_pem_file("--tls-client-ca", options.tls_client_ca);
  return files;
}

}  // namespace gammalab
