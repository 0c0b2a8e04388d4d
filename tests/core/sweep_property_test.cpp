// Property: any valid sweep document expands to (product of its axis sizes) x (number of seeds) jobs, with
// unique names and unique config hashes. Documents come from a seeded generator, so failures reproduce.
#include <algorithm>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "core/sweep/sweep.h"
#include "sweep_test_support.h"

namespace gammalab {
namespace {

struct AxisPool {
  std::string key;
  std::vector<std::string> values;  // distinct, as YAML scalars
  bool zippable;
};

const std::vector<AxisPool> kPools = {
    {"model.preset", {"tiny-0.03m", "tiny-0.05m", "tiny-0.1m", "tiny-0.2m"}, true},
    {"scale.variant", {"none", "baseline", "hg", "ap", "dp", "dnp", "or", "er", "iwd", "unified"}, true},
    {"optim.name", {"adamw", "muon"}, true},
    {"schedule.kind", {"cosine", "wsd", "constant"}, true},
    {"optim.lr", {"1e-3", "2e-3", "3e-3", "4e-3", "5e-3"}, true},
    {"optim.weight_decay", {"0.0", "0.05", "0.1", "0.2"}, true},
    {"model.qk_norm", {"true", "false"}, false},
    {"log_every", {"1", "2", "5", "10"}, true},
    {"tokens", {"10 * batch_tokens", "20 * batch_tokens", "round(params / batch_tokens) * batch_tokens"}, true},
};

struct GeneratedSweep {
  std::string yaml;
  std::size_t expected_jobs;
};

std::string list(const std::vector<std::string>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    const bool quote = values[i].find(' ') != std::string::npos;  // expressions; quoting keeps them text
    out += (i ? ", " : "") + (quote ? "\"" + values[i] + "\"" : values[i]);
  }
  return out + "]";
}

GeneratedSweep generate(std::mt19937& rng) {
  auto uniform = [&](std::size_t lo, std::size_t hi) { return std::uniform_int_distribution<std::size_t>(lo, hi)(rng); };
  std::vector<std::size_t> order(kPools.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  const std::size_t n_axes = uniform(0, 4);

  std::string grid, zip;
  std::size_t expected = 1, zip_length = 0;
  std::vector<std::size_t> zipped;
  for (std::size_t a = 0; a < n_axes; ++a) {
    const AxisPool& pool = kPools[order[a]];
    if (pool.zippable && uniform(0, 2) == 0) {
      zipped.push_back(order[a]);
      continue;
    }
    std::vector<std::string> values = pool.values;
    std::shuffle(values.begin(), values.end(), rng);
    values.resize(uniform(1, values.size()));
    grid += "    " + pool.key + ": " + list(values) + "\n";
    expected *= values.size();
  }
  if (!zipped.empty()) {
    std::size_t longest = 100;
    for (auto p : zipped) longest = std::min(longest, kPools[p].values.size());
    zip_length = uniform(1, longest);
    for (auto p : zipped) {
      std::vector<std::string> values = kPools[p].values;
      std::shuffle(values.begin(), values.end(), rng);
      values.resize(zip_length);
      zip += "    " + kPools[p].key + ": " + list(values) + "\n";
    }
    expected *= zip_length;
  }

  std::string seeds;
  if (uniform(0, 1) == 0) {
    const std::size_t n = uniform(1, 3);
    seeds = "seeds: " + std::to_string(n) + "\n";
    expected *= n;
  } else {
    std::vector<std::string> values = {"0", "3", "11", "42"};
    std::shuffle(values.begin(), values.end(), rng);
    values.resize(uniform(1, values.size()));
    seeds = "seeds: [";
    for (std::size_t i = 0; i < values.size(); ++i) seeds += (i ? ", " : "") + values[i];
    seeds += "]\n";
    expected *= values.size();
  }

  std::string yaml = "name: generated\nbase:\n  model: {preset: tiny-0.03m}\n  batch_tokens: 1024\n"
                     "  schedule: {warmup_steps: floor(0.1 * steps)}\n";
  if (!grid.empty() || !zip.empty()) {
    yaml += "axes:\n";
    if (uniform(0, 1) == 0) {  // grid and zip blocks in either order
      if (!grid.empty()) yaml += "  grid:\n" + grid;
      if (!zip.empty()) yaml += "  zip:\n" + zip;
    } else {
      if (!zip.empty()) yaml += "  zip:\n" + zip;
      if (!grid.empty()) yaml += "  grid:\n" + grid;
    }
  }
  return {yaml + seeds, expected};
}

TEST(SweepProperty, JobCountIsTheProductOfAxisSizesTimesSeeds) {
  std::mt19937 rng(20260526);
  std::size_t total_jobs = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const GeneratedSweep generated = generate(rng);
    SCOPED_TRACE(generated.yaml);
    Sweep sweep;
    try {
      sweep = testing::expand(generated.yaml);
    } catch (const SweepError& e) {
      FAIL() << e.what();
    }
    ASSERT_EQ(sweep.jobs.size(), generated.expected_jobs);
    std::set<std::string> names, hashes;
    for (const auto& job : sweep.jobs) {
      names.insert(job.name);
      hashes.insert(job.config_hash);
    }
    EXPECT_EQ(names.size(), sweep.jobs.size());
    EXPECT_EQ(hashes.size(), sweep.jobs.size());
    total_jobs += sweep.jobs.size();
  }
  EXPECT_GT(total_jobs, 60u);  // the generator does produce multi-job sweeps
}

}  // namespace
}  // namespace gammalab
