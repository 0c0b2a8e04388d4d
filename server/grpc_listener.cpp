// gRPC without SO_REUSEPORT (see grpc_listener.h).
#include "server/grpc_listener.h"

#include <grpcpp/resource_quota.h>

#include <stdexcept>

#include "core/limits.h"

namespace gammalab {

namespace {
// A worker sends a heartbeat, a lease and one metric stream at a time, the CLI a few pages: 100 is far above
// any client of ours, and far below what would let one connection hold every thread.
constexpr int kMaxStreamsPerConnection = 100;
}  // namespace

std::unique_ptr<grpc::Server> start_grpc_server(const std::string& flag, const std::string& address,
                                                const std::vector<grpc::Service*>& services, int& port,
                                                std::shared_ptr<grpc::ServerCredentials> credentials) {
  grpc::ServerBuilder builder;
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  // No number of open calls may exhaust the process: the server's threads are bounded (a call that finds none
  // is refused with RESOURCE_EXHAUSTED), and so are the streams one connection may have open at once (more
  // wait in the client's queue). The long calls have bounds of their own below these (server/long_calls.h).
  grpc::ResourceQuota quota("gammalab-server");
  quota.SetMaxThreads(limits::kMaxGrpcServerThreads);
  quota.Resize(limits::kMaxGrpcServerMemoryBytes);  // gRPC's own buffers: under pressure it shrinks and sheds
  builder.SetResourceQuota(quota);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, kMaxStreamsPerConnection);
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
