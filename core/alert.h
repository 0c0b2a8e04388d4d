#pragma once
// Alerts: what the coordinator raises when a run needs a look, so that a diverged, spiking, stalled or orphaned
// run is found without looking at every curve (docs/alerts.md). One alert per rule and attempt at most: a rule
// that keeps holding does not raise it again, and a resent report cannot raise a second. Alerts are stored with
// the jobs (server/store/alerts.cpp); the dashboard, the CLI, Prometheus and an optional webhook read them there.
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

namespace gammalab {

namespace alert_rule {
// The run's loss became non-finite: gammalab-train (or a program of the command contract) exited with
// exit_codes::kDiverged.
inline constexpr std::string_view kDiverged = "diverged";
// train/loss rose above LossSpikeWatch's ratio times the mean of its previous points.
inline constexpr std::string_view kLossSpike = "loss_spike";
// A running job reported no new step for the coordinator's stall time.
inline constexpr std::string_view kStalled = "stalled";
// The worker running the job stopped heartbeating and its lease expired: the attempt is lost.
inline constexpr std::string_view kWorkerLost = "worker_lost";
inline constexpr std::array<std::string_view, 4> kAll = {kDiverged, kLossSpike, kStalled, kWorkerLost};
}  // namespace alert_rule

struct Alert {
  std::int64_t id = 0;  // increasing in the order raised; 0 before it is stored
  std::string sweep_id;
  std::string sweep_name;  // read with it (what a webhook's text names); not on the wire, where sweep_id is
  std::string job_id;
  std::string job_name;
  int attempt = 0;
  std::string rule;  // one of alert_rule::kAll
  std::optional<std::int64_t> step;
  std::optional<double> value;
  std::string message;  // one line, bounded by kMaxAlertMessageBytes
  std::int64_t raised_ms = 0;
};

// An alert's message quotes a failed attempt's first line at most: bounded, so that a program's error text
// cannot make alerts large.
inline constexpr std::size_t kMaxAlertMessageBytes = 512;

// The loss-spike rule over one attempt's train/loss points: a point is a spike when it is more than `ratio`
// times the mean of the previous kWindow points (once kMinPoints are there). Early in training the loss falls,
// so the mean of the previous points lies above it and a falling curve never trips the rule; a rise by half
// within a few log steps is what a loss spike looks like (the divergences of the paper's Figure 1 start so).
class LossSpikeWatch {
 public:
  static constexpr std::size_t kWindow = 16;
  static constexpr std::size_t kMinPoints = 8;
  explicit LossSpikeWatch(double ratio) : ratio_(ratio) {}

  // The alert's message when the point at `step` is a spike, else nullopt. Steps at or before the last one
  // seen are resends or replays of a resumed attempt: ignored. Non-finite values are the diverged rule's.
  std::optional<std::string> add(std::int64_t step, double value);
  // The mean the last add() compared against (for the alert's record).
  double last_mean() const { return last_mean_; }

 private:
  double ratio_;
  std::int64_t last_step_ = -1;
  std::deque<double> window_;
  double last_mean_ = 0.0;
};

// The first line of `text`, bounded by kMaxAlertMessageBytes at a character boundary, control characters
// replaced: what an alert quotes of an error.
std::string alert_message_line(std::string_view text);

}  // namespace gammalab
