#include "worker/trainer/ops/rope.h"

namespace gammalab::trainer {

RopeTables make_rope_tables(std::int64_t seq_len, std::int64_t head_dim, double theta, const at::Device& device) {
  at::NoGradGuard no_grad;
  auto opts = at::TensorOptions().dtype(at::kDouble);
  at::Tensor inv_freq = at::pow(theta, -at::arange(0, head_dim, 2, opts) / double(head_dim));  // [hd/2]
  at::Tensor angles = at::outer(at::arange(seq_len, opts), inv_freq);                           // [T, hd/2]
  angles = at::cat({angles, angles}, -1).unsqueeze(1);                                          // [T, 1, hd]
  return {angles.cos().to(at::kFloat).to(device), angles.sin().to(at::kFloat).to(device)};
}

namespace {

at::Tensor rotate_half(const at::Tensor& x) {
  const std::int64_t half = x.size(-1) / 2;
  return at::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
}

}  // namespace

at::Tensor apply_rope(const at::Tensor& x, const RopeTables& t) {
  const std::int64_t T = x.size(1);
  at::Tensor cos = t.cos.narrow(0, 0, T), sin = t.sin.narrow(0, 0, T);
  return x * cos + rotate_half(x) * sin;
}

}  // namespace gammalab::trainer
