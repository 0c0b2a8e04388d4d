// gammalab plan FILE: the jobs a sweep expands to and what they cost (no server needed): per job its
// parameters, token budget, steps and training FLOPs; in total PF-days and GPU-hours at --mfu of --peak-tflops.
// A sweep with a tune stage lists the tune jobs first and costs each stage (the main stage at its base
// values: the picks change values such as the LR, not the cost). With two or more sizes it also says what the
// sweep can detect: the simulated power of its paired seeds to exclude 1× for a stated effect (--effect,
// default the paper's 1.22×) against a stated arm (--against) at a stated noise (its shape and the LR pick's
// too), how often the intervals hold the truth, and how many seeds reach 80% (core/scaling/power.h).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <iostream>
#include <sstream>
#include <thread>

#include "cli/command.h"
#include "cli/exit_status.h"
#include "cli/next_move_view.h"
#include "core/file_util.h"
#include "cli/number_text.h"
#include "cli/table.h"
#include "cli/terminal.h"
#include "core/config_paths.h"
#include "core/job_stage.h"
#include "core/param_count.h"
#include "core/sweep/sweep.h"
#include "core/sweep/plan.h"
#include "core/sweep/tune_rounds.h"
#include "core/scaling/csv_points.h"
#include "core/scaling/noise_estimate.h"
#include "core/scaling/power.h"

