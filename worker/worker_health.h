#pragma once
// What a worker says about itself on /readyz (worker/health_server.h): ready means it can take work now.
namespace gammalab {

struct WorkerHealth {
  int slots_total = 0;
  int slots_busy = 0;
  bool connected = false;  // registered, and the coordinator answered the last registration or heartbeat
  bool draining = false;   // stopping: no new leases, running jobs checkpoint and are handed back
  bool ready() const { return connected && !draining; }
};

}  // namespace gammalab
