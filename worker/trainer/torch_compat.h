#pragma once
// Version guards: the same code builds against Debian's LibTorch 1.13 and a PyTorch 2.x LibTorch.
#include <torch/torch.h>
#include <torch/version.h>

#include <dlfcn.h>

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/autocast_mode.h>

namespace gammalab::trainer {

inline at::Generator make_cpu_generator(std::uint64_t seed) { return at::detail::createCPUGenerator(seed); }

// Causal attention over [B, H, T, hd]. `mask` is an additive [T, T] bias (0 / -inf) used where no fused
// kernel exists; `twice_differentiable` forces the plain composition (needed for Hessian-vector products).
inline at::Tensor causal_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                   const at::Tensor& mask, bool twice_differentiable) {
#if TORCH_VERSION_MAJOR >= 2
  if (!twice_differentiable) {
    return at::scaled_dot_product_attention(q, k, v, /*attn_mask=*/{}, /*dropout_p=*/0.0, /*is_causal=*/true);
  }
#endif
  (void)twice_differentiable;
  // mask + scale·q kᵀ as one batched GEMM (beta = 1 over the mask): no separate passes over the [T, T] scores to
  // scale them and add the mask, forward or backward.
  const std::int64_t B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
  const double scale = 1.0 / std::sqrt(double(hd));
  const at::Tensor scores = at::baddbmm(mask.expand({B * H, T, T}), q.reshape({B * H, T, hd}),
                                        k.reshape({B * H, T, hd}).transpose(1, 2), /*beta=*/1.0, /*alpha=*/scale);
  return at::bmm(at::softmax(scores, -1), v.reshape({B * H, T, hd})).view({B, H, T, hd});
}

// Intra-op threads for ATen and, when LibTorch's BLAS is OpenBLAS (Debian), for OpenBLAS's own pool, whose
// idle workers otherwise spin and yield against ours on a small machine. Looked up at run time: no link
// dependency on a particular BLAS.
inline void set_cpu_threads(int threads) {
  if (threads <= 0) return;
  at::set_num_threads(threads);
  using SetThreads = void (*)(int);
  if (auto f = reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) f(threads);
}

// bf16 autocast for CUDA runs; the CPU path stays float32.
inline void set_cuda_autocast(bool enabled) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  at::autocast::set_autocast_enabled(at::kCUDA, enabled);
  at::autocast::set_autocast_dtype(at::kCUDA, at::kBFloat16);
#else
  at::autocast::set_enabled(enabled);
  at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
#endif
}

// bf16 CPU autocast (tests use it to exercise the mixed-precision paths without a GPU).
inline void set_cpu_autocast(bool enabled) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  at::autocast::set_autocast_enabled(at::kCPU, enabled);
  at::autocast::set_autocast_dtype(at::kCPU, at::kBFloat16);
#else
  at::autocast::set_cpu_enabled(enabled);
  at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
#endif
}

// Autocast off (CUDA and CPU) for its scope, restored after: for the few ops that must run in float32 whatever
// the autocast dtype (the MoE router). Autocast state is per thread, as is this guard.
class AutocastSuspended {
 public:
  AutocastSuspended() {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    cuda_ = at::autocast::is_autocast_enabled(at::kCUDA);
    cpu_ = at::autocast::is_autocast_enabled(at::kCPU);
    at::autocast::set_autocast_enabled(at::kCUDA, false);
    at::autocast::set_autocast_enabled(at::kCPU, false);
#else
    cuda_ = at::autocast::is_enabled();
    cpu_ = at::autocast::is_cpu_enabled();
    at::autocast::set_enabled(false);
    at::autocast::set_cpu_enabled(false);
#endif
  }
  ~AutocastSuspended() {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    at::autocast::set_autocast_enabled(at::kCUDA, cuda_);
    at::autocast::set_autocast_enabled(at::kCPU, cpu_);
#else
    at::autocast::set_enabled(cuda_);
    at::autocast::set_cpu_enabled(cpu_);
#endif
  }
  AutocastSuspended(const AutocastSuspended&) = delete;
  AutocastSuspended& operator=(const AutocastSuspended&) = delete;

 private:
  bool cuda_ = false, cpu_ = false;
};

}  // namespace gammalab::trainer

#ifdef GAMMALAB_HAVE_GLOO
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
namespace gammalab::trainer {
// What a c10d backend (Gloo, NCCL) derives from: ProcessGroup in 1.13, Backend from 2.0 on (a ProcessGroup
// there dispatches to Backends).
#if TORCH_VERSION_MAJOR >= 2
using CollectiveBackend = c10d::Backend;
#else
using CollectiveBackend = c10d::ProcessGroup;
#endif
}  // namespace gammalab::trainer
#endif
