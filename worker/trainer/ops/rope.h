#pragma once
// Rotary position embedding in the rotate-half convention of Hugging Face Llama, so exported q/k weights need
// no permutation. The cos/sin tables are computed once per model and never require grad.
#include <torch/torch.h>

namespace gammalab::trainer {

struct RopeTables {
  at::Tensor cos;  // [T, 1, head_dim]
  at::Tensor sin;  // [T, 1, head_dim]
};

RopeTables make_rope_tables(std::int64_t seq_len, std::int64_t head_dim, double theta, const at::Device& device);

// x: [B, T, H, head_dim] with T <= the tables' length.
at::Tensor apply_rope(const at::Tensor& x, const RopeTables& tables);

}  // namespace gammalab::trainer
