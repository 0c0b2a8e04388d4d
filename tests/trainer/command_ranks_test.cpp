// A command job's ranks started by gammalab-train's launcher (worker/trainer/parallel/command_ranks.h), with
// real processes (/bin/sh scripts): each rank's variables, whose lines are the metrics, lines cut to their
// limits, and which status a job of ranks that fail together ends with.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>

#include "core/config_error.h"
#include "tests/trainer/trainer_test_util.h"
#include "worker/trainer/parallel/command_ranks.h"

namespace gammalab::trainer {
namespace {

using testing::TempDir;

struct Ran {
  int status = -1;
  std::string out;  // what the launcher wrote on its stdout: the ranks' lines
  std::string log;  // what it said it did
};

Ran run_script(const TempDir& dir, const std::string& script, int world_size) {
  const auto path = dir.path / "rank.sh";
  std::ofstream(path) << script;
  const auto out_path = dir.path / "out.txt";
  const int out = ::open(out_path.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
  std::atomic<bool> stop{false};
  std::ostringstream log;
  Ran ran;
  ran.status = run_command_ranks({world_size, {"/bin/sh", path.string()}}, stop, log, out);
  ::close(out);
  std::ifstream in(out_path);
  ran.out.assign(std::istreambuf_iterator<char>(in), {});
  ran.log = log.str();
  return ran;
}

TEST(CommandRanks, EachRankGetsTorchrunsVariablesAndOnlyRankZerosLinesComeOutBare) {
  TempDir dir;
  const Ran ran = run_script(dir, "echo \"$RANK/$LOCAL_RANK/$WORLD_SIZE/$LOCAL_WORLD_SIZE/$MASTER_ADDR\"\n"
                                  "test -n \"$MASTER_PORT\" && echo port-set\n"
                                  "echo to-stderr >&2\n",
                             3);
  EXPECT_EQ(ran.status, 0) << ran.log;
  for (const std::string line : {"0/0/3/3/127.0.0.1\n", "port-set\n", "to-stderr\n", "[rank 1] 1/1/3/3/127.0.0.1\n",
                                 "[rank 2] 2/2/3/3/127.0.0.1\n", "[rank 2] port-set\n", "[rank 1] to-stderr\n"}) {
    EXPECT_NE(ran.out.find(line), std::string::npos) << line << " in:\n" << ran.out;
  }
  EXPECT_NE(ran.log.find("started ranks 0 to 2 of 3 of /bin/sh (MASTER_ADDR 127.0.0.1, MASTER_PORT "), std::string::npos)
      << ran.log;
}

TEST(CommandRanks, ALineWithoutItsNewlineStillComesOutWholeAndLongLinesAreCut) {
  TempDir dir;
  // Rank 0: 3 MiB without a newline, then more; rank 1: 20 KiB, then a last line with no newline at all.
  const Ran ran = run_script(dir,
                             "if [ \"$RANK\" = 0 ]; then head -c 3145728 /dev/zero | tr '\\0' x; echo; echo after; "
                             "else head -c 20480 /dev/zero | tr '\\0' y; echo; printf last; fi\n",
                             2);
  EXPECT_EQ(ran.status, 0) << ran.log;
  // Rank 0's long line keeps 2 MiB, more than the worker's limit of one line, so that the worker refuses it.
  EXPECT_NE(ran.out.find(std::string(2 << 20, 'x') + "\n"), std::string::npos);
  EXPECT_EQ(ran.out.find(std::string((2 << 20) + 1, 'x')), std::string::npos);
  EXPECT_NE(ran.out.find("\nafter\n"), std::string::npos);
  EXPECT_NE(ran.out.find("[rank 1] " + std::string(16 << 10, 'y') + " [line cut]\n"), std::string::npos);
  EXPECT_NE(ran.out.find("[rank 1] last\n"), std::string::npos);
}

TEST(CommandRanks, TheJobEndsWithTheStatusOfTheRankThatFailedNotOfThePeerItTookDown) {
  TempDir dir;
  // Rank 1 fails with 3; rank 0 notices (as a lost socket would) and ends with 1 at once, so the two may be
  // reaped in either order.
  const Ran ran = run_script(dir,
                             "if [ \"$RANK\" = 1 ]; then exit 3; fi\n"
                             "sleep 0.2; echo peer gone; exit 1\n",
                             2);
  EXPECT_EQ(ran.status, 3) << ran.log;
  EXPECT_NE(ran.log.find("rank 1 ended with status 3"), std::string::npos) << ran.log;
  // A rank that ignores nothing is ended by the SIGTERM the first failure sends.
  const Ran stopped = run_script(dir, "if [ \"$RANK\" = 1 ]; then exit 5; fi\nexec sleep 30\n", 2);
  EXPECT_EQ(stopped.status, 5) << stopped.log;
  EXPECT_NE(stopped.log.find("rank 1 ended with status 5: stopping the other ranks"), std::string::npos) << stopped.log;
}

TEST(CommandRanks, AProgramWithoutAPathOrABadWorldSizeIsRefused) {
  std::atomic<bool> stop{false};
  std::ostringstream log;
  EXPECT_THROW(run_command_ranks({2, {"python3", "x.py"}}, stop, log, STDOUT_FILENO), ConfigError);
  EXPECT_THROW(run_command_ranks({0, {"/bin/true"}}, stop, log, STDOUT_FILENO), ConfigError);
  try {
    run_command_ranks({2, {"python3"}}, stop, log, STDOUT_FILENO);
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("give the program's path (with a '/'), not 'python3'"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace gammalab::trainer
