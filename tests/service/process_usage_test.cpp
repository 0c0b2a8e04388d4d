// What a job's processes use (worker/process_usage.h), read from the real /proc of a real child process: its
// group's CPU time grows while it computes and its memory is there; the sampler reports at most once per
// interval, only at steps past what is stored and past its last sample, and never a negative CPU rate.
#include "worker/process_usage.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "worker/child_process.h"

namespace gammalab {
namespace {

using Clock = UsageSampler::Clock;

// A shell busy in a loop, in its own process group (as the worker starts every job), once the shell runs there:
// the child joins its group just after the fork, before its exec, and in the middle of the exec it has no
// resident pages (a sample taken then read 0 bytes under load). So wait until the process is the shell (its
// /proc comm) with pages of its own.
std::unique_ptr<ChildProcess> busy_child() {
  auto child = std::make_unique<ChildProcess>(std::vector<std::string>{"/bin/sh", "-c", "while :; do :; done"},
                                              std::vector<std::string>{}, "/dev/null");
  const std::string comm_file = "/proc/" + std::to_string(child->pid()) + "/comm";
  for (int i = 0; i < 600; ++i) {
    std::ifstream comm(comm_file);
    std::string name;
    std::getline(comm, name);
    if (name == "sh" && process_group_usage(child->pid()).rss_bytes > 100 * 1024) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return child;
}

TEST(ProcessUsage, AGroupsCpuTimeGrowsWhileItComputesAndItsMemoryIsThere) {
  const std::unique_ptr<ChildProcess> child = busy_child();
  const ProcessUsage first = process_group_usage(child->pid());
  EXPECT_EQ(first.processes, 1);
  EXPECT_GT(first.rss_bytes, 100 * 1024) << "a shell's resident pages";
  ProcessUsage later;
  for (int i = 0; i < 600 && later.cpu_seconds < first.cpu_seconds + 0.2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    later = process_group_usage(child->pid());
  }
  EXPECT_GE(later.cpu_seconds, first.cpu_seconds + 0.2) << "its CPU time, read from /proc/PID/stat, grew";
  EXPECT_EQ(process_group_usage(getpgrp()).processes >= 1, true) << "this test's own group";
  child->signal(SIGKILL);
  child->wait();
  EXPECT_EQ(process_group_usage(child->pid()).processes, 0) << "a group whose processes are gone";
}

TEST(UsageSampler, OncePerIntervalOnlyPastTheStoredStepsAndItsLastSample) {
  const std::unique_ptr<ChildProcess> child = busy_child();
  const Clock::time_point t0 = Clock::now();
  UsageSampler sampler(child->pid(), std::chrono::seconds(10), /*stored_last_step=*/40, t0);
  EXPECT_TRUE(sampler.at(41, 41 * 1024, t0 + std::chrono::seconds(9)).empty()) << "before the interval";
  EXPECT_TRUE(sampler.at(40, 40 * 1024, t0 + std::chrono::seconds(11)).empty()) << "a step the coordinator has";
  const std::vector<MetricPoint> points = sampler.at(45, 45 * 1024, t0 + std::chrono::seconds(11));
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].name, "sys/cpu_cores");
  EXPECT_EQ(points[1].name, "sys/memory_bytes");
  for (const MetricPoint& p : points) {
    EXPECT_EQ(p.step, 45);
    EXPECT_EQ(p.tokens, 45 * 1024);
    EXPECT_GE(p.value, 0);
  }
  EXPECT_GT(points[1].value, 100 * 1024);
  EXPECT_TRUE(sampler.at(46, 0, t0 + std::chrono::seconds(15)).empty()) << "10 s after the last sample, not 4";
  EXPECT_TRUE(sampler.at(45, 0, t0 + std::chrono::seconds(30)).empty()) << "the step of the last sample again";
  EXPECT_EQ(sampler.at(50, 0, t0 + std::chrono::seconds(30)).size(), 2u);
  child->signal(SIGKILL);
  child->wait();
  EXPECT_TRUE(sampler.at(60, 0, t0 + std::chrono::seconds(60)).empty()) << "no processes: nothing to report";
}

}  // namespace
}  // namespace gammalab
