#pragma once
// Long-lived gRPC calls (WatchSweep, ReportMetrics streams), each holding a thread of the server while it
// lasts: bounded per client address, per token (and to a fair share beside the other tokens holding some:
// server/stream_slots.h) and in all, and watched. A watchdog thread ends (TryCancel) every call whose token was
// revoked since it began, and a call that promised to send and sent nothing for its idle limit (a
// ReportMetrics stream opened and left open: a worker's stream writes its batches at once and closes). Without these, one valid token could hold every thread of the coordinator, and a revoked one
// would keep what it had open.
//
// Thread-safety: every member may be called from any thread. A Call handle unregisters itself under the
// registry's lock, so the watchdog never touches the context of a call that has returned.
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "server/stream_slots.h"
#include "server/tokens.h"

namespace gammalab {

// The address of a gRPC peer without its port: "ipv4:10.0.0.5:41234" -> "ipv4:10.0.0.5", "ipv6:[::1]:5" ->
// "ipv6:[::1]"; a peer without a port ("unix:/path") is itself.
std::string peer_address(const std::string& peer);

struct LongCallLimits {
  std::string kind;   // named in logs: "watch", "metric stream"
  std::string kinds;  // and in refusals: "watches", "metric streams"
  std::size_t total = 0;
  std::size_t per_address = 0;
  std::size_t per_token = 0;
  // 0: no idle limit (a watch only receives).
  std::chrono::milliseconds idle{0};
};

class LongCalls {
 public:
  // How often the watchdog looks: revocation and idleness end a call within about this long.
  static constexpr auto kCheckInterval = std::chrono::milliseconds(500);

  // `database`: the coordinator's, where revocations are read (its own connection); empty: no tokens
  // (--insecure-no-auth), so nothing is revoked.
  LongCalls(LongCallLimits limits, const std::string& database);
  ~LongCalls();
  LongCalls(const LongCalls&) = delete;
  LongCalls& operator=(const LongCalls&) = delete;

  // Registered while it lives; the call's handler keeps it for as long as it runs.
  class Call {
   public:
    ~Call();
    // The call sent something: its idle time starts again.
    void touch() { last_activity_ns_ = now_ns(); }

   private:
    friend class LongCalls;
    Call(LongCalls& owner, grpc::ServerContext* context, std::optional<std::int64_t> token_id);
    static std::int64_t now_ns();
    LongCalls& owner_;
    grpc::ServerContext* context_;
    std::optional<std::int64_t> token_id_;
    std::shared_ptr<void> address_slot_, token_slot_;
    std::atomic<std::int64_t> last_activity_ns_;
  };

  // A handle for the call, or null with `refusal` set to RESOURCE_EXHAUSTED naming the bound it met.
  std::unique_ptr<Call> enter(grpc::ServerContext* context, std::optional<std::int64_t> token_id,
                              grpc::Status& refusal);

  std::size_t open() const { return by_address_.open(); }
  std::size_t open_for_token(std::int64_t token_id) const { return by_token_.held_by(std::to_string(token_id)); }
  // Calls the watchdog ended since start, for revocation and for idleness.
  std::int64_t ended_revoked() const { return ended_revoked_; }
  std::int64_t ended_idle() const { return ended_idle_; }
  // Calls refused at enter (a bound met) since start.
  std::int64_t refused() const { return refused_; }

 private:
  void watch();
  void leave(Call* call) ABSL_LOCKS_EXCLUDED(mutex_);

  const LongCallLimits limits_;
  StreamSlots by_address_;  // its total is the bound in all
  StreamSlots by_token_;
  const std::string database_;
  std::unique_ptr<Tokens> tokens_;  // the watchdog's own; null until a call with a token, and without auth
  mutable absl::Mutex mutex_;
  std::map<Call*, bool> calls_ ABSL_GUARDED_BY(mutex_);  // value: already cancelled by the watchdog
  absl::Mutex stop_mutex_;
  bool stopping_ ABSL_GUARDED_BY(stop_mutex_) = false;  // wakes the watchdog at once: services come and go in tests
  std::atomic<std::int64_t> ended_revoked_{0}, ended_idle_{0}, refused_{0};
  std::thread watchdog_;
};

}  // namespace gammalab
