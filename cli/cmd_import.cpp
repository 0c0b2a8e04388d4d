// gammalab import FILE: runs trained elsewhere as a sweep of finished jobs (core/scaling/imported_runs.h): final
// losses from a CSV, whole curves from JSON lines (which `python -m gammalab convert` writes from TensorBoard
// event files, an MLflow experiment or Parquet). The file is checked here first, then again by the coordinator,
// which stores every run or none.
#include <filesystem>
#include <iostream>

#include "cli/client/coordinator_client.h"
#include "cli/command.h"
#include "cli/terminal_text.h"
#include "core/file_util.h"
#include "core/limits.h"
#include "core/scaling/imported_runs.h"
#include "proto/convert.h"

namespace gammalab::cli {
namespace {

struct ImportArgs {
  std::string file;
  std::string name;
  std::string description;
};

// The file's runs, by its extension: .csv final losses, else JSON lines.
std::vector<ImportedRun> read_runs(const std::string& path) {
  constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{1} << 30;
  if (const std::uintmax_t size = std::filesystem::file_size(path); size > kMaxFileBytes) {
    throw std::invalid_argument(path + ": " + std::to_string(size) + " bytes, more than the limit of " +
                                std::to_string(kMaxFileBytes) + " for one import (split it into several sweeps)");
  }
  const std::string text = read_file(path);
  return std::filesystem::path(path).extension() == ".csv" ? imported_runs_from_csv(text, path)
                                                           : imported_runs_from_jsonl(text, path);
}

}  // namespace

void add_import_command(CLI::App& app, CliContext& context) {
  auto args = std::make_shared<ImportArgs>();
  auto* cmd = app.add_subcommand("import", "bring runs trained elsewhere in as a sweep of finished jobs");
  cmd->footer(examples({
                       "gammalab import runs.csv --name published  # params,tokens,loss,group,seed",
                       "gammalab import runs.jsonl                 # from: python -m gammalab convert"}));
  cmd->add_option("file", args->file, "a .csv of final losses, or JSON lines of runs and their metric lines")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--name", args->name, "the sweep's name (default: the file's stem)");
  cmd->add_option("--description", args->description, "where the runs came from (default: the file's name)");
  cmd->callback([args, &context] {
    const std::vector<ImportedRun> runs = read_runs(args->file);
    const std::string name = args->name.empty() ? std::filesystem::path(args->file).stem().string() : args->name;
    const std::string description =
        args->description.empty() ? "imported from " + std::filesystem::path(args->file).filename().string()
                                  : args->description;
    auto stub = connect_coordinator(context.server);
    grpc::ClientContext rpc;
    rpc.set_deadline(std::chrono::system_clock::now() + std::chrono::minutes(10));
    v1::ImportRunsResponse response;
    auto writer = stub->ImportRuns(&rpc, &response);
    v1::ImportRunsRequest request;
    request.mutable_header()->set_sweep_name(name);
    request.mutable_header()->set_description(description);
    bool open = writer->Write(request);
    for (std::size_t r = 0; open && r < runs.size(); ++r) {
      request.Clear();
      request.mutable_run()->set_name(runs[r].name);
      request.mutable_run()->set_config_json(to_json(runs[r].config).dump());
      open = writer->Write(request);
      // The points in messages of at most a report's size.
      const std::vector<MetricPoint>& points = runs[r].points;
      for (std::size_t at = 0; open && at < points.size(); at += limits::kMaxPointsPerReport) {
        const std::size_t end = std::min(points.size(), at + limits::kMaxPointsPerReport);
        request.Clear();
        to_proto(std::vector<MetricPoint>(points.begin() + static_cast<std::ptrdiff_t>(at),
                                          points.begin() + static_cast<std::ptrdiff_t>(end)),
                 request.mutable_points()->mutable_points());
        open = writer->Write(request);
      }
    }
    writer->WritesDone();
    check(writer->Finish(), "import " + args->file, context.server);
    if (context.json) {
      std::cout << proto_to_json(response) << "\n";
      return;
    }
    const std::string id = response.sweep().id();
    std::cout << "sweep " << id << " '" << terminal_text(response.sweep().name()) << "': " << response.runs()
              << " runs, " << response.points() << " metric points imported (" << terminal_text(description)
              << ")\nnext: gammalab jobs " << id << " · gammalab fit " << id << "\n";
  });
}

}  // namespace gammalab::cli
