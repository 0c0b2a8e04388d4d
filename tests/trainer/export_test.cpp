// Export to the Hugging Face LlamaForCausalLM layout: the safetensors file parses (header JSON, offsets,
// dtypes) and loads back into the trainer with the same logits. The custom-code layout: every parameter, named
// for its modules, beside the Python model. (Loading both in transformers: scripts/lib/hf_export_check.py.)
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "tests/trainer/trainer_test_util.h"
#include "worker/trainer/checkpoint.h"
#include "worker/trainer/export.h"
#include "core/file_util.h"
#include "worker/trainer/safetensors.h"

namespace gammalab::trainer {
namespace {

using testing::TempDir;

ModelSpec spec() {
  return {.vocab_size = 64, .n_layers = 2, .d_model = 32, .n_heads = 4, .n_kv_heads = 2, .ffn_hidden = 48,
          .seq_len = 16};
}

void randomize_scales(Model& model) {
  torch::NoGradGuard no_grad;
  torch::manual_seed(21);
  for (auto& p : model.store().params()) {
    if (p.is_scale()) p.tensor.add_(0.2 * torch::randn(p.tensor.sizes()));
  }
}

// Parses the file by hand, independently of decode_safetensors.
TEST(Export, SafetensorsFileIsWellFormed) {
  TempDir dir;
  Model model(spec(), variant_preset("baseline"));
  model.init(3);
  export_hf(model, dir.path);
  const std::string bytes = read_file(dir.path / "model.safetensors");
  ASSERT_GT(bytes.size(), 8u);
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= std::uint64_t(static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)])) << (8 * i);
  ASSERT_LE(8 + n, bytes.size());
  EXPECT_EQ((8 + n) % 8, 0u);
  const auto header = nlohmann::json::parse(bytes.substr(8, n));
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  std::uint64_t total = 0;
  for (const auto& [name, info] : header.items()) {
    if (name == "__metadata__") continue;
    EXPECT_EQ(info.at("dtype"), "F32") << name;
    std::uint64_t numel = 1;
    for (auto d : info.at("shape")) numel *= d.get<std::uint64_t>();
    const auto off = info.at("data_offsets").get<std::vector<std::uint64_t>>();
    EXPECT_EQ(off[1] - off[0], 4 * numel) << name;
    ranges.emplace_back(off[0], off[1]);
    total += 4 * numel;
  }
  std::sort(ranges.begin(), ranges.end());
  for (std::size_t i = 1; i < ranges.size(); ++i) EXPECT_EQ(ranges[i].first, ranges[i - 1].second);  // no gaps
  EXPECT_EQ(ranges.front().first, 0u);
  EXPECT_EQ(8 + n + total, bytes.size());
  // Hugging Face names and shapes.
  EXPECT_EQ(header.at("model.layers.1.self_attn.k_proj.weight").at("shape"), nlohmann::json({16, 32}));
  EXPECT_EQ(header.at("model.layers.0.mlp.down_proj.weight").at("shape"), nlohmann::json({32, 48}));
  for (const char* key : {"model.embed_tokens.weight", "model.norm.weight", "lm_head.weight",
                          "model.layers.0.input_layernorm.weight", "model.layers.0.post_attention_layernorm.weight"}) {
    EXPECT_TRUE(header.contains(key)) << key;
  }
  EXPECT_EQ(header.size(), 3u + 9u * 2u + 1u);  // + __metadata__
  const auto config = nlohmann::json::parse(read_file(dir.path / "config.json"));
  EXPECT_EQ(config.at("architectures")[0], "LlamaForCausalLM");
  EXPECT_EQ(config.at("num_key_value_heads"), 2);
  EXPECT_EQ(config.at("intermediate_size"), 48);
}

