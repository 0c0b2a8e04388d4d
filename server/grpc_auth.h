#pragma once
// Who may call which gRPC service, checked in one place for every call: an AuthMetadataProcessor that gRPC runs
// on each call's metadata before any handler. A call needs "authorization: Bearer <token>" with a token of the
// service's role (server/tokens.h): none, a wrong or a revoked one is UNAUTHENTICATED, a valid token of the
// other role PERMISSION_DENIED. With a client CA (mutual TLS), WorkerGateway calls also need a client
// certificate that CA signed (the CLI needs none). Handlers learn the caller's token id from the verified
// header of the call (caller_token_id), so the WorkerGateway can bind workers to the token they registered with.
#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <memory>
#include <optional>

#include "server/server_options.h"
#include "server/tokens.h"

namespace gammalab {

// The gRPC listener's credentials: TLS when options name a certificate (server/tls_files.h), else plaintext;
// with the token check unless `tokens` is null (--insecure-no-auth). The check shares `tokens`: gRPC may run it
// on its own threads for a call still queued when the server shuts down, after its owner is gone.
std::shared_ptr<grpc::ServerCredentials> grpc_server_credentials(const ServerOptions& options,
                                                                 std::shared_ptr<Tokens> tokens);

// The id of the token in the call's authorization header; nullopt when it has none. Trust it only on a server
// that checks tokens (the processor above refused the call otherwise): without tokens the header is unchecked.
// A read of the call's own metadata: the connection's shared AuthContext is never written (it is not safe to
// write from concurrent calls).
std::optional<std::int64_t> caller_token_id(const grpc::ServerContext& context);

}  // namespace gammalab
