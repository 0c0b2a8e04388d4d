// The training optimizer: AdamW and Muon updates over the parameter groups, gradient clipping, checkpoint state.
#include "worker/trainer/optim/optimizer.h"

#include <ATen/Parallel.h>
#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "worker/trainer/kernels/adamw_cpu.h"
#include "worker/trainer/optim/muon.h"

namespace gammalab::trainer {

namespace {

// Elements per task when the single-pass kernels run over the intra-op threads.
constexpr std::int64_t kCpuGrain = 16384;

// The single-pass kernels of adamw_cpu take contiguous float32 CPU tensors; others take the ATen ops.
bool cpu_float_contiguous(const at::Tensor& t) {
  return t.device().is_cpu() && t.scalar_type() == at::kFloat && t.is_contiguous();
}

}  // namespace

Optimizer::Optimizer(Model& model, const JobConfig& config)
    : model_(model), spec_(config.optim), groups_(build_param_groups(model.store(), config)) {
  at::NoGradGuard no_grad;
  for (const auto& g : groups_) {
    const at::Tensor& p = model_.store()[g.index];
    m_.push_back(at::zeros_like(p));
    v_.push_back(g.muon ? at::Tensor() : at::zeros_like(p));
  }
}

void Optimizer::zero_grad() {
  for (auto& p : model_.store().params()) {
    if (p.tensor.grad().defined()) p.tensor.mutable_grad().reset();
  }
}

at::Tensor Optimizer::clip_gradients() {
  at::NoGradGuard no_grad;
  std::vector<at::Tensor> grads;
  for (auto& p : model_.store().params()) {
    if (p.tensor.grad().defined()) grads.push_back(p.tensor.grad());
  }
  // All on the CPU: one pass in C++ instead of a norm op per tensor.
  const bool cpu = std::all_of(grads.begin(), grads.end(), cpu_float_contiguous);
  if (grads.empty()) return at::zeros({});
  if (cpu) {
    // Over the intra-op threads, as the ATen ops would be (the sum is the same for a fixed thread count).
    double sum = 0.0;
    for (const at::Tensor& g : grads) {
      const float* x = g.data_ptr<float>();
      sum += at::parallel_reduce(
          0, g.numel(), kCpuGrain, 0.0,
          [x](std::int64_t begin, std::int64_t end, double) { return sum_of_squares(x + begin, end - begin); },
          std::plus<double>());
    }
    const double total = std::sqrt(sum);
    const double coef = spec_.grad_clip > 0 ? std::min(1.0, spec_.grad_clip / (total + 1e-6)) : 1.0;
    if (coef < 1.0) {
      for (auto& g : grads) {
        float* x = g.data_ptr<float>();
        at::parallel_for(0, g.numel(), kCpuGrain, [x, coef](std::int64_t begin, std::int64_t end) {
          scale_in_place(x + begin, end - begin, static_cast<float>(coef));
        });
      }
    }
    return at::scalar_tensor(total, grads.front().options());
  }
  std::vector<at::Tensor> norms;
  for (const at::Tensor& g : grads) norms.push_back(g.norm());
  at::Tensor total = at::stack(norms).norm();
  if (spec_.grad_clip > 0) {
    at::Tensor coef = (spec_.grad_clip / (total + 1e-6)).clamp_max(1.0);
    for (auto& g : grads) g.mul_(coef);
  }
  return total;
}

void Optimizer::step(double mult) {
  at::NoGradGuard no_grad;
  ++t_;
  // Muon's matrices follow the same schedule; their peak LR is optim.lr unless optim.muon_lr overrides it.
  const double lr = spec_.lr * mult, muon_lr = spec_.muon_peak_lr() * mult;
  const double bc1 = 1.0 - std::pow(spec_.beta1, double(t_)), bc2 = 1.0 - std::pow(spec_.beta2, double(t_));
  for (std::size_t i = 0; i < groups_.size(); ++i) {
    const ParamGroup& g = groups_[i];
    at::Tensor p = model_.store()[g.index];
    const at::Tensor& grad = p.grad();
    if (!grad.defined()) continue;
    if (g.muon) {
      muon_update(p, grad, m_[i], muon_lr, spec_.muon_momentum, g.weight_decay, spec_.muon_ns_steps);
      continue;
    }
    if (cpu_float_contiguous(p) && cpu_float_contiguous(grad) && cpu_float_contiguous(m_[i]) &&
        cpu_float_contiguous(v_[i])) {
      const AdamWScalars s{static_cast<float>(1.0 - lr * g.weight_decay), static_cast<float>(spec_.beta1),
                           static_cast<float>(spec_.beta2), static_cast<float>(bc2), static_cast<float>(-lr / bc1),
                           static_cast<float>(spec_.eps)};
      float* pp = p.data_ptr<float>();
      const float* gp = grad.data_ptr<float>();
      float* mp = m_[i].data_ptr<float>();
      float* vp = v_[i].data_ptr<float>();
      at::parallel_for(0, p.numel(), kCpuGrain, [&](std::int64_t begin, std::int64_t end) {
        adamw_update(pp + begin, gp + begin, mp + begin, vp + begin, end - begin, s);
      });
      // As an in-place ATen op would: a graph that still held p would then refuse to run backward.
      p.unsafeGetTensorImpl()->bump_version();
      continue;
    }
    if (g.weight_decay > 0) p.mul_(1.0 - lr * g.weight_decay);
    m_[i].lerp_(grad, 1.0 - spec_.beta1);
    v_[i].mul_(spec_.beta2).addcmul_(grad, grad, 1.0 - spec_.beta2);
    at::Tensor denom = (v_[i] / bc2).sqrt_().add_(spec_.eps);
    p.addcdiv_(m_[i], denom, -lr / bc1);
  }
}

std::map<std::string, at::Tensor> Optimizer::state() const {
  std::map<std::string, at::Tensor> out;
  for (std::size_t i = 0; i < groups_.size(); ++i) {
    const std::string& name = model_.store().params()[static_cast<std::size_t>(groups_[i].index)].name;
    if (groups_[i].muon) {
      out["muon/" + name] = m_[i];
    } else {
      out["adam_m/" + name] = m_[i];
      out["adam_v/" + name] = v_[i];
    }
  }
  return out;
}

// Pairs of (checkpointed tensor, this optimizer's tensor); both are handles to the tensors' storage.
std::vector<std::pair<at::Tensor, at::Tensor>> Optimizer::state_copies(const std::map<std::string, at::Tensor>& state) const {
  std::vector<std::pair<at::Tensor, at::Tensor>> copies;
  auto take = [&](const std::string& key, const at::Tensor& into) {
    auto it = state.find(key);
    if (it == state.end()) throw std::runtime_error("checkpoint lacks optimizer state " + key);
    if (!it->second.sizes().equals(into.sizes())) throw std::runtime_error("optimizer state " + key + " has the wrong shape");
    copies.emplace_back(it->second, into);
  };
  for (std::size_t i = 0; i < groups_.size(); ++i) {
    const std::string& name = model_.store().params()[static_cast<std::size_t>(groups_[i].index)].name;
    if (groups_[i].muon) {
      take("muon/" + name, m_[i]);
    } else {
      take("adam_m/" + name, m_[i]);
      take("adam_v/" + name, v_[i]);
    }
  }
  return copies;
}

void Optimizer::check_state(const std::map<std::string, at::Tensor>& state) const { state_copies(state); }

void Optimizer::load_state(const std::map<std::string, at::Tensor>& state, std::int64_t steps_taken) {
  // Every entry is checked before any is copied, so that a rejected state leaves this optimizer as it was.
  const auto copies = state_copies(state);
  at::NoGradGuard no_grad;
  for (const auto& [from, into] : copies) into.copy_(from);
  t_ = steps_taken;
}

}  // namespace gammalab::trainer