TEST(Export, RoundTripGivesTheSameLogits) {
  torch::manual_seed(5);
  const at::Tensor tokens = torch::randint(64, {2, 16}, torch::kLong);
  for (const std::string variant : {"baseline", "hg", "ap", "dp", "or", "er", "none"}) {
    TempDir dir;
    Model model(spec(), variant_preset(variant));
    model.init(4);
    randomize_scales(model);
    export_hf(model, dir.path);
    const auto loaded = load_hf(dir.path);
    torch::NoGradGuard no_grad;
    const at::Tensor a = model.logits(tokens), b = loaded->logits(tokens);
    if (variant == "baseline" || variant == "none") {
      EXPECT_TRUE(torch::equal(a, b)) << variant;  // same tensors, same computation
    } else {
      EXPECT_TRUE(torch::allclose(a, b, 1e-4, 1e-5)) << variant << " " << (a - b).abs().max().item<double>();
    }
  }
}

TEST(Export, DnpAndMoeAreRefusedWithAReason) {
  Model dnp(spec(), variant_preset("unified"));
  ASSERT_TRUE(export_blocker(dnp).has_value());
  EXPECT_NE(export_blocker(dnp)->find("DNP"), std::string::npos);
  ModelSpec moe = spec();
  moe.moe.n_experts = 4;
  EXPECT_TRUE(export_blocker(Model(moe, variant_preset("baseline"))).has_value());
}

TEST(Export, VariantsThatDoNotFoldAreWrittenAsCustomCodeAndRefusedAsLlama) {
  ModelSpec moe = spec();
  moe.moe.n_experts = 4;
  moe.moe.router_scale = true;
  Model model(moe, variant_preset("unified"));
  TempDir refused, written;
  try {
    export_hf(model, refused.path, ExportLayout::Llama);
    FAIL() << "a DNP model was written as LlamaForCausalLM";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("--layout gammalab"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(refused.path / "model.safetensors"));

  ASSERT_EQ(export_hf(model, written.path), ExportLayout::Gammalab);
  const auto config = nlohmann::json::parse(read_file(written.path / "config.json"));
  EXPECT_EQ(config.at("auto_map").at("AutoModelForCausalLM"), "modeling_gammalab.GammalabForCausalLM");
  EXPECT_EQ(config.at("scale_placement"), "dual_norm");
  EXPECT_EQ(config.at("scale_param"), "magdir_orig");
  EXPECT_EQ(config.at("num_experts"), 4);
  EXPECT_NE(read_file(written.path / "modeling_gammalab.py").find("class GammalabForCausalLM"), std::string::npos);
  EXPECT_NE(read_file(written.path / "configuration_gammalab.py").find("class GammalabConfig"), std::string::npos);
  // Every parameter once, under its module path: OR's α and β both kept.
  const SafeTensors st = read_safetensors(written.path / "model.safetensors");
  EXPECT_EQ(st.tensors.size(), model.store().params().size());
  for (const char* name : {"model.tok_embeddings.weight", "model.layers.0.attn.q_in.alpha", "model.layers.0.attn.q_in.beta",
                           "model.layers.1.ffn.router_in.alpha", "model.layers.1.ffn.experts.3.up_out.beta",
                           "model.layers.1.ffn.experts.3.down.weight", "model.norm.alpha", "lm_head.weight"}) {
    EXPECT_NE(st.find(name), nullptr) << name;
  }
  EXPECT_THROW(parse_export_layout("onnx"), std::invalid_argument);
}

TEST(Export, FromACheckpointDirectory) {
  TempDir ckpt, out;
  JobConfig c;
  c.model = spec();
  c.scale = variant_preset("hg");
  Model model(c.model, c.scale);
  model.init(8);
  randomize_scales(model);
  CheckpointMeta meta;
  meta.step = 7;
  meta.config = to_json(c);
  save_checkpoint(ckpt.path, model, nullptr, meta);
  export_checkpoint(c, ckpt.path, out.path);
  const auto loaded = load_hf(out.path);
  torch::manual_seed(6);
  const at::Tensor tokens = torch::randint(64, {2, 16}, torch::kLong);
  torch::NoGradGuard no_grad;
  EXPECT_TRUE(torch::allclose(model.logits(tokens), loaded->logits(tokens), 1e-4, 1e-5));
}

}  // namespace
}  // namespace gammalab::trainer
