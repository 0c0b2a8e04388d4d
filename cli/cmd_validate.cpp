// gammalab validate FILE...: checks sweep files without a server. Every problem is printed as
// file:line:col: path: message (exit 1), else one summary line per file.
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/exit_status.h"
#include "core/file_util.h"
#include "core/config_paths.h"
#include "core/sweep/sweep.h"

namespace gammalab::cli {
namespace {

struct ValidateArgs {
  std::vector<std::string> files;
  std::size_t max_jobs = SweepOptions{}.max_jobs;
  std::string presets;
};

nlohmann::json diagnostic_json(const SweepDiagnostic& d) {
  return {{"file", d.file}, {"line", d.line}, {"column", d.column}, {"path", d.path}, {"message", d.message}};
}

}  // namespace

void add_validate_command(CLI::App& app, CliContext& context) {
  auto args = std::make_shared<ValidateArgs>();
  auto* cmd = app.add_subcommand("validate", "check sweep files: every problem with file:line:col (no server needed)");
  cmd->footer(examples({
                       "gammalab validate configs/sweeps/demo-cpu.yaml",
                       "gammalab validate configs/sweeps/*.yaml"}));
  cmd->add_option("files", args->files, "sweep YAML files")->required();
  cmd->add_option("--max-jobs", args->max_jobs, "refuse sweeps that expand to more jobs")->capture_default_str();
  cmd->add_option("--presets", args->presets, "model preset directory (default: configs/models)");
  cmd->callback([args, &context] {
    SweepOptions options;
    options.max_jobs = args->max_jobs;
    options.preset_dir = args->presets.empty() ? model_preset_dir() : std::filesystem::path(args->presets);
    nlohmann::json results = nlohmann::json::array();
    for (const auto& file : args->files) {
      std::vector<SweepDiagnostic> problems;
      SweepStages stages;
      std::string text;
      try {
        text = read_file(file);
      } catch (const std::runtime_error&) {
        problems.push_back({file, 0, 0, "", "cannot read the file"});
      }
      if (problems.empty()) {
        try {
          stages = expand_stages(text, file, options);
        } catch (const SweepError& e) {
          problems = e.diagnostics();
        }
      }
      if (!problems.empty()) context.exit_code = exit_status::kError;
      if (context.json) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& p : problems) list.push_back(diagnostic_json(p));
        results.push_back({{"file", file}, {"ok", problems.empty()}, {"problems", std::move(list)}});
        if (problems.empty()) {
          results.back().update({{"sweep", stages.main.name}, {"jobs", stages.main.jobs.size()}});
          if (stages.tune) results.back()["tune_jobs"] = stages.tune->jobs.size();
        }
      } else if (problems.empty()) {
        std::cout << file << ": ok, sweep '" << stages.main.name << "': "
                  << (stages.tune ? std::to_string(stages.tune->jobs.size()) + " tune job(s), then " : "")
                  << stages.main.jobs.size() << " job(s)\n";
      } else {
        for (const auto& p : problems) std::cerr << p.to_string() << "\n";
        std::cerr << file << ": " << problems.size() << " problem(s)\n";
      }
    }
    if (context.json) std::cout << results.dump(2) << "\n";
  });
}

}  // namespace gammalab::cli
