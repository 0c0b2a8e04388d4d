#include "server/alert_center.h"

#include <spdlog/spdlog.h>

#include <cmath>
#include <set>

#include "core/decimal_text.h"
#include "core/exit_codes.h"
#include "core/metric_names.h"

namespace gammalab {

namespace {
// How gammalab-train's log says that a run diverged (worker/trainer/trainer.cpp, stop_if_diverged).
constexpr std::string_view kDivergedAt = "diverged at step ";
}  // namespace

std::string alert_options_error(const AlertOptions& options) {
  if (!std::isfinite(options.loss_spike_ratio) || (options.loss_spike_ratio != 0 && options.loss_spike_ratio <= 1)) {
    return "--alert-loss-spike " + number_text(options.loss_spike_ratio) +
           ": a ratio above 1 (a loss that rose by that factor), or 0 for no spike alerts";
  }
  if (options.stall_after_ms < 0) {
    return "--alert-stall-s " + std::to_string(options.stall_after_ms / 1000) + ": seconds >= 0 (0: no stall alerts)";
  }
  if (!options.webhook.empty()) {
    if (const WebhookUrl url = parse_webhook_url(options.webhook); !url.error.empty()) {
      return "--alert-webhook: " + url.error;
    }
  }
  return "";
}

AlertCenter::AlertCenter(Store& store, AlertOptions options) : store_(store), options_(std::move(options)) {
  if (!options_.webhook.empty()) webhook_ = std::make_unique<AlertWebhook>(options_.webhook);
  bool truncated = false;
  if (const std::vector<Alert> newest = store_.alerts("", 0, 1, truncated); !newest.empty()) {
    delivered_through_ = newest.front().id;
  }
  if (options_.check_interval_ms > 0) thread_ = std::thread([this] { run(); });
}

AlertCenter::~AlertCenter() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void AlertCenter::on_points(const std::string& job_id, int attempt, const std::vector<MetricPoint>& points) {
  if (options_.loss_spike_ratio == 0) return;
  std::vector<Alert> raised;
  {
    absl::MutexLock lock(&mutex_);
    for (const MetricPoint& p : points) {
      if (p.name != metric_names::kTrainLoss) continue;
      auto it = spikes_.find(job_id);
      // A new attempt starts a new watch: its points before the resume are a replay the store already had.
      if (it == spikes_.end() || it->second.first != attempt) {
        it = spikes_.insert_or_assign(job_id, std::pair{attempt, LossSpikeWatch(options_.loss_spike_ratio)}).first;
      }
      if (std::optional<std::string> message = it->second.second.add(p.step, p.value)) {
        Alert a;
        a.job_id = job_id;
        a.attempt = attempt;
        a.rule = alert_rule::kLossSpike;
        a.step = p.step;
        a.value = p.value;
        a.message = *message;
        raised.push_back(std::move(a));
      }
    }
  }
  for (const Alert& a : raised) store_.raise_alert(a);  // (once per attempt: the store keeps the first)
}

void AlertCenter::on_finished(const std::string& job_id, int attempt, int exit_code, const std::string& error) {
  {
    absl::MutexLock lock(&mutex_);
    spikes_.erase(job_id);
  }
  if (exit_code != exit_codes::kDiverged) return;
  Alert a;
  a.job_id = job_id;
  a.attempt = attempt;
  a.rule = alert_rule::kDiverged;
  // gammalab-train's log line says where ("diverged at step 40: train/loss is nan"); the attempt's error quotes
  // its log. Without that line (a program of the command contract), the error's first line.
  const std::size_t where = error.find(kDivergedAt);
  a.message = where != std::string::npos ? error.substr(where)
              : error.empty()            ? std::string(exit_codes::meaning(exit_code))
                                         : error;
  if (where != std::string::npos) {
    if (const std::optional<long long> step = decimal_integer(
            a.message.substr(kDivergedAt.size(), a.message.find(':') - kDivergedAt.size()))) {
      a.step = *step;
    }
  }
  store_.raise_alert(a);
}

void AlertCenter::run() {
  const auto period = std::chrono::milliseconds(std::max<std::int64_t>(options_.check_interval_ms, 10));
  while (!stop_) {
    try {
      check(std::chrono::steady_clock::now());
    } catch (const std::exception& e) {
      spdlog::error("alert check failed: {}", e.what());
    }
    for (auto waited = std::chrono::milliseconds(0); waited < period && !stop_;
         waited += std::chrono::milliseconds(10)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
}

void AlertCenter::check(std::chrono::steady_clock::time_point now) {
  check_running(now);
  deliver_new();
}

void AlertCenter::check_running(std::chrono::steady_clock::time_point now) {
  // The clock of a job starts when this coordinator first sees it running (or its step move): a restart never
  // counts the time it was down against a run.
  std::set<std::string> running;
  for (const Store::Progress& p : store_.active_progress()) {
    running.insert(p.job_id);
    Stall& s = stalls_[p.job_id];
    // A start is progress too: a leased job's clock starts again when its trainer starts.
    if (s.attempt != p.attempt || s.step != p.step || s.started != p.started ||
        s.since == std::chrono::steady_clock::time_point{}) {
      s = {p.attempt, p.step, p.started, now, s.alerted && s.attempt == p.attempt};
      continue;
    }
    const auto quiet = std::chrono::duration_cast<std::chrono::milliseconds>(now - s.since).count();
    if (s.alerted || options_.stall_after_ms == 0 || quiet < options_.stall_after_ms) continue;
    s.alerted = true;
    Alert a;
    a.job_id = p.job_id;
    a.attempt = p.attempt;
    a.rule = alert_rule::kStalled;
    a.step = p.step;
    a.message = p.started ? "no new step reported for " + std::to_string(quiet / 1000) + " s (running, at step " +
                                std::to_string(p.step) + "; the stall time is " +
                                std::to_string(options_.stall_after_ms / 1000) + " s)"
                          : "leased " + std::to_string(quiet / 1000) + " s ago and not started (its worker has not "
                                "started its trainer; the stall time is " +
                                std::to_string(options_.stall_after_ms / 1000) + " s)";
    store_.raise_alert(a);  // (once per attempt)
  }
  std::erase_if(stalls_, [&](const auto& entry) { return !running.contains(entry.first); });
  absl::MutexLock lock(&mutex_);
  // A watch whose job is no longer running (its finish never came: a lost worker) is dropped too.
  std::erase_if(spikes_, [&](const auto& entry) { return !running.contains(entry.first); });
}

void AlertCenter::deliver_new() {
  bool truncated = false;
  std::vector<Alert> fresh = store_.alerts("", delivered_through_, 200, truncated);
  if (fresh.empty()) return;
  if (truncated) {
    spdlog::warn("alerts: more than 200 raised since the last check; the older ones are not delivered");
  }
  for (auto it = fresh.rbegin(); it != fresh.rend(); ++it) {  // oldest first
    const Alert& a = *it;
    spdlog::warn("alert {}: {} (job {} '{}', attempt {}, sweep {}): {}", a.id, a.rule, a.job_id, a.job_name,
                 a.attempt, a.sweep_id, a.message);
    if (webhook_) webhook_->post(webhook_body(a));
  }
  delivered_through_ = fresh.front().id;
}

}  // namespace gammalab