namespace gammalab::cli {
namespace {

struct PlanArgs {
  std::string file;
  PlanAssumptions assumptions;
  std::size_t max_jobs = SweepOptions{}.max_jobs;
  std::string presets;
  PowerDesign power;  // compute and seeds from the sweep; the effect and noise from flags
  bool no_power = false;
  std::string noise_from;      // a previous sweep's runs (CSV as `gammalab fit --points` reads it)
  std::string noise_baseline;  // default: --against
  std::string against = "baseline";  // the arm the effect is measured against (a control such as qknorm)
  std::vector<CLI::Option*> noise_flags;  // --noise, --seed-correlation, --loss-slope: given, they win
  bool next = false;                      // the moves that would grow the design (cli/next_move_view.h)
  double target_width = 0.0;              // with --next: the greedy path to this hi/lo
  double budget = std::numeric_limits<double>::infinity();  // FLOPs that path may add
  int max_moves = 20;
  bool below_ladder = false;  // with --next: sizes below the smallest may be moves
};

std::string notes(const SweepPlan& plan, bool gpu);

// `gpu`: some job asks for a GPU. A CPU-only sweep gets no GPU-hours at a GPU's peak: they would mean nothing.
std::string render(const SweepPlan& plan, bool gpu) {
  using Align = TextTable::Align;
  // At a narrow terminal the hash goes first, then `params` (N (fit) stays: the fit's), then names are cut.
  TextTable table({{"job", Align::kLeft, 0, /*elastic=*/true},
                   {"params", Align::kRight, 2},
                   {"N (fit)", Align::kRight},
                   {"tokens", Align::kRight},
                   {"steps", Align::kRight},
                   {"FLOPs", Align::kRight},
                   {"hash", Align::kLeft, 1}});
  for (const auto& row : plan.rows) {
    // A branch's steps as the ones it trains of its run's: 41-50 of 50.
    const std::string steps = row.start_step == 0 ? std::to_string(row.steps)
                                                  : std::to_string(row.start_step + 1) + "-" + std::to_string(row.steps);
    table.add_row({row.name, count_text(double(row.params)), count_text(double(row.fit_params)),
                   count_text(double(row.tokens)), steps,
                   scientific(row.flops), row.config_hash});
  }
  std::ostringstream out;
  out << "sweep '" << plan.sweep << "': " << plan.rows.size() << " job(s)\n\n" << table.render_fitted(output_columns());
  return out.str() + wrap_prose(notes(plan, gpu), output_columns());
}

// The plan's sentences under its table: what its two counts mean, and its total cost.
std::string notes(const SweepPlan& plan, bool gpu) {
  std::ostringstream out;
  // Two counts of one model, each named: budgets are written in `params`, the fit reads N and its FLOPs.
  out << "params: the sweep's `params` (activated, with embeddings), which budgets use\n"
         "N (fit): non-embedding activated parameters of each job's variant, which the fit uses\n\n";
  out << "total: " << count_text(double(plan.total_tokens)) << " tokens, " << scientific(plan.total_flops);
  const std::string saving =
      plan.branches == 0
          ? ""
          : "branches: " + std::to_string(plan.branches) + " of the jobs are cooldown branches, trained from their " +
                "run's checkpoint; the same (N, D) grid as independent runs would cost " +
                scientific(plan.independent_flops) + " FLOPs: this plan is " +
                fixed(100.0 * plan.total_flops / plan.independent_flops, 0) + "% of that\n";
  if (!gpu) {
    out << " FLOPs (every job runs on the CPU: no GPU-hours)\n" << saving;
    return out.str();
  }
  out << " FLOPs = " << (plan.pf_days < 0.01 ? scientific(plan.pf_days) : fixed(plan.pf_days, 2)) << " PF-days = "
      << (plan.gpu_hours < 0.01 ? scientific(plan.gpu_hours) : fixed(plan.gpu_hours, 1)) << " GPU-hours at "
      << fixed(plan.assumptions.mfu * 100, 0) << "% MFU of " << fixed(plan.assumptions.peak_tflops, 0)
      << " TFLOP/s per GPU\n" << saving;
  return out.str();
}

// The sizes of the main stage (distinct params and token budget) with the compute of each, and the seeds every
// size has (the fewest over sizes; each size's own in seeds_per_size where they differ): the design a paired
// comparison of two variants of this sweep would have.
// The sizes are the baseline's (of the first variant when there is none): a variant whose model differs (the
// qknorm control's QK-norm) has a few more parameters at the same size, and is no size of its own.
// The compute is the fit's own (core/scaling/run_point.h: 6 N non-embedding plus attention, per token), so the
// spacing of sizes in e-folds of compute is the one the fit's slope is per.
PowerDesign power_design(const Sweep& sweep, PowerDesign design, const std::string& against) {
  const bool has_against = std::any_of(sweep.jobs.begin(), sweep.jobs.end(),
                                       [&](const auto& job) { return job.config.scale.variant == against; });
  if (!has_against && against != "baseline") {
    throw std::invalid_argument("plan: --against " + against + ": no job of the sweep has scale.variant " + against);
  }
  const std::string reference = has_against ? against : sweep.jobs.empty() ? "" : sweep.jobs[0].config.scale.variant;
  std::map<std::pair<std::int64_t, std::int64_t>, std::pair<double, std::set<std::uint64_t>>> sizes;
  for (const auto& job : sweep.jobs) {
    // A run's cooldown branches share its stable phase, and with it most of its noise: counting them as sizes
    // of their own would overstate the power. The design is the runs'.
    if (job.config.scale.variant != reference || job.parent) continue;
    auto& [compute, seeds] = sizes[{job.params, job.tokens}];
    compute = job_flops_per_token(job.config) * double(job.tokens);
    seeds.insert(job.config.seed);
  }
  std::vector<std::pair<double, int>> by_compute;
  for (const auto& [size, entry] : sizes) by_compute.emplace_back(entry.first, static_cast<int>(entry.second.size()));
  std::sort(by_compute.begin(), by_compute.end());
  design.compute.clear();
  design.seeds_per_size.clear();
  design.seeds = 0;
  for (const auto& [compute, seeds] : by_compute) {
    design.compute.push_back(compute);
    design.seeds_per_size.push_back(seeds);
    design.seeds = design.seeds == 0 ? seeds : std::min(design.seeds, seeds);
  }
  if (std::all_of(design.seeds_per_size.begin(), design.seeds_per_size.end(),
                  [&](int seeds) { return seeds == design.seeds; })) {
    design.seeds_per_size.clear();
  }
  return design;
}

// The arms of the main stage: runs per paired seed, which a move pays for.
int arm_count(const Sweep& sweep) {
  std::set<std::string> arms;
  for (const auto& job : sweep.jobs) arms.insert(job.config.scale.variant);
  return std::max<int>(2, static_cast<int>(arms.size()));
}

NextMoveReport next_move_report(const PlanArgs& args, const PowerDesign& design, int arms) {
  constexpr int kMaxFixedSeeds = 64;
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const MoveRules rules{arms, args.below_ladder};
  NextMoveReport report{design, arms, rank_moves(design, rules, threads), std::nullopt, std::nullopt, std::nullopt,
                        args.budget};
  if (args.target_width > 0.0) {
    report.target = args.target_width;
    // Each move values every candidate by simulation (seconds each): say how far the path has got, on stderr.
    int made = 0;
    report.path = plan_to_width(design, rules, args.target_width, args.budget, args.max_moves, threads,
                                [&](const MoveValue& v) {
                                  std::cerr << "(planning: move " << ++made << " made, " << fixed(v.ratio_after, 3)
                                            << "× wide)\n";
                                });
    report.fixed = fixed_design_for_width(design, arms, args.target_width, kMaxFixedSeeds);
  }
  return report;
}

struct PowerReport {
  PowerDesign design;
  PowerEstimate estimate;
  std::optional<int> seeds_for_80;  // only when the power is below 50%
  bool searched = false;
  std::string measured;  // where the noise came from, when measured
  std::string against = "baseline";
};

PowerReport power_report(const PowerDesign& design) {
  PowerReport report{design, simulate_power(design), std::nullopt, true, ""};
  report.seeds_for_80 = report.estimate.power >= 0.8 ? design.seeds : seeds_for_power(design, 0.8, 64);
  return report;
}

// "normal", "Student's t with 4 df", "the shape of 36 measured residuals"
std::string noise_shape_text(const PowerDesign& d) {
  if (!d.noise_shape.empty()) return "the shape of " + std::to_string(d.noise_shape.size()) + " measured residuals";
  if (d.noise_df > 2.0) return "Student's t with " + significant(d.noise_df, 3) + " df";
  return "normal";
}

// "3 paired seeds", or "2-4 paired seeds" where the sizes have different counts.
std::string seeds_text(const PowerDesign& d) {
  int most = d.seeds;
  for (int k : d.seeds_per_size) most = std::max(most, k);
  const std::string count =
      most == d.seeds ? std::to_string(d.seeds) : std::to_string(d.seeds) + "-" + std::to_string(most);
  return count + (most == 1 ? " paired seed" : " paired seeds");
}

std::string render_power(const PowerReport& p) {
  const PowerDesign& d = p.design;
  std::ostringstream out;
  out << "\npower (simulated, " << d.studies << " studies; the local multiplier's " << fixed(100 * d.confidence, 0)
      << "% paired interval): " << d.compute.size() << " sizes × " << seeds_text(d) << ", effect "
      << fixed(d.multiplier, 2) << "× over "
      << p.against << ", noise " << significant(d.noise, 3) << " in loss (" << noise_shape_text(d)
      << "; seed correlation " << significant(d.seed_correlation, 3) << "), " << p.against << " falling "
      << significant(d.loss_slope, 3) << " per e-fold of the fit's compute\n";
  if (d.pick_noise > 0.0 && d.lr_curvature > 0.0) {
    out << "  each arm's LR pick off its optimum by s.d. " << significant(d.pick_noise, 3) << " in log2 LR, costing "
        << significant(d.lr_curvature, 3) << " in loss per squared log2 step, shared by the seeds of that arm and size\n";
  }
  if (!p.measured.empty()) out << "  (" << p.measured << ")\n";
  out << "  power to exclude 1×: " << percent(p.estimate.power) << "; median interval "
      << (std::isnan(p.estimate.median_ratio) ? std::string("none (one seed: no interval)")
                                              : fixed(p.estimate.median_ratio, 2) + "× wide (hi/lo)")
      << ", pooled over the " << d.compute.size() << " sizes (" << p.estimate.sizes_inside
      << " inside the data in the median study)\n";
  if (!std::isnan(p.estimate.median_ratio)) {
    out << "  the " << fixed(100 * d.confidence, 0) << "% intervals hold the true " << fixed(d.multiplier, 2)
        << "× in " << percent(p.estimate.coverage) << " of the studies"
        << (p.estimate.coverage < d.confidence - 0.05
                ? ": noise the seeds do not resample (the LR pick's) makes them too narrow"
                : "")
        << "\n";
  }
  if (p.estimate.power >= 0.8) {
    out << "  80% power: reached with these " << d.seeds << " paired seeds per size\n";
  } else {
    out << (p.estimate.power < 0.5 ? "  warning: below 50% power; " : "  80% power: ")
        << (p.seeds_for_80 ? std::to_string(*p.seeds_for_80) + " paired seeds per size would reach it"
                           : std::string("even 64 paired seeds per size would not reach it: add sizes between the "
                                         "ones planned, or expect a larger effect"))
        << "\n";
  }
  return out.str();
}

nlohmann::json power_json(const PowerReport& p) {
  nlohmann::json j = {{"sizes", p.design.compute.size()},
                      {"seeds", p.design.seeds},
                      {"effect", p.design.multiplier},
                      {"noise", p.design.noise},
                      {"seed_correlation", p.design.seed_correlation},
                      {"loss_slope", p.design.loss_slope},
                      {"against", p.against},
                      {"noise_shape", noise_shape_text(p.design)},
                      {"pick_noise", p.design.pick_noise},
                      {"lr_curvature", p.design.lr_curvature},
                      {"studies", p.design.studies},
                      {"power", p.estimate.power},
                      {"sizes_inside", p.estimate.sizes_inside},
                      {"coverage", p.estimate.coverage}};
  j["median_interval_ratio"] = std::isnan(p.estimate.median_ratio) ? nlohmann::json(nullptr)
                                                                   : nlohmann::json(p.estimate.median_ratio);
  if (!p.measured.empty()) j["measured"] = p.measured;
  if (p.searched) j["seeds_for_80"] = p.seeds_for_80 ? nlohmann::json(*p.seeds_for_80) : nlohmann::json(nullptr);
  return j;
}

// Sets the noise, seed correlation and slope of `design` from --noise-from's runs, except those given as flags;
// returns what was measured, in words.
std::string measured_noise(const PlanArgs& args, PowerDesign& design) {
  const std::string reference = args.noise_baseline.empty() ? args.against : args.noise_baseline;
  const auto measured = measure_noise(read_points_csv(args.noise_from), reference);
  if (!measured) {
    throw std::invalid_argument("plan: " + args.noise_from + " has no replicated configuration of '" +
                                reference + "' at two or more sizes: no noise to measure");
  }
  const bool given[] = {args.noise_flags[0]->count() > 0, args.noise_flags[1]->count() > 0,
                        args.noise_flags[2]->count() > 0};
  // The measured shape, unless a shape is stated (--noise-df) or the noise itself is.
  if (!given[0] && design.noise_df == 0.0) design.noise_shape = measured->shape;
  if (!given[0]) design.noise = measured->noise;
  if (!given[1]) design.seed_correlation = measured->seed_correlation;
  if (!given[2]) design.loss_slope = measured->loss_slope;
  std::ostringstream out;
  out << "measured on " << args.noise_from << ": noise " << fixed(measured->noise, 4) << " ("
      << measured->degrees_of_freedom << " degrees of freedom), seed correlation "
      << fixed(measured->seed_correlation, 2) << " from "
      << measured->pairs << " pairs, slope " << fixed(measured->loss_slope, 4) << " per e-fold"
      << (given[0] || given[1] || given[2] ? "; flags given override" : "");
  return out.str();
}

}  // namespace

void add_plan_command(CLI::App& app, CliContext& context) {
  auto args = std::make_shared<PlanArgs>();
  auto* cmd = app.add_subcommand("plan", "show the jobs of a sweep file and their compute (no server needed)");
  cmd->footer(examples({
                       "gammalab plan configs/sweeps/dense-ladder.yaml",
                       "gammalab plan study.yaml --effect 1.22 --noise 0.02   # power to see 1.22x",
                       "gammalab plan study.yaml --noise-from points.csv      # noise of earlier runs"}));
  cmd->add_option("file", args->file, "sweep YAML file")->required()->check(CLI::ExistingFile);
  cmd->add_option("--mfu", args->assumptions.mfu, "model FLOPs utilisation")
      ->capture_default_str()->check(CLI::Range(1e-6, 1.0));
  cmd->add_option("--peak-tflops", args->assumptions.peak_tflops, "device peak TFLOP/s (H100/H200 bf16 dense: 989)")
      ->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--max-jobs", args->max_jobs, "refuse sweeps that expand to more jobs")->capture_default_str();
  cmd->add_option("--presets", args->presets, "model preset directory (default: configs/models)");
  cmd->add_option("--effect", args->power.multiplier, "compute multiplier to detect (power section)")
      ->capture_default_str()->check(CLI::PositiveNumber);
  args->noise_flags.push_back(
      cmd->add_option("--noise", args->power.noise, "s.d. of a run's final loss over seeds (power section)")
      ->capture_default_str()->check(CLI::PositiveNumber));
  args->noise_flags.push_back(cmd->add_option("--seed-correlation", args->power.seed_correlation,
                  "share of that variance common to two variants' runs of one seed and size")
      ->capture_default_str()->check(CLI::Range(0.0, 0.99)));
  args->noise_flags.push_back(
      cmd->add_option("--loss-slope", args->power.loss_slope, "the baseline's loss decrease per e-fold of compute")
          ->capture_default_str()->check(CLI::PositiveNumber));
  cmd->add_option("--noise-from", args->noise_from,
                  "measure noise, seed correlation and slope on a previous sweep's runs (CSV with seed column)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--noise-baseline", args->noise_baseline, "the baseline group of --noise-from (default: --against)");
  cmd->add_option("--against", args->against, "the arm the effect is measured against (baseline, or a control)")
      ->capture_default_str();
  cmd->add_option("--noise-df", args->power.noise_df,
                  "heavy-tailed seed noise: Student's t with this many degrees of freedom (> 2)")
      ->check(CLI::Range(2.000001, 1e6));
  cmd->add_option("--pick-noise", args->power.pick_noise,
                  "s.d. of each arm's picked LR around its optimum, in log2 units (with --lr-curvature)")
      ->capture_default_str()->check(CLI::Range(0.0, 10.0));
  cmd->add_option("--lr-curvature", args->power.lr_curvature,
                  "loss increase per squared log2 step of LR away from the optimum (with --pick-noise)")
      ->capture_default_str()->check(CLI::Range(0.0, 100.0));
  cmd->add_flag("--no-power", args->no_power, "skip the power simulation");
  cmd->add_flag("--next", args->next,
                "the runs that would narrow the interval most per FLOP: a seed, a new size (simulated)");
  cmd->add_option("--target-width", args->target_width,
                  "with --next: moves until the median interval is this wide (hi/lo, e.g. 1.21 for about x1.10)")
      ->check(CLI::Range(1.000001, 1e6));
  cmd->add_option("--budget", args->budget, "with --target-width: FLOPs the moves may add")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--below-ladder", args->below_ladder,
                "with --next: sizes below the smallest may be moves (cheap, but about smaller scales than the claim)");
  cmd->add_option("--max-moves", args->max_moves, "with --target-width: the most moves to plan")
      ->capture_default_str()->check(CLI::Range(1, 200));
  cmd->callback([args, &context] {
    SweepOptions options;
    options.max_jobs = args->max_jobs;
    options.preset_dir = args->presets.empty() ? model_preset_dir() : std::filesystem::path(args->presets);
    SweepStages stages;
    try {
      stages = expand_stages(read_file(args->file), args->file, options);
    } catch (const SweepError& e) {
      for (const auto& p : e.diagnostics()) std::cerr << p.to_string() << "\n";
      context.exit_code = exit_status::kError;
      return;
    }
    std::optional<PowerReport> power;
    PowerDesign assumed = args->power;
    std::string measured;
    if (!args->noise_from.empty()) measured = measured_noise(*args, assumed);
    const PowerDesign design = power_design(stages.main, assumed, args->against);
    if (!args->no_power && design.compute.size() >= 2) power = power_report(design);
    std::optional<NextMoveReport> next;
    if (args->next) {
      if (design.compute.size() < 2) throw std::invalid_argument("plan --next: the main stage has fewer than 2 sizes");
      next = next_move_report(*args, design, arm_count(stages.main));
    }
    if (power) {
      power->measured = measured;
      power->against = args->against;
    }
    Sweep all = stages.main;
    if (stages.tune) all.jobs.insert(all.jobs.begin(), stages.tune->jobs.begin(), stages.tune->jobs.end());
    const SweepPlan plan = plan_sweep(all, args->assumptions);
    const bool gpu = std::any_of(all.jobs.begin(), all.jobs.end(),
                                 [](const auto& job) { return job.config.device == DeviceKind::Cuda; });
    if (!stages.tune) {
      nlohmann::json out = to_json(plan);
      if (power) out["power"] = power_json(*power);
      if (next) out["next"] = next_move_json(*next);
      const std::string power_text = power ? wrap_prose(render_power(*power), output_columns()) : "";
      std::cout << (context.json ? out.dump(2) + "\n"
                                 : render(plan, gpu) + power_text + (next ? render_next_move(*next) : ""));
      return;
    }
    const SweepPlan tune = plan_sweep(*stages.tune, args->assumptions);
    const SweepPlan main = plan_sweep(stages.main, args->assumptions);
    if (context.json) {
      nlohmann::json out = to_json(plan);
      out["stages"] = {{job_stage::kTune, to_json(tune)}, {job_stage::kMain, to_json(main)}};
      out["tune_rounds_max_jobs"] = max_tune_round_jobs(stages);
      if (power) out["power"] = power_json(*power);
      if (next) out["next"] = next_move_json(*next);
      std::cout << out.dump(2) << "\n";
      return;
    }
    std::cout << render(plan, gpu);
    std::ostringstream stages_text;
    for (const auto& [name, stage] : {std::pair{job_stage::kTune, &tune}, std::pair{job_stage::kMain, &main}}) {
      stages_text << name << " stage: " << stage->rows.size() << " job(s), " << scientific(stage->total_flops)
                << " FLOPs (" << fixed(100.0 * stage->total_flops / plan.total_flops, 1) << "%)\n";
    }
    if (const std::size_t rounds = max_tune_round_jobs(stages); rounds > 0 && !tune.rows.empty()) {
      // Rounds are added only where a pick needs them: this is their most, costed as the average tune job.
      stages_text << "tune rounds (" << (stages.extend > 0 ? "tune.extend: " + std::to_string(stages.extend) : "")
                << (stages.extend > 0 && stages.refine ? ", " : "") << (stages.refine ? "tune.refine" : "")
                << "): at most " << rounds << " more job(s), about "
                << scientific(tune.total_flops * double(rounds) / double(tune.rows.size())) << " FLOPs\n";
    }
    if (power) stages_text << render_power(*power);
    std::cout << wrap_prose(stages_text.str(), output_columns()) << (next ? render_next_move(*next) : "");
  });
}

}  // namespace gammalab::cli
