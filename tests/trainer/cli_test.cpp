// gammalab-train's command line: bad input exits with status 2 and a message naming the option and the problem.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

namespace {

struct Outcome {
  int status = -1;
  std::string output;  // stdout and stderr
};

Outcome run_train(const std::string& args) {
  const std::string command = std::string(GAMMALAB_TRAIN_BINARY) + " " + args + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  Outcome out;
  if (pipe == nullptr) return out;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) out.output += buffer;
  const int raw = ::pclose(pipe);
  out.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return out;
}

// ARGS exits with status 2 and says NEEDLE.
void expect_usage_error(const std::string& args, const std::string& needle) {
  const Outcome o = run_train(args);
  EXPECT_EQ(o.status, 2) << args << "\n" << o.output;
  EXPECT_NE(o.output.find(needle), std::string::npos) << args << "\n" << o.output;
}

TEST(TrainCli, MissingSubcommandOrRequiredOptionIsAUsageError) {
  expect_usage_error("", "subcommand is required");
  expect_usage_error("run", "--config is required");
}

TEST(TrainCli, BadValuesNameTheOption) {
  expect_usage_error("run --config /nonexistent/job.json", "--config");
  expect_usage_error("prepare --input . --out /tmp --tokenizer words", "--tokenizer");
  expect_usage_error("describe --preset tiny-0.1m --bogus", "--bogus");
  expect_usage_error("describe --preset tiny-0.1m --variant nonsense", "nonsense");
}

TEST(TrainCli, DescribeAPresetPrintsItsParameterTable) {
  Outcome ok = run_train("describe --preset tiny-0.1m --variant unified");
  EXPECT_EQ(ok.status, 0) << ok.output;
  EXPECT_NE(ok.output.find("variant unified"), std::string::npos) << ok.output;
  EXPECT_NE(ok.output.find("embedding"), std::string::npos) << ok.output;
}

// A 2026 arm names its Pre-Norm and counts what that adds beside its scale vectors (DyT: a and b at each of
// tiny-0.1m's 2·2 + 1 Pre-Norms of width 64), in its own parameter group.
TEST(TrainCli, DescribeAnArmNamesItsNormAndItsOwnParameters) {
  Outcome ok = run_train("describe --preset tiny-0.1m --variant dyt");
  ASSERT_EQ(ok.status, 0) << ok.output;
  EXPECT_NE(ok.output.find("variant dyt (sharing shared, placement before, param plain, decay none, norm dyt)"),
            std::string::npos) << ok.output;
  EXPECT_NE(ok.output.find("\nnorm parameters                           325  (the Pre-Norms' own: not scale vectors)\n"),
            std::string::npos) << ok.output;
  EXPECT_NE(ok.output.find("\nnorm                                      325\n"), std::string::npos) << ok.output;
}

// --json gives the trainer's own reading of a preset and a variant, which scripts build their jobs from.
TEST(TrainCli, DescribeJsonIsTheResolvedConfig) {
  Outcome ok = run_train("describe --preset tiny-0.1m --variant dp --json");
  ASSERT_EQ(ok.status, 0) << ok.output;
  const nlohmann::json config = nlohmann::json::parse(ok.output);
  EXPECT_EQ(config.at("model").at("d_model"), 64);
  EXPECT_EQ(config.at("model").at("n_layers"), 2);
  EXPECT_EQ(config.at("scale").at("variant"), "dp");
  EXPECT_EQ(config.at("scale").at("placement"), "dual") << "DP places its scale vectors on both sides";
}

}  // namespace
