// gRPC without SO_REUSEPORT (see grpc_listener.h).
#include "server/grpc_listener.h"

#include <stdexcept>

namespace gammalab {

std::unique_ptr<grpc::Server> start_grpc_server(const std::string& flag, const std::string& address,
                                                const std::vector<grpc::Service*>& services, int& port,
                                                std::shared_ptr<grpc::ServerCredentials> credentials) {
  grpc::ServerBuilder builder;
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  port = 0;
  builder.AddListeningPort(address, credentials ? credentials : grpc::InsecureServerCredentials(), &port);
  for (grpc::Service* service : services) builder.RegisterService(service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    if (server) server->Shutdown();
    throw std::runtime_error(flag + " " + address +
                             ": cannot listen there (the port is in use, or the host is not an address of this "
                             "machine)");
  }
  return server;
}

}  // namespace gammalab
