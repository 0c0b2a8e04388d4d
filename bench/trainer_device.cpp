// The trainer end to end on a device against the CPU: trains a small preset for a few hundred steps on --device
// (CUDA: bfloat16 autocast or float32) and, as the reference, on the CPU in float32, from the same token shards,
// seed and batches, and prints per variant the first and last train loss of both, the ratio of the last losses and
// the tokens/s of each. For a GPU machine, where it checks the CUDA path that the CPU test suite cannot reach.
//   bench_trainer_device --data DIR [--device cuda] [--dtype bfloat16] [--preset P] [--variants V...] [--steps N]
// DIR holds train.bin and val.bin (`gammalab-train prepare`). With --device cpu both runs are the CPU's (a dry run
// of the program itself: the ratio is exactly 1).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <torch/cuda.h>

#include "core/config_paths.h"
#include "core/metric.h"
#include "core/metric_names.h"
#include "core/model_preset.h"
#include "worker/trainer/trainer.h"

namespace {

using namespace gammalab;
using namespace gammalab::trainer;

struct Run {
  double first_loss = std::numeric_limits<double>::quiet_NaN();
  double last_loss = std::numeric_limits<double>::quiet_NaN();
  double val_loss = std::numeric_limits<double>::quiet_NaN();
  double tokens_per_s = 0;
};

// One training run; the losses come from its metric lines, as the worker would relay them.
Run train(const JobConfig& config) {
  std::ostringstream metrics, log;
  Trainer trainer(config, TrainerOptions{}, metrics, log);
  const auto t0 = std::chrono::steady_clock::now();
  if (const int code = trainer.run(); code != 0) {
    throw std::runtime_error("training exited with " + std::to_string(code) + ":\n" + log.str());
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Run run;
  run.tokens_per_s = double(config.steps * config.batch_tokens) / seconds;
  std::int64_t first_step = std::numeric_limits<std::int64_t>::max(), last_step = 0;
  std::istringstream lines(metrics.str());
  for (std::string line; std::getline(lines, line);) {
    const auto points = parse_metric_line(line);
    if (!points) continue;
    for (const MetricPoint& p : *points) {
      if (p.name == metric_names::kTrainLoss && p.step < first_step) first_step = p.step, run.first_loss = p.value;
      if (p.name == metric_names::kTrainLoss && p.step >= last_step) last_step = p.step, run.last_loss = p.value;
      if (p.name == metric_names::kValLoss) run.val_loss = p.value;
    }
  }
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Trainer on a device against the CPU in float32: losses and tokens/s"};
  std::string data, device = "cuda", dtype = "bfloat16", preset = "tiny-2m";
  std::vector<std::string> variants = {"baseline", "unified"};
  std::int64_t steps = 300, batch_tokens = 8192;
  int cpu_threads = 4;
  app.add_option("--data", data, "directory with train.bin and val.bin")->required()->check(CLI::ExistingDirectory);
  app.add_option("--device", device, "cuda, or cpu for a dry run")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "cuda"}));
  app.add_option("--dtype", dtype, "bfloat16 (autocast) or float32, on the device")
      ->capture_default_str()
      ->check(CLI::IsMember({"float32", "bfloat16"}));
  app.add_option("--preset", preset, "model preset (configs/models)")->capture_default_str();
  app.add_option("--variants", variants, "scale-vector variants")->capture_default_str();
  app.add_option("--steps", steps, "optimizer steps per run")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--batch-tokens", batch_tokens, "tokens per step")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--cpu-threads", cpu_threads, "threads of the CPU reference runs")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (device == "cuda" && !torch::cuda::is_available()) {
    std::fprintf(stderr, "--device cuda: no CUDA device is available to this LibTorch\n");
    return 2;
  }
  if (device == "cpu") dtype = "float32";

  JobConfig base;
  base.model = load_model_preset(preset, model_preset_dir());
  base.data.train = (std::filesystem::path(data) / "train.bin").string();
  base.data.val = (std::filesystem::path(data) / "val.bin").string();
  base.batch_tokens = batch_tokens;
  base.steps = steps;
  base.log_every = 10;
  base.eval_every = steps;
  base.optim.lr = 3e-3;
  base.schedule.warmup_steps = steps / 10;

  std::printf("%s, %s %s vs cpu float32, %lld steps of %lld tokens\n", preset.c_str(), device.c_str(), dtype.c_str(),
              static_cast<long long>(steps), static_cast<long long>(batch_tokens));
  std::printf("%-10s %21s %21s %10s %10s %12s %12s\n", "variant", "device loss first>last", "cpu loss first>last",
              "last ratio", "val ratio", "device tok/s", "cpu tok/s");
  for (const std::string& variant : variants) {
    JobConfig on_device = base, on_cpu = base;
    on_device.scale = on_cpu.scale = variant_preset(variant);
    on_device.device = *parse_enum<DeviceKind>(device);  // both checked by the options above
    on_device.dtype = *parse_enum<DType>(dtype);
    on_device.threads = cpu_threads;
    on_cpu.device = DeviceKind::Cpu;
    on_cpu.dtype = DType::Float32;
    on_cpu.threads = cpu_threads;
    const Run d = train(on_device), c = train(on_cpu);
    std::printf("%-10s %10.4f>%10.4f %10.4f>%10.4f %10.4f %10.4f %12.0f %12.0f\n", variant.c_str(), d.first_loss,
                d.last_loss, c.first_loss, c.last_loss, d.last_loss / c.last_loss, d.val_loss / c.val_loss,
                d.tokens_per_s, c.tokens_per_s);
  }
  return 0;
}
