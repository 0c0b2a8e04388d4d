// gammalab plan FILE: the jobs a sweep expands to and what they cost (no server needed): per job its
// parameters, token budget, steps and training FLOPs; in total PF-days and GPU-hours at --mfu of --peak-tflops.
// A sweep with a tune stage lists the tune jobs first and costs each stage (the main stage at its base
// values: the picks change values such as the LR, not the cost).
#include <cmath>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/command.h"
#include "core/file_util.h"
#include "cli/table.h"
#include "core/config_paths.h"
#include "core/sweep/sweep.h"
#include "core/sweep/plan.h"

namespace gammalab::cli {
namespace {

struct PlanArgs {
  std::string file;
  PlanAssumptions assumptions;
  std::size_t max_jobs = SweepOptions{}.max_jobs;
  std::string presets;
};

// 123456789 -> "123.5M": counts people read at a glance.
std::string with_suffix(double value) {
  static const char* suffixes[] = {"", "k", "M", "B", "T"};
  int i = 0;
  while (std::abs(value) >= 1000 && i < 4) {
    value /= 1000;
    ++i;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, i == 0 ? "%.0f%s" : "%.1f%s", value, suffixes[i]);
  return buf;
}

std::string scientific(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2e", value);
  return buf;
}

std::string fixed(double value, int digits) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", digits, value);
  return buf;
}

std::string render(const SweepPlan& plan) {
  using Align = TextTable::Align;
  TextTable table({{"job", Align::kLeft},
                   {"params", Align::kRight},
                   {"tokens", Align::kRight},
                   {"steps", Align::kRight},
                   {"FLOPs", Align::kRight},
                   {"hash", Align::kLeft}});
  for (const auto& row : plan.rows) {
    table.add_row({row.name, with_suffix(double(row.params)), with_suffix(double(row.tokens)),
                   std::to_string(row.steps), scientific(row.flops), row.config_hash});
  }
  std::ostringstream out;
  out << "sweep '" << plan.sweep << "': " << plan.rows.size() << " job(s)\n\n" << table.render() << "\n";
  out << "total: " << with_suffix(double(plan.total_tokens)) << " tokens, " << scientific(plan.total_flops)
      << " FLOPs = " << (plan.pf_days < 0.01 ? scientific(plan.pf_days) : fixed(plan.pf_days, 2)) << " PF-days = "
      << (plan.gpu_hours < 0.01 ? scientific(plan.gpu_hours) : fixed(plan.gpu_hours, 1)) << " GPU-hours at "
      << fixed(plan.assumptions.mfu * 100, 0) << "% MFU of " << fixed(plan.assumptions.peak_tflops, 0)
      << " TFLOP/s per GPU\n";
  return out.str();
}

}  // namespace

void add_plan_command(CLI::App& app, CliContext& context) {
  auto args = std::make_shared<PlanArgs>();
  auto* cmd = app.add_subcommand("plan", "show the jobs of a sweep file and their compute (no server needed)");
  cmd->add_option("file", args->file, "sweep YAML file")->required()->check(CLI::ExistingFile);
  cmd->add_option("--mfu", args->assumptions.mfu, "model FLOPs utilisation")
      ->capture_default_str()->check(CLI::Range(1e-6, 1.0));
  cmd->add_option("--peak-tflops", args->assumptions.peak_tflops, "device peak TFLOP/s (H100/H200 bf16 dense: 989)")
      ->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--max-jobs", args->max_jobs, "refuse sweeps that expand to more jobs")->capture_default_str();
  cmd->add_option("--presets", args->presets, "model preset directory (default: configs/models)");
  cmd->callback([args, &context] {
    SweepOptions options;
    options.max_jobs = args->max_jobs;
    options.preset_dir = args->presets.empty() ? model_preset_dir() : std::filesystem::path(args->presets);
    SweepStages stages;
    try {
      stages = expand_stages(read_file(args->file), args->file, options);
    } catch (const SweepError& e) {
      for (const auto& p : e.diagnostics()) std::cerr << p.to_string() << "\n";
      context.exit_code = 1;
      return;
    }
    Sweep all = stages.main;
    if (stages.tune) all.jobs.insert(all.jobs.begin(), stages.tune->jobs.begin(), stages.tune->jobs.end());
    const SweepPlan plan = plan_sweep(all, args->assumptions);
    if (!stages.tune) {
      std::cout << (context.json ? to_json(plan).dump(2) + "\n" : render(plan));
      return;
    }
    const SweepPlan tune = plan_sweep(*stages.tune, args->assumptions);
    const SweepPlan main = plan_sweep(stages.main, args->assumptions);
    if (context.json) {
      nlohmann::json out = to_json(plan);
      out["stages"] = {{"tune", to_json(tune)}, {"main", to_json(main)}};
      std::cout << out.dump(2) << "\n";
      return;
    }
    std::cout << render(plan);
    for (const auto& [name, stage] : {std::pair{"tune", &tune}, std::pair{"main", &main}}) {
      std::cout << name << " stage: " << stage->rows.size() << " job(s), " << scientific(stage->total_flops)
                << " FLOPs (" << fixed(100.0 * stage->total_flops / plan.total_flops, 1) << "%)\n";
    }
  });
}

}  // namespace gammalab::cli
