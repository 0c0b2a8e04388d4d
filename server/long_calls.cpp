// Bounded and watched long-lived gRPC calls (server/long_calls.h).
#include "server/long_calls.h"

#include <spdlog/spdlog.h>

#include <set>
#include <vector>

namespace gammalab {

std::string peer_address(const std::string& peer) {
  const std::size_t colon = peer.rfind(':');
  const std::size_t scheme = peer.find(':');
  if (colon == std::string::npos || colon == scheme || peer.back() == ']') return peer;
  return peer.substr(0, colon);
}

LongCalls::LongCalls(LongCallLimits limits, const std::string& database)
    : limits_(std::move(limits)),
      by_address_(limits_.total, limits_.per_address),
      by_token_(limits_.total, limits_.per_token, StreamSlots::Share::kFairShare),
      database_(database) {
  watchdog_ = std::thread([this] { watch(); });
}

LongCalls::~LongCalls() {
  {
    absl::MutexLock lock(&stop_mutex_);
    stopping_ = true;
  }
  watchdog_.join();
}

std::int64_t LongCalls::Call::now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

LongCalls::Call::Call(LongCalls& owner, grpc::ServerContext* context, std::optional<std::int64_t> token_id)
    : owner_(owner), context_(context), token_id_(token_id), last_activity_ns_(now_ns()) {}

LongCalls::Call::~Call() { owner_.leave(this); }

std::unique_ptr<LongCalls::Call> LongCalls::enter(grpc::ServerContext* context, std::optional<std::int64_t> token_id,
                                                  grpc::Status& refusal) {
  const std::string address = peer_address(context->peer());
  std::unique_ptr<Call> call(new Call(*this, context, token_id));
  call->address_slot_ = by_address_.acquire(address);
  if (call->address_slot_ && token_id) call->token_slot_ = by_token_.acquire(std::to_string(*token_id));
  if (!call->address_slot_ || (token_id && !call->token_slot_)) {
    // The token's fair share is named when it is what refused the call.
    std::string share;
    if (call->address_slot_ && token_id) {
      const std::size_t limit = by_token_.limit_for(std::to_string(*token_id));
      if (limit < limits_.per_token) {
        share = " (now " + std::to_string(limit) + ", a fair share beside the other tokens holding " + limits_.kinds +
                ")";
      }
    }
    refusal = grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                           "too many open " + limits_.kinds + ": at most " + std::to_string(limits_.per_address) +
                               " per client address, " + std::to_string(limits_.per_token) + " per token" + share +
                               " and " + std::to_string(limits_.total) + " in all; close others or retry later");
    call->context_ = nullptr;  // never registered: its destructor only gives back the slots it got
    ++refused_;
    return nullptr;
  }
  absl::MutexLock lock(&mutex_);
  calls_.emplace(call.get(), false);
  return call;
}

void LongCalls::leave(Call* call) {
  absl::MutexLock lock(&mutex_);
  calls_.erase(call);
}

void LongCalls::watch() {
  while (true) {
    {
      absl::MutexLock lock(&stop_mutex_);
      if (stop_mutex_.AwaitWithTimeout(absl::Condition(&stopping_), absl::FromChrono(kCheckInterval))) return;
    }
    // Which tokens of open calls are still valid: one look-up per distinct token, outside the lock.
    std::set<std::int64_t> token_ids;
    {
      absl::MutexLock lock(&mutex_);
      for (const auto& [call, cancelled] : calls_) {
        if (call->token_id_) token_ids.insert(*call->token_id_);
      }
    }
    std::set<std::int64_t> revoked;
    // Opened at the first call with a token: a service that never has one opens no database.
    if (!token_ids.empty() && !tokens_ && !database_.empty()) tokens_ = std::make_unique<Tokens>(database_);
    if (tokens_) {
      for (std::int64_t id : token_ids) {
        if (!tokens_->active_role(id)) revoked.insert(id);
      }
    }
    const std::int64_t now = Call::now_ns();
    const std::int64_t idle_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(limits_.idle).count();
    absl::MutexLock lock(&mutex_);
    for (auto& [call, cancelled] : calls_) {
      if (cancelled) continue;
      const bool is_revoked = call->token_id_ && revoked.contains(*call->token_id_);
      const bool is_idle = idle_ns > 0 && now - call->last_activity_ns_ > idle_ns;
      if (!is_revoked && !is_idle) continue;
      cancelled = true;
      (is_revoked ? ended_revoked_ : ended_idle_)++;
      spdlog::warn("{} from {} ended: {}", limits_.kind, call->context_->peer(),
                   is_revoked ? "its token was revoked"
                              : "nothing sent for " + std::to_string(limits_.idle.count()) + " ms");
      call->context_->TryCancel();
    }
  }
}

}  // namespace gammalab
