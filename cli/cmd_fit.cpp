// gammalab fit: scaling-law fits with bootstrap intervals and compute multipliers, from a CSV of runs
// (--points FILE.csv, or a positional file) or from a sweep's finished jobs (positional SWEEP id). A sweep id
// with no fitting option prints the coordinator's latest stored fit (every law of it), so the CLI, the
// dashboard and the HTTP API show the same answer; any fitting option, or --refit, fits here instead.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>

#include "cli/command.h"
#include "cli/table.h"
#include "absl/strings/str_join.h"
#include "cli/fit_view.h"
#include "cli/terminal.h"
#include "cli/client/sweep_runs.h"
#include "core/scaling/csv_points.h"
#include "core/scaling/adaptive_step.h"
#include "core/scaling/law_free_comparison.h"
#include "core/scaling/fit_runs.h"
#include "core/scaling/fit.h"
#include "core/scaling/fit_options.h"
#include "core/scaling/fit_report.h"
#include "core/scaling/law_choice.h"
#include "cli/law_choice_view.h"
#include "cli/law_form_view.h"
#include "cli/next_move_view.h"
#include "cli/arm_gate_view.h"
#include "core/scaling/law_form_fit.h"

namespace gammalab::cli {
namespace {

struct FitArgs {
  std::string source;  // positional: a CSV file, else a sweep id
  std::string points;  // --points
  std::vector<std::string> laws;  // --law, repeatable: several forms are compared (core/scaling/law_choice.h)
  std::vector<std::string> law_files;  // --law-file, repeatable: laws written as files (core/scaling/law_form.h)
  std::vector<std::string> profile;    // --profile, repeatable: a law file's parameters to profile
  std::string group_by;
  std::uint64_t seed = 0;
  std::optional<double> huber_delta;  // --huber-delta: the law fits' delta as given
  std::string predict;                // --predict: a CSV of rows to predict
  bool refit = false;
  bool detail = false;  // --detail: the tables behind the verdict
  bool next = false;    // --next: what the study should run next (core/scaling/adaptive_step.h)
  double target_width = AdaptiveTarget{}.ratio;
  double effect = PowerDesign{}.multiplier;  // the effect the moves are valued at
  std::optional<double> gate;                // --gate: promote or drop each arm at this multiplier
  std::string gate_rule = "plausible";
  FitOptions options;
  std::vector<CLI::Option*> fitting;  // options that change the fit: given, the stored fit does not answer
};

bool is_csv(const FitArgs& args) {
  return !args.points.empty() || std::filesystem::is_regular_file(args.source);
}

// The stored fit answers a sweep id given alone. Returns false (nothing printed) when there is none yet.
FitTextOptions text_options(const FitArgs& args) { return {args.detail, output_columns()}; }

bool print_stored_fit(const FitArgs& args, const CliContext& context) {
  const std::vector<v1::Fit> fits = fetch_latest_fits(context.server, args.source);
  if (fits.empty()) return false;
  if (context.json) {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& fit : fits) {
      all.push_back({{"version", fit.version()},
                     {"law", fit.law()},
                     {"jobs", fit.job_ids_size()},
                     {"report", nlohmann::json::parse(fit.report_json())}});
    }
    std::cout << all.dump(2) << "\n";
    return true;
  }
  std::vector<FitReport> reports;
  for (const auto& fit : fits) reports.push_back(fit_report_from_json(nlohmann::json::parse(fit.report_json())));
  // Every law's verdict leads with the same law-free local multiplier; without --detail the verdict is shown
  // once, one headline per comparison: from the first law with a compute frontier (its check is the law's
  // multiplier), the report the dashboard's study card reads too (web/series.js), the others named.
  const auto has_check = [](const FitReport& r) { return !r.multipliers.empty(); };
  const auto first_check = std::find_if(reports.begin(), reports.end(), has_check);
  const std::size_t shown = first_check == reports.end() ? reports.size() : first_check - reports.begin();
  std::vector<std::string> without_check;
  std::vector<std::string> other_check;
  for (std::size_t i = 0; i < fits.size(); ++i) {
    if (!args.detail && shown < reports.size() && i != shown) {
      (has_check(reports[i]) ? other_check : without_check).push_back("law " + fits[i].law());
      continue;
    }
    std::cout << "== stored fit v" << fits[i].version() << " of sweep " << args.source << ", law " << fits[i].law()
              << ", " << fits[i].job_ids_size() << " jobs\n"
              << fit_report_text(reports[i], text_options(args)) << "\n";
  }
  std::vector<std::string> also;
  if (!without_check.empty()) also.push_back(absl::StrJoin(without_check, ", ") + ", whose verdict has no law check");
  if (!other_check.empty()) {
    also.push_back(absl::StrJoin(other_check, ", ") + ", the same comparisons with its own law as the check");
  }
  if (!also.empty()) {
    std::cout << wrap_prose("(also stored: " + absl::StrJoin(also, "; ") + "; --detail shows every law)\n",
                            output_columns());
  }
  return true;
}

SweepRuns load_runs(const FitArgs& args, const CliContext& context) {
  if (!args.points.empty() && !args.source.empty()) throw std::invalid_argument("fit: give --points or SWEEP, not both");
  if (is_csv(args)) return {read_points_csv(args.points.empty() ? args.source : args.points, args.group_by), {}};
  if (args.source.empty()) throw std::invalid_argument("fit: give --points FILE.csv or a sweep id");
  return fetch_sweep_runs(context.server, args.source, args.group_by);
}

LawFormSettings law_form_settings(const FitArgs& args) {
  LawFormSettings settings;
  settings.bootstrap = args.options.bootstrap;
  settings.seed = args.seed;
  settings.threads = args.options.settings.threads;
  settings.baseline = args.options.baseline;
  settings.budgets = args.options.budgets;
  settings.profile = args.profile;
  if (args.huber_delta) {
    settings.huber_delta = *args.huber_delta;
    settings.delta_given = true;
  }
  return settings;
}

// The built-in laws' options from the command line, with what the runs brought (the tune runs at each pick).
FitOptions fit_options(const FitArgs& args, SweepRuns& runs) {
  FitOptions options = args.options;
  options.tune_runs_at_pick = std::move(runs.tune_runs_at_pick);
  options.seed = args.seed;
  if (args.laws.size() == 1) options.law = parse_law(args.laws.front());
  if (!args.predict.empty()) options.predict = read_points_csv(args.predict, "", LossColumn::kOptional);
  if (args.huber_delta) {
    options.settings.huber_delta = *args.huber_delta;
    options.settings.delta_given = true;
  }
  return options;
}

// A law written as a file, fitted to a CSV's columns, or to a sweep's runs (params, tokens and compute) that the
// caller fetched once for every form.
LawFormReport fit_law_file(const std::string& path, const FitArgs& args, const std::optional<SweepRuns>& sweep,
                           const LawFormSettings& settings) {
  const LawForm form = read_law_form(path);
  const LawRows rows = sweep ? law_rows_from_runs(sweep->runs, form.variables)
                             : read_law_rows_csv(args.points.empty() ? args.source : args.points, form.variables,
                                                 args.group_by);
  std::optional<LawRows> predict;
  if (!args.predict.empty()) predict = read_law_rows_csv(args.predict, form.variables, "", LossColumn::kOptional);
  return fit_law_form(form, rows, settings, predict ? &*predict : nullptr);
}

// The runs of a sweep id (nullopt for a CSV, which each form reads for its own columns).
std::optional<SweepRuns> sweep_runs(const FitArgs& args, const CliContext& context) {
  if (!args.points.empty() && !args.source.empty()) throw std::invalid_argument("fit: give --points or SWEEP, not both");
  if (is_csv(args)) return std::nullopt;
  return load_runs(args, context);
}

// Several forms on the same runs, built-in (--law) and written as files (--law-file): each fitted with its
// largest size held out too, compared, and the best one's fit printed after the comparison (JSON: the
// comparison and every form's report).
void print_law_choice(const FitArgs& args, const CliContext& context) {
  std::vector<LawScore> scores;
  std::vector<FitReport> reports;
  std::vector<LawFormReport> file_reports;
  nlohmann::json fits = nlohmann::json::array();
  std::optional<SweepRuns> sweep = sweep_runs(args, context);
  if (!args.laws.empty()) {
    // A sweep's runs serve every form as fetched (the law files read only their runs, not the tune runs that
    // fit_options takes); a CSV is read here for the built-in laws' columns.
    SweepRuns from_csv;
    SweepRuns& runs = sweep ? *sweep : (from_csv = load_runs(args, context));
    FitOptions options = fit_options(args, runs);
    options.holdout_largest = true;
    for (const std::string& law : args.laws) {
      options.law = parse_law(law);
      reports.push_back(fit_runs(runs.runs, options));
      scores.push_back(score_law(reports.back()));
      fits.push_back(to_json(reports.back()));
    }
  }
  LawFormSettings settings = law_form_settings(args);
  settings.holdout_largest = true;
  for (const std::string& path : args.law_files) {
    file_reports.push_back(fit_law_file(path, args, sweep, settings));
    scores.push_back(score_law(file_reports.back()));
    fits.push_back(to_json(file_reports.back()));
  }
  // A file's law named as a built-in one (configs/laws/chinchilla.yaml beside --law chinchilla) says its file.
  for (std::size_t i = reports.size(); i < scores.size(); ++i) {
    const auto same = [&](const LawScore& other) { return &other != &scores[i] && other.law == scores[i].law; };
    if (std::any_of(scores.begin(), scores.end(), same)) {
      scores[i].law += " (" + std::filesystem::path(args.law_files[i - reports.size()]).filename().string() + ")";
    }
  }
  const LawChoice choice = choose_law(std::move(scores));
  if (context.json) {
    std::cout << nlohmann::json{{"law_choice", to_json(choice)}, {"fits", std::move(fits)}}.dump(2) << "\n";
    return;
  }
  std::cout << law_choice_text(choice, output_columns()) << "\n";
  const std::size_t shown = choice.best.value_or(0);
  std::cout << "== law " << choice.scores[shown].law << (choice.best ? ", the form that predicts best" : "") << "\n";
  if (shown < reports.size()) {
    std::cout << fit_report_text(reports[shown], text_options(args));
  } else {
    std::cout << law_form_text(file_reports[shown - reports.size()], output_columns());
  }
}

// The study's next step after this fit: stop, or the move that narrows the widest headline most per FLOP, valued
// at the runs' own noise and the effect asked for.
AdaptiveDecision next_decision(const FitArgs& args, const FitReport& report, const std::vector<RunPoint>& runs) {
  PowerDesign planning;
  planning.multiplier = args.effect;
  planning.confidence = args.options.confidence;
  planning.seed = args.seed;
  AdaptiveTarget target;
  target.ratio = args.target_width;
  const MoveRules rules{std::max(2, static_cast<int>(report.groups.size())), false};
  return decide_next(report, runs, planning, rules, target, 0.0, 0, std::max(1, args.options.settings.threads));
}

// The gate of a cheap stage: the law-free comparisons alone (a stage of two sizes has no law), each arm promoted
// or dropped against the baseline.
void print_gate(const FitArgs& args, const std::vector<RunPoint>& runs, const CliContext& context) {
  const GateRules rules{*args.gate, args.gate_rule == "shown" ? GateRule::kShown : GateRule::kPlausible,
                        args.options.baseline};
  const int resamples = args.options.bootstrap;
  const std::vector<GateDecision> decisions =
      gate_arms(compare_without_law(runs, rules.reference, resamples, args.seed, args.options.confidence), rules);
  std::cout << (context.json ? gate_json(decisions, rules, resamples).dump(2) + "\n"
                             : render_gate(decisions, rules, resamples));
}

}  // namespace

