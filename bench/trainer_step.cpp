// Trainer step time (forward + backward + clip + AdamW) for baseline and unified (or any variants, --against),
// and tiny-0.1m throughput.
// Prints ms/step, tokens/s and the unified/baseline ratio measured in the same run, and with --peak-tflops the model
// FLOPs utilisation (MFU: core's flops_per_token, the plan's 6·N + 12·L·d·T with N the activated non-embedding
// parameters, against the device's dense peak).
//   bench_trainer_step [--threads N] [--steps N] [--batch-tokens N] [--compare P...] [--against V...]
//                      [--preset P --variant V]
//                      [--device cpu|cuda] [--dtype float32|bfloat16] [--peak-tflops F]
// The baseline's and the other variants' steps alternate, and each figure is the median over steps, so load from other processes
// on a shared machine falls on both alike. On CPU the ratio is taken on the process CPU time; on CUDA each step
// ends with a device synchronisation and the wall time counts.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/config_paths.h"
#include "core/model_preset.h"
#include "core/param_count.h"
#include "worker/trainer/model/model.h"
#include "worker/trainer/optim/optimizer.h"
#include "worker/trainer/torch_compat.h"

#include <torch/cuda.h>

namespace {

using namespace gammalab;
using namespace gammalab::trainer;

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// One model with its optimizer and a fixed random batch; step() runs one full optimizer step.
struct Subject {
  std::string preset, variant;
  JobConfig config;
  std::unique_ptr<Model> model;
  std::unique_ptr<Optimizer> opt;
  at::Tensor batch;
  std::vector<double> wall_ms, cpu_ms, optimizer_ms;  // optimizer: clipping + the update, part of the step

  at::Device device;

  Subject(std::string p, std::string v, std::int64_t batch_tokens, const at::Device& dev)
      : preset(std::move(p)), variant(std::move(v)), device(dev) {
    config.model = load_model_preset(preset, model_preset_dir());
    config.scale = variant_preset(variant);
    config.batch_tokens = batch_tokens;
    model = std::make_unique<Model>(config.model, config.scale);
    model->init(1);
    if (device.is_cuda()) model->to(device);
    opt = std::make_unique<Optimizer>(*model, config);
    const std::int64_t T = config.model.seq_len;
    torch::manual_seed(0);
    batch = torch::randint(config.model.vocab_size, {batch_tokens / T, T + 1}, torch::kLong).to(device);
  }

