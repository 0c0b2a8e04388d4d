// `gammalab report`: the real CLI against a real coordinator whose worker ran real trainer jobs; the page it
// writes is read back here (the browser test, web/test/report.test.js, opens one in Chromium).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <limits>
#include <regex>

#include "cli/report_page.h"
#include "core/file_util.h"
#include "tests/integration/cluster.h"
#include "tests/integration/db_reader.h"

namespace gammalab::testing {
namespace {

constexpr int kSteps = 60;  // tiny_sweep_yaml logs every 5 and evaluates every 50 steps (and at the end)

// The text of every <script ...> element of `html` whose opening tag is exactly `open`.
std::vector<std::string> scripts(const std::string& html, const std::string& open) {
  std::vector<std::string> out;
  for (std::size_t at = html.find(open); at != std::string::npos; at = html.find(open, at + 1)) {
    const std::size_t begin = at + open.size();
    out.push_back(html.substr(begin, html.find("</script>", begin) - begin));
  }
  return out;
}

// Runs the CLI, which should fail; returns what it wrote on stderr (the cluster keeps it in cli.log).
std::string failing_cli(Cluster& cluster, const std::vector<std::string>& args) {
  const auto log = cluster.dir() / "cli.log";
  const std::size_t before = std::filesystem::exists(log) ? std::filesystem::file_size(log) : 0;
  const CliResult result = cluster.cli(args);
  EXPECT_NE(result.exit_code, 0) << result.out;
  return read_file(log).substr(before);
}

TEST(Report, WritesOneSelfContainedPageWithTheSweepsDataEscaped) {
  Cluster cluster("report");
  cluster.prepare_data("d");
  cluster.start_server();
  cluster.start_worker();
  // A name that would be markup, end the data's <script> or open a comment if it were written into the page.
  const std::string name = "<img src=x onerror=alert(1)></script><!--&\"";
  std::string yaml = tiny_sweep_yaml("NAME", kSteps, "[baseline, unified]");
  yaml.replace(yaml.find("NAME"), 4, "'" + name + "'");
  const CliResult submit = cluster.cli({"submit", cluster.write_file("r.yaml", yaml).string()});
  ASSERT_EQ(submit.exit_code, 0) << submit.out;
  const CliResult watch = cluster.cli({"watch", name});
  ASSERT_EQ(watch.exit_code, 0) << watch.out;

  const auto out = cluster.dir() / "report";
  const CliResult report = cluster.cli({"report", name, "--out", out.string(), "--max-points", "4"});
  ASSERT_EQ(report.exit_code, 0) << report.out;
  EXPECT_NE(report.out.find("(2 jobs) written to " + (out / "index.html").string()), std::string::npos) << report.out;
  ASSERT_EQ(std::vector<std::filesystem::path>(std::filesystem::directory_iterator(out), {}),
            std::vector<std::filesystem::path>{out / "index.html"});
  const std::string html = read_file(out / "index.html");

  // Self-contained: the page's elements that could load or run something are exactly its style, its data and its
  // two scripts, none with a src or href, and no module import is left in the code.
  std::vector<std::string> tags;
  const std::regex element("<(script|style|link|img|iframe|object|embed|base|frame)\\b[^>]*>", std::regex::icase);
  for (auto it = std::sregex_iterator(html.begin(), html.end(), element); it != std::sregex_iterator(); ++it) {
    tags.push_back(it->str());
  }
  EXPECT_EQ(tags, (std::vector<std::string>{"<style>", "<script type=\"application/json\" id=\"report-data\">",
                                            "<script>", "<script type=\"module\">"}));
  for (std::size_t at = html.find('<'); at != std::string::npos; at = html.find('<', at + 1)) {
    const std::string tag = html.substr(at, html.find_first_of("<>", at + 1) - at);  // up to its end, or the next '<'
    EXPECT_TRUE(tag.find(" src=") == std::string::npos && tag.find(" href=") == std::string::npos) << tag;
  }
  EXPECT_FALSE(std::regex_search(html, std::regex("\\nimport |from '\\./")));
  // The name appears only escaped: in the title as character references, in the data as JSON \u escapes.
  EXPECT_EQ(html.find(name), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_NE(html.find("<title>&lt;img src=x onerror=alert(1)&gt;&lt;/script&gt;&lt;!--&amp;&quot; · gammalab report</title>"),
            std::string::npos);

  // The policy allows exactly the page's two scripts and its style, by hash, and nothing else.
  const std::vector<std::string> classic = scripts(html, "<script>");
  const std::vector<std::string> modules = scripts(html, "<script type=\"module\">");
  const std::vector<std::string> styles = [&] {
    std::vector<std::string> list;
    for (std::size_t at = html.find("<style>"); at != std::string::npos; at = html.find("<style>", at + 1)) {
      list.push_back(html.substr(at + 7, html.find("</style>", at) - at - 7));
    }
    return list;
  }();
  ASSERT_EQ(classic.size(), 1u);
  ASSERT_EQ(modules.size(), 1u);
  ASSERT_EQ(styles.size(), 1u);
  EXPECT_NE(classic[0].find("uPlot"), std::string::npos);
  for (const char* module : {"// ---- series.js", "// ---- loss_chart.js", "// ---- report.js"}) {
    EXPECT_NE(modules[0].find(module), std::string::npos) << module;
  }
  const std::string csp = "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src " +
                          cli::csp_hash(classic[0]) + " " + cli::csp_hash(modules[0]) + "; style-src " +
                          cli::csp_hash(styles[0]) + "; img-src data: blob:; base-uri 'none'; form-action 'none'\">";
  EXPECT_NE(html.find(csp), std::string::npos);

  // The data: the sweep as stored, its jobs, their final losses from every point, the curves downsampled.
  const std::vector<std::string> data_text = scripts(html, "<script type=\"application/json\" id=\"report-data\">");
  ASSERT_EQ(data_text.size(), 1u);
  const auto data = nlohmann::json::parse(data_text[0]);
  EXPECT_EQ(data["format"], 1);
  EXPECT_EQ(data["sweep"]["name"], name);
  EXPECT_NE(data["sweep"]["source_yaml"].get<std::string>().find("steps: 60"), std::string::npos);
  EXPECT_EQ(data["meta"]["losses"]["val"], "val/loss");
  EXPECT_TRUE(data["fits"].is_null()) << "one size per variant: no law can be fitted";
  ASSERT_EQ(data["jobs"].size(), 2u);
  ASSERT_EQ(data["runs"].size(), 2u);
  DbReader db(cluster.database());
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& job = data["jobs"][i];
    const auto& run = data["runs"][i];
    EXPECT_EQ(job["state"], "succeeded");
    EXPECT_EQ(run["id"], job["id"]);
    EXPECT_EQ(run["stage"], "main");
    const std::int64_t id = std::stoll(job["id"].get<std::string>());
    const auto train = db.points(id, "train/loss");
    const auto val = db.points(id, "val/loss");
    ASSERT_EQ(train.size(), static_cast<std::size_t>(kSteps / 5));
    ASSERT_EQ(val.size(), 2u);  // at step 50 and at the end
    EXPECT_EQ(run["loss"].get<double>(), val.back().value);  // the final loss: the last evaluation's
    EXPECT_EQ(run["final_val_loss"].get<double>(), val.back().value);
    const auto& columns = data["metrics"][job["id"].get<std::string>()];
    // --max-points 4: one bucket per curve, keeping its first, last, lowest and highest point.
    const auto& steps = columns["train/loss"]["step"];
    ASSERT_GE(steps.size(), 2u);
    EXPECT_LE(steps.size(), 4u);
    EXPECT_EQ(steps.front(), train.front().step);
    EXPECT_EQ(steps.back(), kSteps);
    double lowest = std::numeric_limits<double>::infinity();
    for (const auto& p : train) lowest = std::min(lowest, p.value);
    bool has_lowest = false;
    for (const auto& v : columns["train/loss"]["value"]) has_lowest |= v.get<double>() == lowest;
    EXPECT_TRUE(has_lowest);
    EXPECT_EQ(columns["val/loss"]["value"].back().get<double>(), val.back().value);
  }

  // Clear refusals, before anything is written.
  const std::string no_web = failing_cli(cluster, {"report", name, "--out", (cluster.dir() / "r2").string(),
                                                   "--web-root", cluster.dir().string()});
  EXPECT_NE(no_web.find("--web-root " + cluster.dir().string() + ": no report.html"), std::string::npos) << no_web;
  const std::string unknown = failing_cli(cluster, {"report", "no-such-sweep", "--out", (cluster.dir() / "r3").string()});
  EXPECT_NE(unknown.find("no-such-sweep"), std::string::npos) << unknown;
  const std::string points =
      failing_cli(cluster, {"report", name, "--out", (cluster.dir() / "r4").string(), "--max-points", "3"});
  EXPECT_NE(points.find("--max-points: expected an integer from 4 to 400000, got 3"), std::string::npos) << points;
  for (const char* dir : {"r2", "r3", "r4"}) EXPECT_FALSE(std::filesystem::exists(cluster.dir() / dir)) << dir;
}

}  // namespace
}  // namespace gammalab::testing