void add_fit_command(CLI::App& app, CliContext& context) {
  auto args = std::make_shared<FitArgs>();
  auto* cmd = app.add_subcommand("fit", "fit scaling laws with bootstrap intervals and compute multipliers");
  cmd->footer(examples({
                       "gammalab fit 3                              # the coordinator's stored fit",
                       "gammalab fit 3 --detail                     # and how it was reached",
                       "gammalab fit 3 --refit --law chinchilla --control qknorm",
                       "gammalab fit --points runs.csv --law c      # a CSV of runs (--points)",
                       "gammalab fit --points runs.csv --law n --law chinchilla  # best predicting",
                       "gammalab fit --points small.csv --predict large.csv   # predict other runs",
                       "gammalab fit --points runs.csv --law-file configs/laws/data-constrained.yaml"}));
  cmd->add_option("sweep", args->source, "sweep id (final losses from the coordinator), or a CSV file");
  cmd->add_option("--points", args->points, "CSV with header params,tokens,loss[,group][,compute]");
  auto& fitting = args->fitting;
  fitting.push_back(cmd->add_option("--law", args->laws,
                                    "n | c | chinchilla | isoflop (default: chinchilla if tokens vary, else n); "
                                    "given more than once, the forms are compared by how well they predict the "
                                    "largest size, and the best one's fit follows")
                        ->check(CLI::IsMember({"n", "c", "chinchilla", "isoflop"})));
  fitting.push_back(cmd->add_option("--law-file", args->law_files,
                                    "a law written as a file (YAML: variables, parameters with bounds and starts, "
                                    "the loss as an expression; configs/laws/ has the published forms), fitted to "
                                    "the CSV's columns per group; with other forms (--law, --law-file), compared "
                                    "as --law's are")
                        ->check(CLI::ExistingFile));
  fitting.push_back(cmd->add_option("--profile", args->profile,
                                    "with --law-file: a parameter to profile (refitted with it held on a grid), "
                                    "printing the range the fit's objective allows (repeatable)"));
  fitting.push_back(
      cmd->add_option("--group-by", args->group_by, "column (CSV) or job field (sweep) that names the group"));
  fitting.push_back(cmd->add_option("--baseline", args->options.baseline, "group the multipliers are relative to")
                        ->default_val("baseline"));
  fitting.push_back(cmd->add_option("--control", args->options.controls,
                                    "group every variant is also compared with, without a law (repeatable; default: "
                                    "qknorm, the baseline with QK-norm, and dnp_novec, unified's placement without "
                                    "scale vectors)")
                        ->default_str("qknorm dnp_novec"));
  fitting.push_back(cmd->add_option("--bootstrap", args->options.bootstrap, "bootstrap resamples (0: none)")
                        ->default_val(FitOptions{}.bootstrap)
                        ->check(CLI::NonNegativeNumber));
  fitting.push_back(
      cmd->add_option("--seed", args->seed, "bootstrap seed (same seed, same intervals)")->default_val(0));
  fitting.push_back(cmd->add_option("--budgets", args->options.budgets,
                                    "compute budgets for multipliers, e.g. 1e18,1e19 (default: decades inside the data)")
                        ->delimiter(',')
                        ->check(CLI::PositiveNumber));
  fitting.push_back(cmd->add_flag("--extrapolate", args->options.extrapolate,
                                  "allow budgets outside the compute range the runs cover (marked extrapolated)"));
  cmd->add_option("--threads", args->options.settings.threads, "threads for starts and resamples")
      ->default_val(2)
      ->check(CLI::PositiveNumber);
  fitting.push_back(cmd->add_flag("--holdout-largest", args->options.holdout_largest,
                                  "also fit without the largest model size and report the error predicting it "
                                  "(done anyway with 5 or more sizes)"));
  fitting.push_back(cmd->add_option("--huber-delta", args->huber_delta,
                                    "the laws' Huber delta in ln L, used as given (default: 1.345 x the seeds' "
                                    "scatter of a configuration's mean, or of the residuals without seeds)")
                        ->check(CLI::Range(1e-12, 10.0)));
  fitting.push_back(cmd->add_option("--predict", args->predict,
                                    "CSV of rows (params, tokens[, compute, loss, group, label]) to predict with each "
                                    "group's law, with intervals; a row's loss, if given, is shown beside it")
                        ->check(CLI::ExistingFile));
  cmd->add_option("--gate", args->gate,
                  "a cheap stage's gate instead of a fit: each arm over --baseline promoted to the next stage or "
                  "dropped at this multiplier (law-free, so two sizes do)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--gate-rule", args->gate_rule,
                  "with --gate: plausible (its interval reaches the multiplier) or shown (its lower end clears it)")
      ->capture_default_str()->check(CLI::IsMember({"plausible", "shown"}));
  cmd->add_flag("--next", args->next,
                "after the verdict, what to run next: stop when every headline is --target-width wide, else the "
                "run that narrows the widest most per FLOP (simulated at these runs' noise)");
  cmd->add_option("--target-width", args->target_width, "with --next: the headline intervals' hi/lo to reach")
      ->capture_default_str()->check(CLI::Range(1.000001, 1e6));
  cmd->add_option("--effect", args->effect, "with --next: the multiplier the moves are valued at (planned, not "
                  "measured)")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_flag("--refit", args->refit, "fit a sweep's runs here even when the coordinator has stored a fit");
  cmd->add_flag("--detail", args->detail,
                "after the verdict, how it was reached: the paired gaps per size, each group's law and the law's "
                "multipliers (wide tables)");
  cmd->callback([args, &context] {
    quiet_solver_logging();
    const bool options_given = std::any_of(args->fitting.begin(), args->fitting.end(),
                                           [](const CLI::Option* o) { return o->count() > 0; });
    if (!is_csv(*args) && !args->source.empty() && !args->refit && !options_given && !args->next && !args->gate) {
      if (print_stored_fit(*args, context)) return;
      if (!context.json) std::cout << "(no stored fit of sweep " << args->source << " yet: fitting its runs here)\n";
    }
    if (args->laws.size() + args->law_files.size() > 1) {
      print_law_choice(*args, context);
      return;
    }
    if (!args->law_files.empty()) {
      const LawFormReport report =
          fit_law_file(args->law_files.front(), *args, sweep_runs(*args, context), law_form_settings(*args));
      std::cout << (context.json ? to_json(report).dump(2) + "\n" : law_form_text(report, output_columns()));
      return;
    }
    SweepRuns runs = load_runs(*args, context);
    if (args->gate) {
      print_gate(*args, runs.runs, context);
      return;
    }
    const FitOptions options = fit_options(*args, runs);
    const FitReport report = fit_runs(runs.runs, options);
    if (!args->next) {
      std::cout << (context.json ? to_json(report).dump(2) + "\n" : fit_report_text(report, text_options(*args)));
      return;
    }
    const AdaptiveDecision next = next_decision(*args, report, runs.runs);
    if (context.json) {
      nlohmann::json out = to_json(report);
      out["next"] = decision_json(next, args->target_width);
      std::cout << out.dump(2) << "\n";
      return;
    }
    std::cout << fit_report_text(report, text_options(*args)) << render_decision(next, args->target_width);
  });
}

}  // namespace gammalab::cli
