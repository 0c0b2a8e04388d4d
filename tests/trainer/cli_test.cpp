// gammalab-train's command line: bad input exits with status 2 and a message naming the option and the problem.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <string>

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

TEST(TrainCli, MissingSubcommandOrRequiredOptionIsAUsageError) {
  Outcome none = run_train("");
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.output.find("subcommand is required"), std::string::npos) << none.output;

  Outcome run = run_train("run");
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.output.find("--config is required"), std::string::npos) << run.output;
}

TEST(TrainCli, BadValuesNameTheOption) {
  Outcome missing = run_train("run --config /nonexistent/job.json");
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.output.find("--config"), std::string::npos) << missing.output;

  Outcome tokenizer = run_train("prepare --input . --out /tmp --tokenizer words");
  EXPECT_EQ(tokenizer.status, 2);
  EXPECT_NE(tokenizer.output.find("--tokenizer"), std::string::npos) << tokenizer.output;

  Outcome unknown = run_train("describe --preset tiny-0.1m --bogus");
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.output.find("--bogus"), std::string::npos) << unknown.output;

  Outcome variant = run_train("describe --preset tiny-0.1m --variant nonsense");
  EXPECT_EQ(variant.status, 2);
  EXPECT_NE(variant.output.find("nonsense"), std::string::npos) << variant.output;
}

TEST(TrainCli, DescribeAPresetPrintsItsParameterTable) {
  Outcome ok = run_train("describe --preset tiny-0.1m --variant unified");
  EXPECT_EQ(ok.status, 0) << ok.output;
  EXPECT_NE(ok.output.find("variant unified"), std::string::npos) << ok.output;
  EXPECT_NE(ok.output.find("embedding"), std::string::npos) << ok.output;
}

}  // namespace
