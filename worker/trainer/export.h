#pragma once
// Export to Hugging Face transformers, in one of two layouts (docs/variants.md, Export):
//  - LlamaForCausalLM (model.safetensors + config.json), when every scale vector folds into a linear map
//    (invariant 1, docs/variants.md, Invariants): input-side γ_b into W's columns, output-side γ_a of AP/DP into
//    W's rows. DNP's γ_a sits after a Norm, QK-norm and MoE have no place in Llama, so those cannot;
//  - the custom-code layout, for every variant: config.json with auto_map, configuration_gammalab.py and
//    modeling_gammalab.py (worker/trainer/hf_model/, the variants in plain PyTorch) beside the parameters as
//    trained, loaded with trust_remote_code=True.
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

enum class ExportLayout {
  Auto,      // Llama when the variant folds into it, the custom-code layout otherwise
  Llama,     // LlamaForCausalLM; refused (with export_blocker's reason) for a variant that does not fold
  Gammalab,  // the custom-code layout, every parameter as trained (OR/ER keep α and β)
};
// "auto", "llama", "gammalab"; std::invalid_argument naming the value otherwise.
ExportLayout parse_export_layout(const std::string& name);

// Writes the model in `layout` (Auto resolved) and returns the layout written.
ExportLayout export_hf(const Model& model, const std::filesystem::path& out_dir, ExportLayout layout = ExportLayout::Auto);
ExportLayout export_checkpoint(const JobConfig& config, const std::filesystem::path& ckpt_dir,
                               const std::filesystem::path& out_dir, ExportLayout layout = ExportLayout::Auto);

// Reads an exported (or any LlamaForCausalLM float32/bf16) model.safetensors + config.json as a baseline model.
std::unique_ptr<Model> load_hf(const std::filesystem::path& dir);

}  // namespace gammalab::trainer
