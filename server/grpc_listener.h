#pragma once
// The coordinator's gRPC server, started alone on its port. gRPC's ServerBuilder sets SO_REUSEPORT by
// default, so a second coordinator started on a port already in use would bind it too, and the kernel would
// hand connections to the two in turn: two databases answering as one coordinator. Here that start fails.
#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <vector>

namespace gammalab {

// Starts a server for `services` on `address` (HOST:PORT; port 0 = any free port) and returns it with the
// port it got. Throws std::runtime_error naming `flag` and the address when it cannot listen there: the port
// is in use, or the host is not one of this machine's addresses. `credentials` null: plaintext without tokens
// (server/grpc_auth.h makes the coordinator's).
std::unique_ptr<grpc::Server> start_grpc_server(const std::string& flag, const std::string& address,
                                                const std::vector<grpc::Service*>& services, int& port,
                                                std::shared_ptr<grpc::ServerCredentials> credentials = nullptr);

}  // namespace gammalab
