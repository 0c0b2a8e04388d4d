#pragma once
// Folding scale vectors into the following linear maps (invariant 1, see docs/variants.md, Invariants) and
// export to the Hugging Face LlamaForCausalLM layout (model.safetensors + config.json). A variant can be
// exported when every scale vector is foldable (docs/variants.md, Export): input-side γ_b (into W's columns)
// and output-side γ_a of AP/DP (into W's rows); the γ_a of DNP sits after a Norm and QK-norm has no place in
// LlamaForCausalLM, so those cannot.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "core/job_config.h"
#include "worker/trainer/model/model.h"

namespace gammalab::trainer {

// Why the model cannot be written as LlamaForCausalLM, or nullopt if it can.
std::optional<std::string> export_blocker(const Model& model);

// In place: every foldable scale vector is multiplied into its linear map and reset to γ = 1 (the final norm's
// into lm_head). The logits are unchanged up to rounding.
void fold_scales(Model& model);

void export_hf(const Model& model, const std::filesystem::path& out_dir);
void export_checkpoint(const JobConfig& config, const std::filesystem::path& ckpt_dir, const std::filesystem::path& out_dir);

// Reads an exported (or any LlamaForCausalLM float32/bf16) model.safetensors + config.json as a baseline model.
std::unique_ptr<Model> load_hf(const std::filesystem::path& dir);

}  // namespace gammalab::trainer
