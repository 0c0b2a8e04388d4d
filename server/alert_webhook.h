#pragma once
// POSTs alerts to a URL as JSON, one request per alert, on a thread of its own so that a slow or dead receiver
// never holds up the coordinator: alerts wait in a bounded queue (the oldest is dropped, with a log line, when a
// receiver cannot keep up) and each POST is tried twice with a timeout. The body carries the alert's fields and a
// "text" line, which chat webhooks (Slack, Mattermost) show as the message.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "core/alert.h"

namespace gammalab {

// The URL's parts; `error` names what is wrong with it (empty when it may be used).
struct WebhookUrl {
  std::string scheme_host_port;  // "https://hooks.example.org:8443"
  std::string path;              // "/services/T000/B000" ("/" when none)
  std::string error;
};
WebhookUrl parse_webhook_url(const std::string& url);

// The body posted for an alert: {"text": ..., "alert": {...}, "sweep_name": ...}; in "text", & < > are written
// as entities (a name cannot become a chat mention or link).
std::string webhook_body(const Alert& alert);

class AlertWebhook {
 public:
  static constexpr std::size_t kMaxQueued = 1000;
  explicit AlertWebhook(const std::string& url);  // the URL as parse_webhook_url accepted it
  ~AlertWebhook();                                // stops after the POST in flight

  void post(std::string body) ABSL_LOCKS_EXCLUDED(mutex_);
  std::int64_t failures() const ABSL_LOCKS_EXCLUDED(mutex_);

 private:
  void run();
  const WebhookUrl url_;
  mutable absl::Mutex mutex_;
  std::deque<std::string> queue_ ABSL_GUARDED_BY(mutex_);
  std::int64_t failures_ ABSL_GUARDED_BY(mutex_) = 0;
  bool stop_ ABSL_GUARDED_BY(mutex_) = false;
  std::thread thread_;
};

}  // namespace gammalab
