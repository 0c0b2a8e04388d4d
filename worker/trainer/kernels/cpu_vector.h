#pragma once
// Building blocks of the hand-vectorised CPU kernels (norm_rows, swiglu, qkv_heads), on GCC/Clang vector types.
#include <cstdint>

// An AVX2 + FMA build (x86-64-v3) of a kernel next to the default one, chosen at load time where the CPU has it.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GAMMALAB_CPU_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define GAMMALAB_CPU_CLONES
#endif

namespace gammalab::trainer::cpu {

// Eight floats; aligned(4) allows unaligned loads, may_alias loads from float arrays. Without AVX the compiler
// splits each into two SSE vectors.
using Vec8 = float __attribute__((vector_size(32), aligned(4), may_alias));
constexpr std::int64_t kWidth = 8;

// A pointer, not a value: a function returning a vector, built without AVX, would change the ABI.
inline const Vec8* vec(const float* p) { return reinterpret_cast<const Vec8*>(p); }
inline Vec8* vec(float* p) { return reinterpret_cast<Vec8*>(p); }

inline float horizontal_sum(const Vec8& v) { return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7])); }

// Σ a[j]·b[j]·c[j] over n entries (c null: Σ a[j]·b[j]). Four independent accumulators, so that an add does not
// wait for the previous one, and a tree for the horizontal sum: a float[32] of partial sums left the compiler
// spilling the lanes to the stack and adding them one after another, a chain of 32 dependent adds per call that
// cost more than the loop itself on rows of a few hundred floats.
inline float sum_of_products(const float* a, const float* b, const float* c, std::int64_t n) {
  Vec8 acc[4] = {};
  std::int64_t j = 0;
  if (c == nullptr) {
    for (; j + 4 * kWidth <= n; j += 4 * kWidth) {
      for (int k = 0; k < 4; ++k) acc[k] += *vec(a + j + k * kWidth) * *vec(b + j + k * kWidth);
    }
    for (; j + kWidth <= n; j += kWidth) acc[0] += *vec(a + j) * *vec(b + j);
  } else {
    for (; j + 4 * kWidth <= n; j += 4 * kWidth) {
      for (int k = 0; k < 4; ++k) acc[k] += *vec(a + j + k * kWidth) * *vec(b + j + k * kWidth) * *vec(c + j + k * kWidth);
    }
    for (; j + kWidth <= n; j += kWidth) acc[0] += *vec(a + j) * *vec(b + j) * *vec(c + j);
  }
  float sum = horizontal_sum((acc[0] + acc[1]) + (acc[2] + acc[3]));
  for (; j < n; ++j) sum += a[j] * b[j] * (c == nullptr ? 1.f : c[j]);
  return sum;
}

}  // namespace gammalab::trainer::cpu
