// gammalab report SWEEP --out DIR: a self-contained HTML report of one sweep, DIR/index.html, to share a
// result. It holds the dashboard's own chart code and the sweep's data (jobs with their final losses, the
// train and val loss curves downsampled, the stored fit with its multipliers and intervals), and opens offline
// straight from the file: no server, no network (cli/report_page.h).
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/client/report_data.h"
#include "cli/command.h"
#include "cli/report_page.h"
#include "cli/terminal_text.h"
#include "core/config_paths.h"
#include "core/file_util.h"

namespace gammalab::cli {
namespace {

struct ReportArgs {
  std::string sweep;
  std::filesystem::path out;
  std::filesystem::path web_root = dashboard_files_dir();
  std::int64_t max_points = kReportMaxPoints;
};

}  // namespace

void add_report_command(CLI::App& app, CliContext& context) {
  auto args = std::make_shared<ReportArgs>();
  auto* cmd = app.add_subcommand("report", "write a self-contained HTML report of a sweep (opens offline)");
  cmd->footer(examples({
                       "gammalab report 3 --out report/    # open report/index.html offline"}));
  cmd->add_option("sweep", args->sweep, "sweep id or name")->required();
  cmd->add_option("--out", args->out, "folder to write index.html into (made if missing)")->required();
  cmd->add_option("--web-root", args->web_root, "the dashboard's files (web/, with node_modules/uplot)")
      ->capture_default_str();
  cmd->add_option("--max-points", args->max_points, "points kept per loss curve (downsampled beyond)")
      ->capture_default_str();
  cmd->callback([args, &context] {
    // web/ first: a web root without uPlot fails before the coordinator is asked for anything.
    const ReportAssets assets = load_report_assets(args->web_root);
    const nlohmann::json data = fetch_report_data(context.server, args->sweep, args->max_points);
    const std::string name = data["sweep"].value("name", args->sweep);
    const std::string html = report_page(assets, data, name + " · gammalab report");
    std::error_code error;
    std::filesystem::create_directories(args->out, error);
    if (error || !std::filesystem::is_directory(args->out)) {
      throw std::invalid_argument("--out " + args->out.string() + ": cannot make the folder (" + error.message() + ")");
    }
    const std::filesystem::path file = args->out / "index.html";
    write_file_atomic(file, html);
    if (context.json) {
      std::cout << nlohmann::json{{"file", file.string()}, {"sweep", data["sweep"].value("id", "")},
                                  {"jobs", data["jobs"].size()}, {"bytes", html.size()}}
                       .dump()
                << "\n";
      return;
    }
    std::cout << "report of sweep " << terminal_text(name) << " (" << data["jobs"].size() << " jobs) written to "
              << file.string() << "\n";
  });
}

}  // namespace gammalab::cli
