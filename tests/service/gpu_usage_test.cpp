// The GPUs' figures through NVML (worker/gpu_usage.h), with NVML's stand-in (tests/nvml/stand_in_nvml.cpp) loaded
// as the driver's library is: devices by index and by UUID, their mean utilisation and summed memory, a device
// NVML cannot read left out, and every way the library can be missing said, never thrown.
#include "worker/gpu_usage.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <memory>

#include "worker/child_process.h"
#include "worker/process_usage.h"

namespace gammalab {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::unique_ptr<Nvml> stand_in() {
  std::string why;
  std::unique_ptr<Nvml> nvml = Nvml::open(GAMMALAB_STAND_IN_NVML, why);
  EXPECT_NE(nvml, nullptr) << why;
  return nvml;
}

TEST(GpuUsage, TheJobsDevicesAreReadByIndexOrUuidAndAveragedAndSummed) {
  const std::unique_ptr<Nvml> nvml = stand_in();
  ASSERT_NE(nvml, nullptr);
  const std::optional<GpuUsage> two = nvml->sample({"0", "2"});
  ASSERT_TRUE(two);
  EXPECT_EQ(two->devices, 2);
  EXPECT_DOUBLE_EQ(two->utilisation_percent, 20.0) << "the mean of 10% and 30%";
  EXPECT_DOUBLE_EQ(two->memory_bytes, 4 * kGiB) << "1 GiB and 3 GiB in use";
  const std::optional<GpuUsage> by_uuid = nvml->sample({"GPU-standin-1"});
  ASSERT_TRUE(by_uuid);
  EXPECT_DOUBLE_EQ(by_uuid->utilisation_percent, 20.0);
  EXPECT_DOUBLE_EQ(by_uuid->memory_bytes, 2 * kGiB);
  // A device without utilisation of its own (a MIG instance), or one NVML does not have, is left out.
  const std::optional<GpuUsage> partly = nvml->sample({"0", "3", "9", "GPU-elsewhere-0"});
  ASSERT_TRUE(partly);
  EXPECT_EQ(partly->devices, 1);
  EXPECT_DOUBLE_EQ(partly->utilisation_percent, 10.0);
  EXPECT_FALSE(nvml->sample({"3"})) << "nothing read: no figure, not a zero";
  EXPECT_FALSE(nvml->sample({"99999999999"}));
  EXPECT_FALSE(nvml->sample({}));
  // Two users of NVML at once (its init and shutdown are counted): closing one leaves the other working.
  { const std::unique_ptr<Nvml> other = stand_in(); }
  EXPECT_TRUE(nvml->sample({"1"}));
}

TEST(GpuUsage, WithoutTheLibraryOrItsDriverTheReasonIsSaid) {
  std::string why;
  EXPECT_EQ(Nvml::open("/nonexistent/libnvidia-ml.so.1", why), nullptr);
  EXPECT_NE(why.find("cannot load /nonexistent/libnvidia-ml.so.1"), std::string::npos) << why;
  EXPECT_EQ(Nvml::open("libc.so.6", why), nullptr);
  EXPECT_EQ(why, "libc.so.6 has no nvmlInit_v2: not NVML");
  ASSERT_EQ(::setenv("STAND_IN_NVML_INIT_FAILS", "1", 1), 0);
  EXPECT_EQ(Nvml::open(GAMMALAB_STAND_IN_NVML, why), nullptr);
  ::unsetenv("STAND_IN_NVML_INIT_FAILS");
  EXPECT_EQ(why, "nvmlInit failed with NVML status 9 (is the NVIDIA driver loaded?)");
}

TEST(GpuUsage, TheSamplerReportsTheJobsGpusBesideItsProcesses) {
  const std::unique_ptr<Nvml> nvml = stand_in();
  ASSERT_NE(nvml, nullptr);
  ChildProcess child({"/bin/sh", "-c", "sleep 30"}, {}, "/dev/null");
  const auto t0 = UsageSampler::Clock::now();
  UsageSampler with_gpus(child.pid(), std::chrono::seconds(1), -1, t0, nvml.get(), {"1", "2"});
  UsageSampler without(child.pid(), std::chrono::seconds(1), -1, t0, nvml.get(), {});
  // The child joins its own process group just after the fork: wait for /proc to show it there.
  std::vector<MetricPoint> points;
  for (int step = 1; step < 600 && points.empty(); ++step) {
    points = with_gpus.at(step, step * 10, t0 + std::chrono::seconds(2) + std::chrono::milliseconds(step));
  }
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[2].name, "sys/gpu_util");
  EXPECT_DOUBLE_EQ(points[2].value, 25.0);
  EXPECT_EQ(points[3].name, "sys/gpu_memory_bytes");
  EXPECT_DOUBLE_EQ(points[3].value, 5 * kGiB);
  EXPECT_EQ(without.at(10000, 0, t0 + std::chrono::seconds(5)).size(), 2u) << "no devices: the /proc figures alone";
  child.signal(SIGKILL);
  child.wait();
}

}  // namespace
}  // namespace gammalab
