// The named variants come from configs/variants.yaml: its order, its axes, the documentation's table, and a
// wrong file named with the field.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "core/config_error.h"
#include "core/config_paths.h"
#include "core/model_preset.h"

namespace gammalab {
namespace {

TEST(VariantPresets, TheShippedFileGivesEveryVariantItsAxesInOrder) {
  EXPECT_EQ(variant_names(), (std::vector<std::string>{"none", "baseline", "hg", "ap", "dp", "dnp", "or", "er", "iwd",
                                                       "unified", "qknorm", "dnp_novec", "unified_dp", "seednorm",
                                                       "peri_ln", "peri_ln_owd", "gated", "pre_affine", "ln_scaling",
                                                       "dyt", "derf"}));
  EXPECT_EQ(variant_preset("peri_ln").norm_kind(), NormKind::PeriLn);
  EXPECT_EQ(variant_preset("peri_ln").decay, ScaleDecay::InputOnly) << "γ_out not decayed";
  EXPECT_EQ(variant_preset("peri_ln_owd").decay, ScaleDecay::All) << "γ_out decayed: the falsifiable arm";
  EXPECT_FALSE(variant_preset("baseline").norm) << "the paper's variants leave the field unset (their hashes)";
  const ScaleSpec novec = variant_preset("dnp_novec");
  EXPECT_EQ(novec.sharing, Sharing::None);
  EXPECT_EQ(novec.placement, Placement::DualNorm) << "DNP's Norms stay without any vector";
  const ScaleSpec no_norm = variant_preset("unified_dp");
  EXPECT_EQ(no_norm.sharing, Sharing::Branch);
  EXPECT_EQ(no_norm.placement, Placement::Dual) << "unified's vectors, without DNP's Norm";
  EXPECT_EQ(no_norm.param, ScaleParam::MagDirOrig);
  EXPECT_EQ(no_norm.decay, ScaleDecay::InputOnly);
  const ScaleSpec unified = variant_preset("unified");
  EXPECT_EQ(unified.variant, "unified");
  EXPECT_EQ(unified.sharing, Sharing::Branch);
  EXPECT_EQ(unified.placement, Placement::DualNorm);
  EXPECT_EQ(unified.param, ScaleParam::MagDirOrig);
  EXPECT_EQ(unified.decay, ScaleDecay::InputOnly);
  EXPECT_TRUE(variant_sets_qk_norm("qknorm"));
  EXPECT_FALSE(variant_sets_qk_norm("baseline"));
  EXPECT_FALSE(variant_sets_qk_norm("no-such-variant"));
  try {
    variant_preset("unifed");
    FAIL() << "an unknown variant was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.path(), "scale.variant");
    EXPECT_NE(std::string(e.what()).find("known: none, baseline"), std::string::npos) << e.what();
  }
}

// docs/variants.md's table of named variants, row by row, is the file: name, the four axes, the norm, the source.
TEST(VariantPresets, TheDocumentationTableIsTheFile) {
  std::ifstream doc(shipped_files_root() / "docs" / "variants.md");
  ASSERT_TRUE(doc) << "docs/variants.md";
  const std::regex row(
      R"(^\| `([a-z_]+)` \| `([a-z_]+)` \| `([a-z_]+)` \| `([a-z_]+)` \| `([a-z_]+)` \| `([a-z_]+)` \| (.+) \|$)");
  std::vector<std::string> documented;
  std::string line;
  while (std::getline(doc, line)) {
    std::smatch m;
    if (!std::regex_match(line, m, row)) continue;
    const std::string name = m[1];
    documented.push_back(name);
    const auto& presets = variant_presets();
    const auto it = std::find_if(presets.begin(), presets.end(), [&](const VariantPreset& p) { return p.name == name; });
    ASSERT_NE(it, presets.end()) << "documented but not in configs/variants.yaml: " << name;
    EXPECT_EQ(m[2].str(), enum_name(it->scale.sharing)) << line;
    EXPECT_EQ(m[3].str(), enum_name(it->scale.placement)) << line;
    EXPECT_EQ(m[4].str(), enum_name(it->scale.param)) << line;
    EXPECT_EQ(m[5].str(), enum_name(it->scale.decay)) << line;
    EXPECT_EQ(m[6].str(), enum_name(it->scale.norm_kind())) << line;
    EXPECT_EQ(m[7].str(), it->paper) << line;
  }
  EXPECT_EQ(documented, variant_names());
}

TEST(VariantPresets, AWrongFileIsRefusedNamingTheVariantAndTheField) {
  const auto file = std::filesystem::temp_directory_path() / ("variants_test_" + std::to_string(::getpid()) + ".yaml");
  auto refusal = [&](const std::string& text) {
    std::ofstream(file) << text;
    try {
      read_variant_presets(file);
    } catch (const ConfigError& e) {
      return e.path() + ": " + e.what();
    }
    return std::string("accepted");
  };
  EXPECT_NE(refusal("wide: {sharing: shared, placement: sideways, param: plain, decay: none}").find("wide.placement"),
            std::string::npos);
  EXPECT_NE(refusal("wide: {sharing: shared, placement: before, param: plain}").find("wide.decay"), std::string::npos);
  EXPECT_NE(refusal("wide: {sharing: shared, placement: before, param: plain, decay: none, qk_norm: 3}")
                .find("wide.qk_norm"),
            std::string::npos);
  EXPECT_NE(refusal("[baseline, unified]").find("expected a map"), std::string::npos);
  {
    std::ofstream(file) << "a: {sharing: none, placement: before, param: plain, decay: none}\n"
                           "b: {sharing: branch, placement: dual, param: magdir_exp, decay: all, qk_norm: true}\n";
  }
  const auto ok = read_variant_presets(file);
  ASSERT_EQ(ok.size(), 2u);
  EXPECT_EQ(ok[0].name, "a");
  EXPECT_EQ(ok[1].scale.param, ScaleParam::MagDirExp);
  EXPECT_TRUE(ok[1].qk_norm);
  std::filesystem::remove(file);
}

// $GAMMALAB_CONFIGS may hold only the user's model presets: the variants then come from the shipped file.
TEST(VariantPresets, AConfigsFolderWithoutVariantsUsesTheShippedFile) {
  const auto own = std::filesystem::temp_directory_path() / ("configs_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(own / "models");
  const std::filesystem::path shipped = variant_presets_file();
  ::setenv("GAMMALAB_CONFIGS", own.c_str(), 1);
  EXPECT_EQ(variant_presets_file(), shipped);
  std::ofstream(own / "variants.yaml") << "a: {sharing: none, placement: before, param: plain, decay: none}\n";
  EXPECT_EQ(variant_presets_file(), own / "variants.yaml");
  ::unsetenv("GAMMALAB_CONFIGS");
  std::filesystem::remove_all(own);
}

}  // namespace
}  // namespace gammalab