  void step() {
    const std::int64_t T = config.model.seq_len;
    opt->zero_grad();
    model->loss(batch.narrow(1, 0, T), batch.narrow(1, 1, T)).total().backward();
    if (device.is_cuda()) torch::cuda::synchronize();  // so that the optimizer's time is its own
    const auto t0 = std::chrono::steady_clock::now();
    opt->clip_gradients();
    opt->step(1.0);
    if (device.is_cuda()) torch::cuda::synchronize();
    optimizer_ms.push_back(1000.0 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }

  void timed_step() {
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_seconds();
    step();
    cpu_ms.push_back(1000.0 * (cpu_seconds() - c0));
    wall_ms.push_back(1000.0 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }

  void print(double peak_tflops) const {
    const double wall = median(wall_ms), tokens_per_s = 1000.0 * double(config.batch_tokens) / wall;
    std::printf("%-10s %-9s %10.2f %12.0f %12.2f %12.2f", preset.c_str(), variant.c_str(), wall, tokens_per_s,
                median(cpu_ms), median(optimizer_ms));
    if (peak_tflops > 0) {
      const double flops_per_s = tokens_per_s * flops_per_token(config.model, config.scale);
      std::printf(" %7.1f%%", 100.0 * flops_per_s / (peak_tflops * 1e12));
    }
    std::printf("\n");
  }
};

// Warms up, then alternates the subjects' steps.
void run_interleaved(std::vector<Subject*> subjects, int steps) {
  for (int i = 0; i < 3; ++i) {
    for (Subject* s : subjects) s->step();  // allocator and thread pool warm
  }
  for (int i = 0; i < steps; ++i) {
    for (Subject* s : subjects) s->timed_step();
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Trainer step time: baseline vs unified"};
  int threads = 1, steps = 20;
  std::int64_t batch_tokens = 4096;
  std::string only_preset, only_variant = "baseline", device_name = "cpu", dtype = "float32";
  std::vector<std::string> compare = {"tiny-2m", "tiny-8m"}, against = {"unified"};
  app.add_option("--threads", threads, "intra-op threads")->capture_default_str();
  app.add_option("--steps", steps, "timed steps per subject")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--batch-tokens", batch_tokens, "tokens per step")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--preset", only_preset, "measure just this preset (for profiling)");
  app.add_option("--variant", only_variant, "with --preset: the variant")->capture_default_str();
  app.add_option("--compare", compare, "presets to compare baseline and unified on (skips tiny-0.1m unless named)")
      ->capture_default_str();
  app.add_option("--against", against, "variants each compared with the baseline, steps alternating (e.g. the "
                 "2026 arms: seednorm peri_ln gated pre_affine ln_scaling dyt derf)")
      ->capture_default_str();
  app.add_option("--device", device_name, "cpu or cuda")->capture_default_str()->check(CLI::IsMember({"cpu", "cuda"}));
  app.add_option("--dtype", dtype, "float32, or bfloat16 (autocast, CUDA only)")
      ->capture_default_str()
      ->check(CLI::IsMember({"float32", "bfloat16"}));
  double peak_tflops = 0;
  app.add_option("--peak-tflops", peak_tflops, "the device's dense peak in TFLOP/s at --dtype: adds an MFU column")
      ->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);
  if (device_name == "cuda" && !torch::cuda::is_available()) {
    std::fprintf(stderr, "--device cuda: no CUDA device is available to this LibTorch\n");
    return 2;
  }
  if (dtype == "bfloat16" && device_name != "cuda") {
    std::fprintf(stderr, "--dtype bfloat16: only with --device cuda (the CPU path is float32)\n");
    return 2;
  }
  const at::Device device(device_name == "cuda" ? at::kCUDA : at::kCPU);
  if (dtype == "bfloat16") set_cuda_autocast(true);

  set_cpu_threads(threads);
  std::printf("%s %s, threads %d, batch %lld tokens, %d timed steps, medians\n", device_name.c_str(), dtype.c_str(),
              threads, static_cast<long long>(batch_tokens), steps);
  std::printf("%-10s %-9s %10s %12s %12s %12s%s\n", "preset", "variant", "ms/step", "tokens/s", "cpu ms/step",
              "optimizer ms", peak_tflops > 0 ? "      MFU" : "");
  if (!only_preset.empty()) {
    Subject s(only_preset, only_variant, batch_tokens, device);
    run_interleaved({&s}, steps);
    s.print(peak_tflops);
    return 0;
  }
  if (app.count("--compare") == 0) {
    Subject tiny("tiny-0.1m", "baseline", batch_tokens, device);
    run_interleaved({&tiny}, steps);
    tiny.print(peak_tflops);
  }
  for (const std::string& preset : compare) {
    Subject base(preset, "baseline", batch_tokens, device);
    std::vector<std::unique_ptr<Subject>> others;
    std::vector<Subject*> all = {&base};
    for (const std::string& variant : against) {
      others.push_back(std::make_unique<Subject>(preset, variant, batch_tokens, device));
      all.push_back(others.back().get());
    }
    run_interleaved(all, steps);
    for (const Subject* s : all) s->print(peak_tflops);
    for (const auto& other : others) {
      std::printf("%-10s %s/baseline ratio: wall %.3f, cpu %.3f\n", preset.c_str(), other->variant.c_str(),
                  median(other->wall_ms) / median(base.wall_ms), median(other->cpu_ms) / median(base.cpu_ms));
    }
  }
  return 0;
}
