#include "worker/trainer/parallel/gradient_sync.h"

#include <chrono>
#include <stdexcept>

namespace gammalab::trainer {

GradientSync::GradientSync(Collectives& collectives, std::vector<at::Tensor> params, std::int64_t bucket_bytes)
    : collectives_(collectives), params_(std::move(params)) {
  if (params_.empty()) throw std::invalid_argument("GradientSync: no parameters");
  const at::TensorOptions options = params_.front().options().requires_grad(false);
  slots_.resize(params_.size());
  // Reverse order: the last parameters (head, final norm) get their gradients first.
  std::vector<std::vector<int>> members(1);
  std::int64_t bytes = 0;
  for (int i = static_cast<int>(params_.size()) - 1; i >= 0; --i) {
    const at::Tensor& p = params_[static_cast<std::size_t>(i)];
    if (p.scalar_type() != options.dtype().toScalarType() || p.device() != options.device()) {
      throw std::invalid_argument("GradientSync: parameters of mixed dtype or device");
    }
    const std::int64_t b = p.numel() * static_cast<std::int64_t>(p.element_size());
    if (!members.back().empty() && bytes + b > bucket_bytes) {
      members.emplace_back();
      bytes = 0;
    }
    members.back().push_back(i);
    bytes += b;
  }
  for (std::size_t k = 0; k < members.size(); ++k) {
    Bucket bucket;
    std::int64_t offset = 0;
    for (int i : members[k]) {
      Slot& s = slots_[static_cast<std::size_t>(i)];
      s.bucket = static_cast<int>(k);
      s.offset = offset;
      s.numel = params_[static_cast<std::size_t>(i)].numel();
      offset += s.numel;
    }
    bucket.flat = at::zeros({offset}, options);
    bucket.params = members[k];
    buckets_.push_back(std::move(bucket));
  }
  had_grad_ = at::zeros({static_cast<std::int64_t>(params_.size())}, options.dtype(at::kDouble));
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const int index = static_cast<int>(i);
    // A leaf's hook sees the gradient of this backward, summed over its uses, before it is accumulated.
    params_[i].register_hook([this, index](const at::Tensor& grad) { on_gradient(index, grad); });
  }
}

GradientSync::~GradientSync() = default;

void GradientSync::arm() {
  for (Slot& s : slots_) s.filled = false;
  for (Bucket& b : buckets_) {
    b.pending = static_cast<int>(b.params.size());
    b.work.reset();
  }
  had_grad_.zero_();
  next_launch_ = 0;
  armed_ = true;
}

void GradientSync::fill(int param, const at::Tensor& incoming) {
  at::NoGradGuard no_grad;
  Slot& s = slots_[static_cast<std::size_t>(param)];
  const at::Tensor& p = params_[static_cast<std::size_t>(param)];
  at::Tensor slot = buckets_[static_cast<std::size_t>(s.bucket)].flat.narrow(0, s.offset, s.numel).view(p.sizes());
  const at::Tensor& earlier = p.grad();  // the step's earlier micro-batches, accumulated locally
  if (incoming.defined()) {
    if (earlier.defined()) {
      at::add_out(slot, earlier, incoming);
    } else {
      slot.copy_(incoming);
    }
  } else if (earlier.defined()) {
    slot.copy_(earlier);
  } else {
    slot.zero_();  // this rank contributes nothing; another may
  }
  if (incoming.defined() || earlier.defined()) had_grad_[param] = 1.0;
  s.filled = true;
  --buckets_[static_cast<std::size_t>(s.bucket)].pending;
}

void GradientSync::on_gradient(int param, const at::Tensor& grad) {
  if (!armed_ || slots_[static_cast<std::size_t>(param)].filled) return;
  fill(param, grad);
  launch_ready();
}

// Buckets start strictly in index order: every rank must issue the same collectives in the same order.
void GradientSync::launch_ready() {
  while (next_launch_ < static_cast<int>(buckets_.size()) && buckets_[static_cast<std::size_t>(next_launch_)].pending == 0) {
    Bucket& b = buckets_[static_cast<std::size_t>(next_launch_)];
    b.work.emplace(collectives_.sum_async(b.flat));
    ++next_launch_;
  }
}

std::vector<double> GradientSync::finish(const std::vector<double>& scalars) {
  if (!armed_) throw std::logic_error("GradientSync::finish without arm");
  armed_ = false;
  for (std::size_t i = 0; i < params_.size(); ++i) {
    if (!slots_[i].filled) fill(static_cast<int>(i), at::Tensor());
  }
  launch_ready();
  const std::int64_t n = had_grad_.numel();
  at::Tensor control = at::empty({n + static_cast<std::int64_t>(scalars.size())}, had_grad_.options());
  control.narrow(0, 0, n).copy_(had_grad_);
  if (!scalars.empty()) {
    control.narrow(0, n, static_cast<std::int64_t>(scalars.size()))
        .copy_(at::tensor(at::ArrayRef<double>(scalars), at::kDouble));
  }
  PendingCollective control_work = collectives_.sum_async(control);

  const auto start = std::chrono::steady_clock::now();
  for (Bucket& b : buckets_) b.work->wait();
  control_work.wait();
  last_wait_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  at::NoGradGuard no_grad;
  const double inv = 1.0 / double(collectives_.size());
  const at::Tensor summed = control.to(at::kCPU);  // NCCL reduces on the device
  const auto* any = summed.data_ptr<double>();
  for (Bucket& b : buckets_) b.flat.mul_(inv);
  for (std::size_t i = 0; i < params_.size(); ++i) {
    at::Tensor& p = params_[i];
    if (any[i] == 0.0) {
      p.mutable_grad().reset();
      continue;
    }
    const Slot& s = slots_[i];
    // The gradient becomes a view of its bucket: no copy back. zero_grad() drops the view before the next step.
    p.mutable_grad() = buckets_[static_cast<std::size_t>(s.bucket)].flat.narrow(0, s.offset, s.numel).view(p.sizes());
  }
  std::vector<double> out(scalars.size());
  for (std::size_t k = 0; k < scalars.size(); ++k) out[k] = any[n + static_cast<std::int64_t>(k)];
  return out;
}

}  // namespace gammalab::trainer
