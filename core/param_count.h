#pragma once
// Analytic parameter counts of a model, without building it. The trainer's tests check that the LibTorch
// model has exactly these counts, so sweeps can derive budgets (tokens = 100 * params) without LibTorch.
#include <cstdint>

#include "core/job_config.h"

namespace gammalab {

struct ParamCounts {
  std::int64_t total = 0;
  std::int64_t activated = 0;      // per token (MoE: top_k of the experts); equals total for dense models
  std::int64_t embedding = 0;      // token embedding (LM head is counted in total and non_embedding)
  std::int64_t scale_vectors = 0;  // every γ, α and β (docs/variants.md, Axes)
  std::int64_t input_norm = 0;     // of scale_vectors: Input-Norm role
  std::int64_t output_norm = 0;    // of scale_vectors: Output-Norm role
  // The parameters a 2026 arm's Pre-Norms add beside scale vectors (docs/variants.md, "The 2026 arms"): DyT's
  // and Derf's α, s and bias, SeeDNorm's α and β, GatedNorm's two matrices. Counted in N: GatedNorm's are not
  // negligible at small widths.
  std::int64_t norm_params = 0;
  std::int64_t non_embedding() const { return total - embedding; }
  // N as the scaling fits count it (core/scaling/run_point.h): activated per token, without the embedding.
  std::int64_t fitted() const { return activated - embedding; }
  double scale_fraction() const { return total > 0 ? double(scale_vectors) / double(total) : 0.0; }
};

ParamCounts count_params(const ModelSpec& model, const ScaleSpec& scale);

// A sweep's `params` (docs/sweeps.md): the baseline's model at this shape (one γ per norm, no QK-norm, whose
// switch is part of what a control tests, not of the size), activated per token. Token budgets are written in
// it, and a tune stage's size rule reads it.
std::int64_t sweep_params(const ModelSpec& model);

// Training FLOPs per token: 6 N (activated, non-embedding) + 12 L d seq (attention), as in nanoGPT's MFU.
double flops_per_token(const ModelSpec& model, const ScaleSpec& scale);

// N and FLOPs per token of a job as the fits and the planner count them: for a program of the user's own that
// declares its N (JobConfig::declared_params, docs/own-program.md) that N and 6 N; else the two above.
double job_fitted_params(const JobConfig& config);
double job_flops_per_token(const JobConfig& config);
// D of a job as the fits count it: the tokens it declares (JobConfig::declared_tokens: an imported run, or a
// program whose steps are not batch_tokens each), else steps * batch_tokens.
double job_fitted_tokens(const JobConfig& config);

}  // namespace gammalab
