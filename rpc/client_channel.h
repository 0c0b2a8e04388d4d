#pragma once
// A client's channel to the coordinator: TLS when given a CA, and the token sent on every call as
// "authorization: Bearer <token>" (a client interceptor, so every stub on the channel carries it).
// The token comes from a file or the environment, never from a command-line value that `ps` would show.
#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

namespace gammalab {

struct ClientSecurity {
  std::string token;           // empty: no token (a coordinator started with --insecure-no-auth)
  std::string gateway_token;   // if set, sent instead of `token` on WorkerGateway calls (tests, tools)
  std::string tls_ca_pem;      // TLS, trusting this CA; empty: plaintext
  std::string tls_cert_pem;    // client certificate and key (a worker, with mutual TLS)
  std::string tls_key_pem;
};

// The environment variable a token can come in.
inline constexpr char kTokenEnv[] = "GAMMALAB_TOKEN";

// The token: the first line of `token_file` when given, else $GAMMALAB_TOKEN, else empty. Throws
// std::invalid_argument naming the flag when the file cannot be read, is empty or holds more than a token.
std::string read_token(const std::string& token_file);

// Reads the token (read_token) and the PEM files (each empty = not used); throws std::invalid_argument naming
// the flag of a file that cannot be read.
ClientSecurity client_security(const std::string& token_file, const std::string& tls_ca, const std::string& tls_cert = "",
                               const std::string& tls_key = "");

std::shared_ptr<grpc::Channel> open_channel(const std::string& address, const ClientSecurity& security,
                                            const grpc::ChannelArguments& args = {});

// What the CLI's commands connect with (set once in main; tests set their own).
void set_default_client_security(ClientSecurity security);
const ClientSecurity& default_client_security();

}  // namespace gammalab
