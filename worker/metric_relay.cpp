#include "worker/metric_relay.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <utility>

#include "proto/convert.h"

namespace gammalab {

namespace {
constexpr std::size_t kMaxPointsPerStream = 20000;
constexpr auto kBatchWindow = std::chrono::milliseconds(200);  // gather points briefly: fewer, larger writes

// The coordinator refused a report as such (out of range, steps going back, unknown job, an attempt that no
// longer holds the job, a job held through another token): it will refuse it again, so it is dropped rather
// than resent for ever. Any other failure may pass: the points stay buffered.
bool is_refusal(const grpc::Status& status) {
  switch (status.error_code()) {
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::NOT_FOUND:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::PERMISSION_DENIED:
      return true;
    default:
      return false;
  }
}
}  // namespace

MetricRelay::MetricRelay(std::shared_ptr<v1::WorkerGateway::Stub> stub, StoredListener on_stored,
                         RefusedListener on_refused)
    : stub_(std::move(stub)),
      on_stored_(std::move(on_stored)),
      on_refused_(std::move(on_refused)),
      thread_([this] { run(); }) {}

MetricRelay::~MetricRelay() {
  {
    absl::MutexLock lock(&mutex_);
    stop_ = true;
  }
  thread_.join();
}

void MetricRelay::add(const std::string& job_id, int attempt, std::vector<MetricPoint> points) {
  if (points.empty()) return;
  absl::MutexLock lock(&mutex_);
  queue_.push_back({job_id, attempt, std::move(points)});
}

void MetricRelay::flush(const std::string& job_id) {
  absl::MutexLock lock(&mutex_);
  const auto sent = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return stop_ || std::none_of(queue_.begin(), queue_.end(), [&](const Batch& b) { return b.job_id == job_id; });
  };
  mutex_.Await(absl::Condition(&sent));
}

std::size_t MetricRelay::buffered() {
  absl::MutexLock lock(&mutex_);
  std::size_t n = 0;
  for (const auto& b : queue_) n += b.points.size();
  return n;
}

grpc::Status MetricRelay::send(const std::vector<Batch>& batches) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  v1::ReportMetricsResponse response;
  auto writer = stub_->ReportMetrics(&context, &response);
  for (const Batch& batch : batches) {
    v1::ReportMetricsRequest request;
    request.set_job_id(batch.job_id);
    request.set_attempt(batch.attempt);
    to_proto(batch.points, request.mutable_points());
    if (!writer->Write(request)) break;
  }
  writer->WritesDone();
  return writer->Finish();
}

void MetricRelay::report_stored(const std::vector<Batch>& batches) const {
  if (!on_stored_) return;
  // A job's batches are in the order its trainer printed them, so its last one carries its last step.
  std::map<std::pair<std::string, int>, std::int64_t> last;
  for (const Batch& b : batches) last[{b.job_id, b.attempt}] = b.points.back().step;
  for (const auto& [job, step] : last) on_stored_(job.first, job.second, step);
}

std::size_t MetricRelay::send_each(const std::vector<Batch>& batches) {
  const grpc::Status status = send(batches);
  if (status.ok()) {
    report_stored(batches);
    return batches.size();
  }
  if (!is_refusal(status)) {
    spdlog::warn("metric upload failed ({}); points stay buffered", status.error_message());
    return 0;
  }
  if (batches.size() == 1) {
    const Batch& refused = batches[0];
    const std::string why = std::to_string(refused.points.size()) + " metric point(s) from step " +
                            std::to_string(refused.points.front().step) + " refused by the coordinator: " +
                            status.error_message();
    spdlog::warn("job {} attempt {}: {}", refused.job_id, refused.attempt, why);
    if (on_refused_) on_refused_(refused.job_id, refused.attempt, why);
    return 1;
  }
  // The stream stopped at the refused batch; the ones before it were stored. Send one at a time (resending a
  // stored batch is harmless) so that only the refused ones are dropped.
  std::size_t handled = 0;
  while (handled < batches.size() && send_each({batches[handled]}) == 1) ++handled;
  return handled;
}

void MetricRelay::run() {
  auto backoff = std::chrono::milliseconds(100);
  const auto work = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return stop_ || !queue_.empty(); };
  // absl::Mutex re-evaluates a waiter's condition whenever the mutex is released: no notifications to miss.
  mutex_.Lock();
  while (true) {
    mutex_.Await(absl::Condition(&work));
    if (queue_.empty() && stop_) break;
    mutex_.Unlock();
    std::this_thread::sleep_for(kBatchWindow);
    mutex_.Lock();
    // Take a prefix of the queue; new points may be appended meanwhile, never inserted before it.
    std::vector<Batch> batches;
    std::size_t points = 0;
    for (const Batch& b : queue_) {
      if (!batches.empty() && points + b.points.size() > kMaxPointsPerStream) break;
      batches.push_back(b);
      points += b.points.size();
    }
    in_flight_ = batches.size();
    mutex_.Unlock();
    const std::size_t handled = send_each(batches);
    mutex_.Lock();
    if (handled > 0) {
      queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(handled));
      backoff = std::chrono::milliseconds(100);
    }
    if (handled < batches.size()) {
      if (stop_) break;  // the coordinator is gone and we are asked to stop: the job will be rerun
      mutex_.Unlock();
      std::this_thread::sleep_for(backoff);
      backoff = std::min(backoff * 2, std::chrono::milliseconds(5000));
      mutex_.Lock();
    }
    in_flight_ = 0;
  }
  mutex_.Unlock();
}

}  // namespace gammalab
