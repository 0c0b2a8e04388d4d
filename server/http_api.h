#pragma once
// The dashboard's HTTP side: static files from web/ and a JSON + Server-Sent-Events API over the store.
//   GET /api/sweeps                      every sweep with job counts
//   GET /api/sweeps/{id}                 one sweep
//   GET /api/sweeps/{id}/jobs            its jobs
//   GET /api/jobs/{id}/metrics?names=a,b&after_step=N   points of one job
//   GET /api/workers                     workers and what they run
//   GET /api/events                      SSE: an event "change" whenever the store changes
#include <memory>
#include <thread>

#include "server/server_options.h"
#include "server/store.h"

namespace httplib {
class Server;
}

namespace gammalab {

class HttpApi {
 public:
  HttpApi(Store& store, const ServerOptions& options);
  ~HttpApi();  // stops and joins
  int port() const { return port_; }

 private:
  Store& store_;
  const ServerOptions& options_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace gammalab
