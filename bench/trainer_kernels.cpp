// What DNP's Norms cost inside the fused CPU kernels: the forward pass alone and forward + backward of SwiGLU (on
// the fused gate|up projection) and of the q/k/v split + RoPE + head layout, each without and with the Norms (unified's whole-branch
// DNP, γ_a as the weight), at the sizes of the tiny-2m and tiny-8m presets. Prints the median ms per 4,096 tokens
// and the difference, the part of unified's step-time overhead that these kernels carry.
//   bench_trainer_kernels [--steps N] [--d-model D...]
// The two variants of each kernel alternate, so drift on a shared machine falls on both alike.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include <CLI/CLI.hpp>

#include "worker/trainer/ops/qkv_heads.h"
#include "worker/trainer/ops/swiglu.h"
#include "worker/trainer/ops/rope.h"
#include "worker/trainer/torch_compat.h"

namespace {

using namespace gammalab::trainer;

template <class F>
double elapsed_ms(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Alternates plain() and normed() `steps` times after one warm-up call each; prints the medians.
template <class Plain, class Normed>
void compare(const char* what, std::int64_t d, int steps, Plain&& plain, Normed&& normed) {
  plain();
  normed();
  std::vector<double> a, b;
  for (int i = 0; i < steps; ++i) {
    a.push_back(elapsed_ms(plain));
    b.push_back(elapsed_ms(normed));
  }
  const double ma = median(a), mb = median(b);
  std::printf("%-12s d=%-4lld %12.3f %12.3f %+10.3f %8.3f\n", what, static_cast<long long>(d), ma, mb, mb - ma,
              mb / ma);
}

void run(std::int64_t d, int steps) {
  constexpr std::int64_t B = 32, T = 128, kHeadDim = 32;  // 4,096 tokens, as bench_trainer_step
  const std::int64_t F = 8 * d / 3, heads = d / kHeadDim;
  torch::manual_seed(0);

  const at::Tensor gate_up = torch::randn({B, T, 2 * F}).requires_grad_();
  const at::Tensor grad_h = torch::randn({B, T, F});
  const SwigluNorm norm{torch::ones({F}).requires_grad_(), torch::ones({F}).requires_grad_(), 0, 0, 1e-5};
  compare("swiglu fwd", d, steps, [&] { swiglu(gate_up.detach(), nullptr, true); },
          [&] { swiglu(gate_up.detach(), &norm, true); });
  compare("swiglu f+b", d, steps, [&] { swiglu(gate_up, nullptr, true).backward(grad_h); },
          [&] { swiglu(gate_up, &norm, true).backward(grad_h); });

  const at::Tensor qkv = torch::randn({B, T, 3 * d}).requires_grad_();
  const at::Tensor grad_head = torch::randn({B, heads, T, kHeadDim});
  const RopeTables rope = make_rope_tables(T, kHeadDim, 10000.0, at::kCPU);
  std::array<std::vector<HeadNorm>, 3> none, dnp;
  for (auto& n : dnp) n.push_back({torch::ones({d}).requires_grad_(), 0});
  auto qkv_step = [&](const std::array<std::vector<HeadNorm>, 3>& norms) {
    const QkvHeads out = qkv_heads(qkv, {heads, heads, kHeadDim}, norms, 1e-5, rope, true);
    torch::autograd::backward({out.q, out.k, out.v}, {grad_head, grad_head, grad_head});
  };
  auto qkv_forward = [&](const std::array<std::vector<HeadNorm>, 3>& norms) {
    torch::NoGradGuard no_grad;
    qkv_heads(qkv, {heads, heads, kHeadDim}, norms, 1e-5, rope, true);
  };
  compare("qkv fwd", d, steps, [&] { qkv_forward(none); }, [&] { qkv_forward(dnp); });
  compare("qkv f+b", d, steps, [&] { qkv_step(none); }, [&] { qkv_step(dnp); });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Fused CPU kernels without and with DNP's Norms"};
  int steps = 200;
  std::vector<std::int64_t> d_models = {160, 288};
  app.add_option("--steps", steps, "timed calls per kernel and variant")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--d-model", d_models, "model widths (tiny-2m: 160, tiny-8m: 288)")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  gammalab::trainer::set_cpu_threads(1);
  std::printf("one thread, per 4,096 tokens, medians of %d calls (fwd: forward alone; f+b: forward + backward)\n",
              steps);
  std::printf("%-12s %-6s %12s %12s %10s %8s\n", "kernel", "width", "plain ms", "with Norms", "diff ms", "ratio");
  for (std::int64_t d : d_models) run(d, steps);
  return 0;
}
