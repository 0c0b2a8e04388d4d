#pragma once
// The page `gammalab report` writes: web/report.html with everything it needs inlined, so that the one file
// opens offline, straight from disk (file://), and shows the same charts as the dashboard:
//   - the styles (uPlot's and web/style.css) in one <style>;
//   - uPlot's classic-script build, then web/report.js with the modules it imports (cli/module_bundle.h) in
//     one <script type="module">;
//   - the data as <script type="application/json" id="report-data">, which the page reads as text;
//   - a Content-Security-Policy meta tag that allows exactly those two scripts and that style (by their
//     SHA-256) and nothing from anywhere else: no network, no other inline script, no plugin.
// Strings from the database reach the page only as JSON text read by the page's script, which puts them in
// as text nodes; the <title> is the one place written here, HTML-escaped.
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace gammalab::cli {

// `text` with & < > " ' as character references: safe as HTML text and inside a quoted attribute.
std::string html_escape(std::string_view text);

// `data` as JSON that cannot end the <script> element it sits in: every '<', '>' and '&' written as a \u
// escape (they only occur inside JSON strings, where the escape reads back as the same character).
std::string script_json(const nlohmann::json& data);

// 'sha256-BASE64' of `text`, as a CSP source for an inline script or style with exactly that content.
std::string csp_hash(std::string_view text);

// The pieces of web/ the page inlines, read and checked: the template (report.html), the styles, uPlot and
// the bundled modules of report.js.
struct ReportAssets {
  std::string page, style, uplot, modules;
};

// Throws std::invalid_argument naming the file when a piece of web/ is missing or cannot be inlined (e.g.
// node_modules/uplot without `npm ci`, or a module outside cli/module_bundle.h's style).
ReportAssets load_report_assets(const std::filesystem::path& web_root);

// The report page for `data` (cli/client/report_data.h), titled `title`. Throws std::invalid_argument when the
// template's placeholders are not {{csp}}, {{title}}, {{style}}, {{data}} and {{scripts}}, each once.
std::string report_page(const ReportAssets& assets, const nlohmann::json& data, const std::string& title);

}  // namespace gammalab::cli
