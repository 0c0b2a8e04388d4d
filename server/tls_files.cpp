#include "server/tls_files.h"

#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>
#include <sstream>
#include <stdexcept>

#include "core/file_util.h"

namespace gammalab {

namespace {
constexpr std::size_t kMaxPemBytes = 1 << 20;

// gRPC and libmicrohttpd only say that the listener could not start when the key is not the certificate's:
// checked here first, so the error names the cause.
void check_key_matches_certificate(const TlsFiles& files, const ServerOptions& options) {
  auto bio = [](const std::string& pem) {
    return std::unique_ptr<BIO, decltype(&BIO_free)>(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())),
                                                     &BIO_free);
  };
  auto cert_bio = bio(files.cert_pem), key_bio = bio(files.key_pem);
  std::unique_ptr<X509, decltype(&X509_free)> cert(PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr),
                                                   &X509_free);
  if (!cert) throw std::invalid_argument("--tls-cert " + options.tls_cert + ": no certificate in it");
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr), &EVP_PKEY_free);
  if (!key) {
    throw std::invalid_argument("--tls-key " + options.tls_key + ": no private key in it (or it is encrypted)");
  }
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    throw std::invalid_argument("--tls-key " + options.tls_key + " is not the private key of --tls-cert " +
                                options.tls_cert + " (the pair does not match)");
  }
}
}  // namespace

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
  check_key_matches_certificate(files, options);
  return files;
}

}  // namespace gammalab
