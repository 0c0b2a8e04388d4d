// Trainer step time (forward + backward + clip + AdamW) on CPU for baseline and unified, and tiny-0.1m
// throughput. Prints ms/step, tokens/s and the unified/baseline ratio measured in the same run.
//   bench_trainer_step [--threads N] [--steps N] [--batch-tokens N]
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/config_paths.h"
#include "core/model_preset.h"
#include "worker/trainer/model.h"
#include "worker/trainer/optimizer.h"
#include "worker/trainer/torch_compat.h"

namespace {

using namespace gammalab;
using namespace gammalab::trainer;

struct Figure {
  double ms_per_step = 0, tokens_per_s = 0;
  double cpu_ms_per_step = 0;  // process CPU time: robust on a shared machine, where wall time is not
};

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

Figure measure(const std::string& preset, const std::string& variant, int steps, std::int64_t batch_tokens) {
  JobConfig c;
  c.model = load_model_preset(preset, model_preset_dir());
  c.scale = variant_preset(variant);
  c.batch_tokens = batch_tokens;
  Model model(c.model, c.scale);
  model.init(1);
  Optimizer opt(model, c);
  const std::int64_t T = c.model.seq_len, B = batch_tokens / T;
  torch::manual_seed(0);
  const at::Tensor batch = torch::randint(c.model.vocab_size, {B, T + 1}, torch::kLong);
  auto step = [&] {
    opt.zero_grad();
    model.loss(batch.narrow(1, 0, T), batch.narrow(1, 1, T)).total().backward();
    opt.clip_gradients();
    opt.step(1.0);
  };
  for (int i = 0; i < 3; ++i) step();  // warm up allocator and thread pool
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = cpu_seconds();
  for (int i = 0; i < steps; ++i) step();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return {1000.0 * secs / steps, double(batch_tokens) * steps / secs, 1000.0 * (cpu_seconds() - c0) / steps};
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 2, steps = 20;
  std::int64_t batch_tokens = 4096;
  std::string only_preset, only_variant;  // --preset P --variant V: measure just that (for profiling)
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--preset")) only_preset = argv[i + 1];
    if (!std::strcmp(argv[i], "--variant")) only_variant = argv[i + 1];
    if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--steps")) steps = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--batch-tokens")) batch_tokens = std::atoll(argv[i + 1]);
  }
  set_cpu_threads(threads);
  std::printf("threads %d, batch %lld tokens, %d timed steps\n", threads, static_cast<long long>(batch_tokens), steps);
  std::printf("%-10s %-9s %10s %12s %12s\n", "preset", "variant", "ms/step", "tokens/s", "cpu ms/step");
  if (!only_preset.empty()) {
    const Figure f = measure(only_preset, only_variant.empty() ? "baseline" : only_variant, steps, batch_tokens);
    std::printf("%-10s %-9s %10.2f %12.0f %12.2f\n", only_preset.c_str(), only_variant.c_str(), f.ms_per_step,
                f.tokens_per_s, f.cpu_ms_per_step);
    return 0;
  }
  const Figure tiny = measure("tiny-0.1m", "baseline", steps, batch_tokens);
  std::printf("%-10s %-9s %10.2f %12.0f %12.2f\n", "tiny-0.1m", "baseline", tiny.ms_per_step, tiny.tokens_per_s,
              tiny.cpu_ms_per_step);
  for (const char* preset : {"tiny-2m", "tiny-8m"}) {
    const Figure base = measure(preset, "baseline", steps, batch_tokens);
    const Figure uni = measure(preset, "unified", steps, batch_tokens);
    std::printf("%-10s %-9s %10.2f %12.0f %12.2f\n", preset, "baseline", base.ms_per_step, base.tokens_per_s,
                base.cpu_ms_per_step);
    std::printf("%-10s %-9s %10.2f %12.0f %12.2f\n", preset, "unified", uni.ms_per_step, uni.tokens_per_s,
                uni.cpu_ms_per_step);
    std::printf("%-10s unified/baseline ratio: wall %.3f, cpu %.3f\n", preset, uni.ms_per_step / base.ms_per_step,
                uni.cpu_ms_per_step / base.cpu_ms_per_step);
  }
  return 0;
}
