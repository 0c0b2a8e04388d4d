// `more_seeds:` (core/sweep/more_seeds.h): seeds beyond the sweep's own for the jobs whose axis values match, the
// main stage's only, and every wrong entry refused with the field, the limit or the values it could have named.
#include <gtest/gtest.h>

#include <algorithm>

#include <string>
#include <vector>

#include "core/sweep/sweep.h"
#include "sweep_test_support.h"

namespace gammalab {
namespace {

using testing::expand;
using testing::problems;

const char* kLadder = R"(
base: {model: {preset: tiny-0.03m}}
axes:
  grid:
    model.preset: [tiny-0.03m, tiny-0.05m]
    scale.variant: [baseline, unified]
seeds: 2
)";

std::vector<std::string> names_of(const Sweep& sweep) {
  std::vector<std::string> names;
  for (const auto& job : sweep.jobs) names.push_back(job.name);
  return names;
}

std::string message_of(const std::vector<SweepDiagnostic>& all) {
  std::string out;
  for (const auto& d : all) out += d.path + ": " + d.message + "\n";
  return out;
}

TEST(SweepMoreSeeds, AMatchingPointGetsItsSeedsAfterTheSweepsOwnAndNoOtherChanges) {
  const Sweep plain = expand(kLadder);
  const Sweep grown = expand(std::string(kLadder) + "more_seeds:\n  - where: {model.preset: tiny-0.03m}\n"
                                                    "    seeds: [2]\n");
  ASSERT_EQ(plain.jobs.size(), 8u);
  ASSERT_EQ(grown.jobs.size(), 10u) << "seed 2 for both arms at the smallest size";
  EXPECT_EQ(names_of(grown), (std::vector<std::string>{
                                 "tiny-0.03m/baseline/adamw/cosine/s0", "tiny-0.03m/baseline/adamw/cosine/s1",
                                 "tiny-0.03m/baseline/adamw/cosine/s2", "tiny-0.03m/unified/adamw/cosine/s0",
                                 "tiny-0.03m/unified/adamw/cosine/s1", "tiny-0.03m/unified/adamw/cosine/s2",
                                 "tiny-0.05m/baseline/adamw/cosine/s0", "tiny-0.05m/baseline/adamw/cosine/s1",
                                 "tiny-0.05m/unified/adamw/cosine/s0", "tiny-0.05m/unified/adamw/cosine/s1"}));
  EXPECT_EQ(grown.jobs[2].config.seed, 2u);
  // Every job the plain sweep has is in the grown one with the same hash: a resubmission reuses them.
  for (const auto& job : plain.jobs) {
    const bool kept = std::any_of(grown.jobs.begin(), grown.jobs.end(),
                                  [&](const SweepJob& g) { return g.config_hash == job.config_hash; });
    EXPECT_TRUE(kept) << job.name;
  }
  // Two keys narrow it to one arm; two entries for one point add their seeds once each.
  const Sweep one = expand(std::string(kLadder) +
                           "more_seeds:\n"
                           "  - {where: {model.preset: tiny-0.05m, scale.variant: unified}, seeds: [5]}\n"
                           "  - {where: {scale.variant: unified}, seeds: [5, 6]}\n");
  EXPECT_EQ(one.jobs.size(), 8u + 4u) << "unified gets 5 and 6 at both sizes, 5 once";
}

TEST(SweepMoreSeeds, TheTuneStageKeepsItsOwnSeeds) {
  const SweepStages stages = expand_stages(std::string(kLadder) +
                                               "tune:\n  grid:\n    optim.lr: [1e-3, 2e-3]\n  seeds: [100]\n"
                                               "more_seeds:\n  - {where: {model.preset: tiny-0.03m}, seeds: [2]}\n",
                                           "test.yaml", testing::source_tree_options());
  ASSERT_TRUE(stages.tune);
  for (const auto& job : stages.tune->jobs) EXPECT_EQ(job.config.seed, 100u) << job.name;
  EXPECT_EQ(stages.main.jobs.size(), 10u);
}

TEST(SweepMoreSeeds, AWrongEntryIsRefusedWithWhatItCouldHaveNamed) {
  const auto not_axis = problems(std::string(kLadder) + "more_seeds:\n  - {where: {optim.lr: 1e-3}, seeds: [2]}\n");
  EXPECT_NE(message_of(not_axis).find("'optim.lr' is no axis of the sweep; its axes: model.preset, scale.variant"),
            std::string::npos)
      << message_of(not_axis);
  const auto not_value =
      problems(std::string(kLadder) + "more_seeds:\n  - {where: {model.preset: tiny-9m}, seeds: [2]}\n");
  EXPECT_NE(message_of(not_value).find("'tiny-9m' is not one of model.preset's values as written: tiny-0.03m, "
                                       "tiny-0.05m"),
            std::string::npos)
      << message_of(not_value);
  const auto own_seed =
      problems(std::string(kLadder) + "more_seeds:\n  - {where: {model.preset: tiny-0.03m}, seeds: [1]}\n");
  EXPECT_NE(message_of(own_seed).find("seed 1 is already one of the sweep's `seeds`"), std::string::npos)
      << message_of(own_seed);
  const auto shapes = problems(std::string(kLadder) +
                               "more_seeds:\n  - {seeds: [2]}\n  - {where: {model.preset: tiny-0.03m}}\n"
                               "  - {where: {model.preset: tiny-0.03m}, seeds: [2], typo: 1}\n  - 7\n"
                               "  - {where: {model.preset: [a, b]}, seeds: [2]}\n");
  const std::string text = message_of(shapes);
  EXPECT_NE(text.find("has no `where`"), std::string::npos) << text;
  EXPECT_NE(text.find("has no `seeds`"), std::string::npos) << text;
  EXPECT_NE(text.find("unknown key 'typo'"), std::string::npos) << text;
  EXPECT_NE(text.find("expected {where, seeds}"), std::string::npos) << text;
  EXPECT_NE(text.find("expected one value of the axis"), std::string::npos) << text;
  EXPECT_NE(message_of(problems(std::string(kLadder) + "more_seeds: 3\n")).find("expected a list of {where, seeds}"),
            std::string::npos);
}

TEST(SweepMoreSeeds, TheirJobsCountAgainstTheLimitBeforeExpansion) {
  SweepOptions options = testing::source_tree_options();
  options.max_jobs = 9;
  const auto over =
      problems(std::string(kLadder) + "more_seeds:\n  - {where: {model.preset: tiny-0.03m}, seeds: [2]}\n", options);
  EXPECT_NE(message_of(over).find("expands to 10 jobs, more than the limit of 9"), std::string::npos)
      << message_of(over);
  std::string many = std::string(kLadder) + "more_seeds:\n";
  for (int i = 0; i < 1001; ++i) {
    many += "  - {where: {model.preset: tiny-0.03m}, seeds: [" + std::to_string(i + 2) + "]}\n";
  }
  EXPECT_NE(message_of(problems(many)).find("1001 entries, more than the limit of 1000"), std::string::npos);
}

}  // namespace
}  // namespace gammalab
