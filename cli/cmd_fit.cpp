// gammalab fit: scaling-law fits with bootstrap intervals and compute multipliers, from a CSV of runs
// (--points FILE.csv, or a positional file) or from a sweep's finished jobs (positional SWEEP id).
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "cli/command.h"
#include "cli/fit_view.h"
#include "cli/client/sweep_runs.h"
#include "core/scaling/csv_points.h"
#include "core/scaling/fit_runs.h"
#include "core/scaling/fit.h"

namespace gammalab::cli {
namespace {

struct FitArgs {
  std::string source;  // positional: a CSV file, else a sweep id
  std::string points;  // --points
  std::string law;
  std::string group_by;
  std::uint64_t seed = 0;
  FitOptions options;
};

std::vector<RunPoint> load_runs(const FitArgs& args, const CliContext& context) {
  if (!args.points.empty() && !args.source.empty()) throw std::invalid_argument("fit: give --points or SWEEP, not both");
  const std::string csv = !args.points.empty() ? args.points
                          : std::filesystem::is_regular_file(args.source) ? args.source
                                                                          : std::string();
  if (!csv.empty()) return read_points_csv(csv, args.group_by);
  if (args.source.empty()) throw std::invalid_argument("fit: give --points FILE.csv or a sweep id");
  return fetch_sweep_runs(context.server, args.source, args.group_by);
}

}  // namespace

void add_fit_command(CLI::App& app, CliContext& context) {
  auto args = std::make_shared<FitArgs>();
  auto* cmd = app.add_subcommand("fit", "fit scaling laws with bootstrap intervals and compute multipliers");
  cmd->add_option("sweep", args->source, "sweep id (final losses from the coordinator), or a CSV file");
  cmd->add_option("--points", args->points, "CSV with header params,tokens,loss[,group][,compute]");
  cmd->add_option("--law", args->law, "n | c | chinchilla | isoflop (default: chinchilla if tokens vary, else n)")
      ->check(CLI::IsMember({"n", "c", "chinchilla", "isoflop"}));
  cmd->add_option("--group-by", args->group_by, "column (CSV) or job field (sweep) that names the group");
  cmd->add_option("--baseline", args->options.baseline, "group the multipliers are relative to")
      ->default_val("baseline");
  cmd->add_option("--bootstrap", args->options.bootstrap, "bootstrap resamples (0: none)")
      ->default_val(1000)
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--seed", args->seed, "bootstrap seed (same seed, same intervals)")->default_val(0);
  cmd->add_option("--budgets", args->options.budgets, "compute budgets for multipliers, e.g. 1e18,1e19")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  cmd->add_option("--threads", args->options.settings.threads, "threads for starts and resamples")
      ->default_val(2)
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--holdout-largest", args->options.holdout_largest,
                "also fit without the largest model size and report the error predicting it");
  cmd->callback([args, &context] {
    quiet_solver_logging();
    const auto runs = load_runs(*args, context);
    FitOptions options = args->options;
    options.seed = args->seed;
    if (!args->law.empty()) options.law = parse_law(args->law);
    const FitReport report = fit_runs(runs, options);
    std::cout << (context.json ? to_json(report).dump(2) + "\n" : fit_report_text(report));
  });
}

}  // namespace gammalab::cli
