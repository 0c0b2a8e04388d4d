// The self-contained report page (cli/report_page.h).
#include "cli/report_page.h"

#include <absl/strings/escaping.h>
#include <openssl/evp.h>

#include <map>
#include <stdexcept>

#include "cli/module_bundle.h"
#include "core/file_util.h"

namespace gammalab::cli {

namespace {

// web/'s files and uPlot's are tens of KiB; a page piece a hundred times larger is not ours.
constexpr std::size_t kMaxPieceBytes = 4 << 20;

// A file of web/ with its line ends as LF: the HTML parser turns CR LF into LF before a CSP hash is taken of
// an inline element's text, so the text hashed here must be what the browser will see.
std::string read_web_file(const std::filesystem::path& web_root, const std::filesystem::path& relative,
                          const std::string& hint = "") {
  const std::filesystem::path path = web_root / relative;
  if (!std::filesystem::is_regular_file(path)) {
    throw std::invalid_argument("--web-root " + web_root.string() + ": no " + relative.string() + hint);
  }
  const std::string text = read_file_bounded("--web-root", path, kMaxPieceBytes);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\r') out += text[i];
    else if (i + 1 == text.size() || text[i + 1] != '\n') out += '\n';
  }
  return out;
}

// A file to inline in a <script> or <style> element: nothing in it may end that element early.
std::string read_piece(const std::filesystem::path& web_root, const std::filesystem::path& relative,
                       const std::string& hint = "") {
  const std::string text = read_web_file(web_root, relative, hint);
  for (std::string_view end : {"</script", "</style", "</SCRIPT", "</STYLE"}) {
    if (text.find(end) != std::string::npos) {
      throw std::invalid_argument((web_root / relative).string() + ": contains '" + std::string(end) +
                                  "', which would end the element it is inlined into");
    }
  }
  return text;
}

// Replaces every {{name}} of `page` by values.at(name), in one pass (a value is never scanned for names).
// Each name must occur exactly once, and the page must hold no other {{...}}.
std::string fill_template(const std::string& page, const std::map<std::string, std::string>& values,
                          const std::string& file) {
  std::string out;
  std::map<std::string, int> seen;
  std::size_t at = 0;
  for (;;) {
    const std::size_t open = page.find("{{", at);
    if (open == std::string::npos) break;
    const std::size_t close = page.find("}}", open);
    if (close == std::string::npos) throw std::invalid_argument(file + ": '{{' without '}}'");
    const std::string name = page.substr(open + 2, close - open - 2);
    const auto value = values.find(name);
    if (value == values.end()) throw std::invalid_argument(file + ": unknown placeholder {{" + name + "}}");
    ++seen[name];
    out.append(page, at, open - at);
    out += value->second;
    at = close + 2;
  }
  out.append(page, at, std::string::npos);
  for (const auto& [name, value] : values) {
    if (seen[name] != 1) {
      throw std::invalid_argument(file + ": placeholder {{" + name + "}} occurs " + std::to_string(seen[name]) +
                                  " times, expected once");
    }
  }
  return out;
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string script_json(const nlohmann::json& data) {
  // Invalid UTF-8 from the database becomes U+FFFD rather than failing the whole report.
  const std::string text = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '<': out += "\\u003c"; break;
      case '>': out += "\\u003e"; break;
      case '&': out += "\\u0026"; break;
      default: out += c;
    }
  }
  return out;
}

std::string csp_hash(std::string_view text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("SHA-256 failed");
  }
  return "'sha256-" + absl::Base64Escape(absl::string_view(reinterpret_cast<const char*>(digest), size)) + "'";
}

ReportAssets load_report_assets(const std::filesystem::path& web_root) {
  const std::string uplot_hint = " (run `npm ci` in web/: the report inlines uPlot from there)";
  ReportAssets assets;
  assets.page = read_web_file(web_root, "report.html");
  assets.style = "\n" + read_piece(web_root, "node_modules/uplot/dist/uPlot.min.css", uplot_hint) + "\n" +
                 read_piece(web_root, "style.css") + "\n";
  assets.uplot = "\n" + read_piece(web_root, "node_modules/uplot/dist/uPlot.iife.min.js", uplot_hint) + "\n";
  assets.modules = "\n" + bundle_modules(web_root, "report.js").code;
  return assets;
}

std::string report_page(const ReportAssets& assets, const nlohmann::json& data, const std::string& title) {
  const std::string csp = "default-src 'none'; script-src " + csp_hash(assets.uplot) + " " + csp_hash(assets.modules) +
                          "; style-src " + csp_hash(assets.style) +
                          "; img-src data: blob:; base-uri 'none'; form-action 'none'";
  return fill_template(
      assets.page,
      {{"csp", csp},
       {"title", html_escape(title)},
       {"style", "<style>" + assets.style + "</style>"},
       {"data", "<script type=\"application/json\" id=\"report-data\">" + script_json(data) + "</script>"},
       {"scripts", "<script>" + assets.uplot + "</script>\n<script type=\"module\">" + assets.modules + "</script>"}},
      "report.html");
}

}  // namespace gammalab::cli
