// Command jobs in core (docs/own-program.md): the sweep's `command:` checked against every job's config, its
// placeholders filled from the final config (a tune stage's pick included), a program's declared N in budgets,
// fits and plans, and every malformed command refused naming the argument, the limit and the value.
#include <gtest/gtest.h>

#include "core/config_error.h"
#include "core/job_command.h"
#include "core/param_count.h"
#include "core/scaling/run_point.h"
#include "core/sweep/config_hash.h"
#include "core/sweep/sweep.h"
#include "core/sweep/tune.h"
#include "sweep_test_support.h"

namespace gammalab::testing {
namespace {

const std::string kOwn = R"(
name: own
command: [python3, train.py, --lr, "{optim.lr}", --width, "{model.d_model}", --seed, "{seed}", "--tag={{x}}"]
base:
  model: {d_model: 32, n_heads: 4}
  optim: {lr: 0.01}
  batch_tokens: 256
  declared_params: 12 * model.d_model * model.d_model
  tokens: 20 * params
  log_every: 5
axes:
  grid:
    model.d_model: [32, 64]
seeds: [0, 1]
)";

std::string messages(const std::string& yaml) {
  std::string out;
  for (const auto& d : problems(yaml)) out += d.to_string() + "\n";
  return out;
}

TEST(JobCommand, EveryJobRunsTheCommandWithItsOwnValues) {
  const Sweep sweep = expand(kOwn);
  ASSERT_EQ(sweep.jobs.size(), 4u);
  const JobConfig& c = sweep.jobs[3].config;
  ASSERT_TRUE(c.command);
  EXPECT_EQ(command_argv(c), (std::vector<std::string>{"python3", "train.py", "--lr", "0.01", "--width", "64",
                                                       "--seed", "1", "--tag={x}"}));
  // The declared N is what `params` means in budgets, what the fit reads, and 6 N FLOPs per token.
  EXPECT_EQ(c.declared_params, 12.0 * 64 * 64);
  EXPECT_EQ(sweep.jobs[3].params, 12 * 64 * 64);
  EXPECT_EQ(c.steps * c.batch_tokens, 20 * 12 * 64 * 64);
  EXPECT_EQ(job_fitted_params(c), 12.0 * 64 * 64);
  EXPECT_EQ(job_flops_per_token(c), 6.0 * 12 * 64 * 64);
  const RunPoint run = job_run_point(c, 2.0, "scale.variant", "x");
  EXPECT_EQ(run.params, 12.0 * 64 * 64);
  EXPECT_EQ(run.compute, 6.0 * run.params * run.tokens);
  // The command is part of what a job is: the same config run by gammalab-train hashes differently.
  JobConfig ours = c;
  ours.command.reset();
  ours.declared_params.reset();
  EXPECT_NE(config_hash(ours), config_hash(c));
  EXPECT_FALSE(to_json(ours).contains("command")) << "configs without a command keep their hashes";
}

TEST(JobCommand, ATunedValueReachesTheCommandOfTheMainJobs) {
  const SweepStages stages = expand_stages(kOwn + R"(tune:
  grid: {optim.lr: [0.005, 0.01, 0.02]}
  seeds: [100]
)", "test.yaml", source_tree_options());
  ASSERT_TRUE(stages.tune);
  for (const auto& job : stages.tune->jobs) {
    EXPECT_EQ(command_argv(job.config)[3], nlohmann::json(job.config.optim.lr).dump()) << job.name;
  }
  std::vector<TuneRun> runs;
  for (const auto& job : stages.tune->jobs) {
    runs.push_back({job.config, std::abs(std::log(job.config.optim.lr / 0.01)) + 1.0, job.name});
  }
  const TunePicks picks = pick_tuned(stages, runs);
  ASSERT_TRUE(picks.ok()) << picks.problems();
  for (const auto& job : apply_picks(stages, picks).jobs) EXPECT_EQ(command_argv(job.config)[3], "0.01") << job.name;
}

TEST(JobCommand, AMalformedCommandIsRefusedAtItsArgument) {
  auto with_command = [](const std::string& command) {
    return "name: c\ncommand: " + command + "\nbase: {model: {d_model: 32, n_heads: 4}, batch_tokens: 256}\n";
  };
  EXPECT_NE(messages(with_command("[python3, \"{optim.lrr}\"]"))
                .find("test.yaml:2:20: command[1]: '{optim.lrr}' names no field of this job's config"),
            std::string::npos)
      << messages(with_command("[python3, \"{optim.lrr}\"]"));
  EXPECT_NE(messages(with_command("[python3, \"{model}\"]")).find("'{model}' is a group of fields"), std::string::npos);
  EXPECT_NE(messages(with_command("[python3, \"{optim.muon_lr}\"]")).find("an optional field must be set"),
            std::string::npos);
  EXPECT_NE(messages(with_command("[python3, \"a}b\"]")).find("a lone '}' at byte 1"), std::string::npos);
  EXPECT_NE(messages(with_command("[python3, \"{seed\"]")).find("'{' at byte 0 of '{seed' is not closed"),
            std::string::npos);
  EXPECT_NE(messages(with_command("[python3, \"a\\tb\"]")).find("holds the control byte 9 at byte 1"),
            std::string::npos);
  EXPECT_NE(messages(with_command("[\"\", x]")).find("command[0]: is empty; it names the program to run"),
            std::string::npos);
  EXPECT_NE(messages(with_command("[]")).find("expected a list such as"), std::string::npos);
  EXPECT_NE(messages(with_command("python3 train.py")).find("expected a list such as"), std::string::npos);
  EXPECT_NE(messages(with_command("[python3, [a]]")).find("command[1]: expected a string, got a list"),
            std::string::npos)
      << messages(with_command("[python3, [a]]"));
  std::string many = "[python3";
  for (std::size_t i = 0; i < kMaxCommandArgs; ++i) many += ", a";
  EXPECT_NE(messages(with_command(many + "]")).find("257 arguments, more than the limit of 256"), std::string::npos);
  EXPECT_NE(messages(with_command("[python3, " + std::string(5000, 'x') + "]")).find("4096"), std::string::npos);
  // Ranks on one worker: world_size is the worker's to start (gammalab-train ranks); a job across workers is not.
  EXPECT_EQ(messages("name: c\ncommand: [python3]\nbase: {model: {d_model: 32, n_heads: 4}, batch_tokens: 256, "
                     "world_size: 2}\n"),
            "");
  EXPECT_NE(messages("name: c\ncommand: [python3]\nbase: {model: {d_model: 32, n_heads: 4}, batch_tokens: 256, "
                     "world_size: 2, nodes: 2}\n")
                .find("nodes: a command job's ranks run on one worker (nodes 2)"),
            std::string::npos)
      << messages("name: c\ncommand: [python3]\nbase: {model: {d_model: 32, n_heads: 4}, batch_tokens: 256, "
                  "world_size: 2, nodes: 2}\n");
  // Cooldown branches start from gammalab-train's checkpoints: not a command's.
  EXPECT_NE(messages("name: c\ncommand: [python3]\nbase: {model: {d_model: 32, n_heads: 4}, batch_tokens: 256, "
                     "schedule: {kind: wsd}}\nbranches: {fraction: [0.5]}\n")
                .find("cooldown branches need gammalab-train's checkpoints"),
            std::string::npos);
  // A declared N out of range names the field, the range and the value.
  EXPECT_NE(messages("name: c\ncommand: [python3]\nbase: {model: {d_model: 32, n_heads: 4}, batch_tokens: 256, "
                     "declared_params: 0}\n")
                .find("declared_params: must be in [1, 1e+15], got 0"),
            std::string::npos)
      << messages("name: c\ncommand: [python3]\nbase: {model: {d_model: 32, n_heads: 4}, batch_tokens: 256, "
                  "declared_params: 0}\n");
}

TEST(JobCommand, AConfigFromElsewhereIsReadStrictly) {
  nlohmann::json json = to_json(JobConfig{});
  json["command"] = {"python3", 7};
  EXPECT_THROW(job_config_from_json(json), ConfigError);
  json["command"] = "python3 train.py";
  try {
    job_config_from_json(json);
    ADD_FAILURE() << "a string is not a command";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("command: expected a list of strings, got string"), std::string::npos)
        << e.what();
  }
  json["command"] = {"python3", "{steps}"};
  const JobConfig config = job_config_from_json(json);
  EXPECT_EQ(command_argv(config), (std::vector<std::string>{"python3", "100"}));
  EXPECT_EQ(job_config_from_json(to_json(config)).command, config.command) << "round trip";
}

}  // namespace
}  // namespace gammalab::testing
