#include "worker/trainer/kernels/adamw_cpu.h"

#include <algorithm>
#include <cmath>

#include "worker/trainer/kernels/cpu_vector.h"

namespace gammalab::trainer {

namespace {

GAMMALAB_CPU_CLONES void adamw_range(float* p, const float* g, float* m, float* v, std::int64_t n, AdamWScalars s) {
  const float one_minus_beta1 = 1.f - s.beta1, one_minus_beta2 = 1.f - s.beta2;
  for (std::int64_t j = 0; j < n; ++j) {
    const float mj = m[j] + one_minus_beta1 * (g[j] - m[j]);
    const float vj = s.beta2 * v[j] + one_minus_beta2 * g[j] * g[j];
    p[j] = p[j] * s.decay_factor + s.step_size * mj / (std::sqrt(vj / s.bias_correction2) + s.eps);
    m[j] = mj;
    v[j] = vj;
  }
}

GAMMALAB_CPU_CLONES float squares_range(const float* x, std::int64_t n) { return cpu::sum_of_products(x, x, nullptr, n); }

GAMMALAB_CPU_CLONES void scale_range(float* x, std::int64_t n, float factor) {
  for (std::int64_t j = 0; j < n; ++j) x[j] *= factor;
}

}  // namespace

void scale_in_place(float* x, std::int64_t n, float factor) { scale_range(x, n, factor); }

void adamw_update(float* p, const float* g, float* m, float* v, std::int64_t n, const AdamWScalars& s) {
  adamw_range(p, g, m, v, n, s);
}

double sum_of_squares(const float* x, std::int64_t n) {
  constexpr std::int64_t kChunk = 16384;
  double total = 0.0;
  for (std::int64_t o = 0; o < n; o += kChunk) total += squares_range(x + o, std::min(kChunk, n - o));
  return total;
}

}  // namespace gammalab::trainer
