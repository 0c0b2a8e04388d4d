// gammalab export SWEEP: every stored metric point of a sweep, with the fields that identify its run, as CSV
// (one row per point) or JSON lines, for notebooks and other tools.
#include <cmath>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/client/coordinator_client.h"
#include "cli/command.h"
#include "cli/number_text.h"
#include "core/job_config.h"
#include "core/param_count.h"

namespace gammalab::cli {
namespace {

struct ExportArgs {
  std::string sweep;
  std::string format = "csv";
  std::string out;
  std::vector<std::string> metrics;
};

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

void add_export_command(CLI::App& app, CliContext& context) {
  auto args = std::make_shared<ExportArgs>();
  auto* cmd = app.add_subcommand("export", "write a sweep's metric points as CSV or JSON lines");
  cmd->footer(examples({
                       "gammalab export 3 --out metrics.csv",
                       "gammalab export 3 --format jsonl --metrics val/loss,train/loss"}));
  cmd->add_option("sweep", args->sweep, "sweep id or name")->required();
  cmd->add_option("--format", args->format, "csv or jsonl")->check(CLI::IsMember({"csv", "jsonl"}))->capture_default_str();
  cmd->add_option("--out", args->out, "output file (default: standard output)");
  cmd->add_option("--metrics", args->metrics, "only these metric names (default: all)")->delimiter(',');
  cmd->callback([args, &context] {
    auto stub = connect_coordinator(context.server);
    const std::vector<v1::Job> jobs = list_all_jobs(*stub, args->sweep, {}, context.server);

    std::ofstream file;
    if (!args->out.empty()) {
      file.open(args->out);
      if (!file) throw std::runtime_error("--out: cannot write " + args->out);
    }
    std::ostream& out = args->out.empty() ? std::cout : file;
    if (args->format == "csv") out << "job_id,job,preset,variant,params,metric,step,tokens,value\n";
    std::size_t rows = 0;
    for (const v1::Job& job : jobs) {
      const JobConfig config = job_config_from_json(nlohmann::json::parse(job.config_json()));
      const auto params = count_params(config.model, config.scale).total;
      for (const MetricPoint& p : fetch_job_metrics(*stub, job.id(), args->metrics, context.server)) {
        if (args->format == "csv") {
          out << job.id() << ',' << csv_field(job.name()) << ',' << csv_field(config.model.preset) << ','
              << csv_field(config.scale.variant) << ',' << params << ',' << csv_field(p.name) << ',' << p.step
              << ',' << p.tokens << ',' << round_trip_text(p.value) << '\n';
        } else {
          out << nlohmann::json{{"job_id", job.id()}, {"job", job.name()},       {"preset", config.model.preset},
                                {"variant", config.scale.variant}, {"params", params}, {"metric", p.name},
                                {"step", p.step},                  {"tokens", p.tokens}, {"value", p.value}}
                     .dump()
              << '\n';
        }
        ++rows;
      }
    }
    if (!args->out.empty()) std::cerr << rows << " points written to " << args->out << "\n";
  });
}

}  // namespace gammalab::cli
