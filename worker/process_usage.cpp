#include "worker/process_usage.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/metric_names.h"

namespace gammalab {

namespace {

// The fields of /proc/PID/stat after the command's closing parenthesis (the command may hold spaces and
// parentheses itself), numbered as proc(5) numbers them from 3 (state).
std::vector<std::string> stat_fields(const std::filesystem::path& stat) {
  std::ifstream in(stat);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t close = text.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream rest(text.substr(close + 1));
  std::vector<std::string> fields;
  for (std::string field; rest >> field;) fields.push_back(field);
  return fields;
}

long long integer(const std::string& text) {
  long long v = 0;
  std::from_chars(text.data(), text.data() + text.size(), v);
  return v;
}

}  // namespace

ProcessUsage process_group_usage(pid_t pgid) {
  static const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  static const long long page = sysconf(_SC_PAGESIZE);
  ProcessUsage out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    const std::vector<std::string> f = stat_fields(entry.path() / "stat");
    // proc(5): (3) state ... (5) pgrp ... (14) utime (15) stime ... (24) rss; f[0] is field 3.
    if (f.size() < 22 || integer(f[2]) != pgid) continue;
    out.cpu_seconds += static_cast<double>(integer(f[11]) + integer(f[12])) / ticks;
    out.rss_bytes += integer(f[21]) * page;
    ++out.processes;
  }
  return out;
}

UsageSampler::UsageSampler(pid_t pgid, std::chrono::milliseconds every, std::int64_t stored_last_step,
                           Clock::time_point start, const Nvml* nvml, std::vector<std::string> devices)
    : pgid_(pgid), every_(every), last_step_(stored_last_step), last_time_(start), nvml_(nvml),
      devices_(std::move(devices)) {}

std::vector<MetricPoint> UsageSampler::at(std::int64_t step, std::int64_t tokens, Clock::time_point now) {
  if (step <= last_step_ || now - last_time_ < every_) return {};
  const ProcessUsage usage = process_group_usage(pgid_);
  if (usage.processes == 0) return {};
  const double seconds = std::chrono::duration<double>(now - last_time_).count();
  const double cores = std::max(0.0, usage.cpu_seconds - last_cpu_) / seconds;
  last_cpu_ = usage.cpu_seconds;
  last_time_ = now;
  last_step_ = step;
  std::vector<MetricPoint> points = {
      {step, tokens, std::string(metric_names::kSysCpuCores), cores},
      {step, tokens, std::string(metric_names::kSysMemoryBytes), static_cast<double>(usage.rss_bytes)}};
  if (nvml_ != nullptr && !devices_.empty()) {
    if (const std::optional<GpuUsage> gpu = nvml_->sample(devices_)) {
      points.push_back({step, tokens, std::string(metric_names::kSysGpuUtil), gpu->utilisation_percent});
      points.push_back({step, tokens, std::string(metric_names::kSysGpuMemoryBytes), gpu->memory_bytes});
    }
  }
  return points;
}

}  // namespace gammalab
