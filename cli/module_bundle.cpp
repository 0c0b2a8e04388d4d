// web/'s ES modules as one inline script (cli/module_bundle.h).
#include "cli/module_bundle.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <utility>
#include <stdexcept>
#include <string_view>

#include "core/file_util.h"

namespace gammalab::cli {

namespace {

// (std::string_view throughout: this build's Abseil has its own string_view type.)
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view trim(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

bool consume_prefix(std::string_view& text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return false;
  text.remove_prefix(prefix.size());
  return true;
}

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

// The pieces of `text` between `separator`s (an empty piece for separators side by side or at an end).
std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0;;) {
    const std::size_t end = text.find(separator, start);
    out.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

[[noreturn]] void fail(const std::string& file, std::size_t line, const std::string& message) {
  throw std::invalid_argument(file + ":" + std::to_string(line) + ": " + message);
}

// "./name.js" -> "name.js": a file beside the importer, named as dashboard files are (server/dashboard_files.h).
std::string sibling(std::string_view specifier, const std::string& file, std::size_t line) {
  if (!specifier.starts_with("./") || !specifier.ends_with(".js")) {
    fail(file, line, "import of '" + std::string(specifier) + "': only './NAME.js' of the same folder can be inlined");
  }
  const std::string_view name = specifier.substr(2);
  const bool plain = std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.';
  });
  if (!plain || name.empty() || name.front() == '.' || contains(name, "..")) {
    fail(file, line, "import of '" + std::string(specifier) + "': not a plain file name");
  }
  return std::string(name);
}

// The file name imported by one import statement (its lines joined), or a failure naming what is wrong.
std::string imported_file(std::string_view statement, const std::string& file, std::size_t line) {
  const std::string_view rest = trim(statement.substr(std::string_view("import").size()));
  const auto close = rest.find('}');
  if (!rest.starts_with('{') || close == std::string_view::npos) {
    fail(file, line, "only named imports `import { a, b } from './name.js';` can be inlined");
  }
  for (std::string_view name : split(rest.substr(1, close - 1), ',')) {
    if (contains(trim(name), " ")) {
      fail(file, line, "import of '" + std::string(trim(name)) + "': renaming (`as`) cannot be inlined");
    }
  }
  std::string_view tail = trim(rest.substr(close + 1));
  if (!consume_prefix(tail, "from") || !tail.ends_with(";")) fail(file, line, "expected `} from './name.js';`");
  tail.remove_suffix(1);
  tail = trim(tail);
  if (tail.size() < 2 || (tail.front() != '\'' && tail.front() != '"') || tail.back() != tail.front()) {
    fail(file, line, "expected a quoted module path after `from`");
  }
  return sibling(tail.substr(1, tail.size() - 2), file, line);
}

struct Parsed {
  std::string code;                  // without import lines, `export ` dropped
  std::vector<std::string> imports;  // file names, in order
  // The names its top-level declarations make (a line that starts with function, async function, class, const
  // or let, after `export `), with their lines: for a destructuring const or let, the names in its brackets;
  // otherwise the first declared.
  std::vector<std::pair<std::string, std::size_t>> declared;
};

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$'; }

// The names a top-level declaration line declares (none when the line is not one).
std::vector<std::string> declared_names(std::string_view line) {
  std::string_view rest = line;
  if (!(consume_prefix(rest, "function ") || consume_prefix(rest, "async function ") || consume_prefix(rest, "class ") ||
        consume_prefix(rest, "const ") || consume_prefix(rest, "let "))) {
    return {};
  }
  rest = trim(rest);
  consume_prefix(rest, "*");  // a generator
  rest = trim(rest);
  std::vector<std::string> names;
  if (!rest.empty() && (rest.front() == '{' || rest.front() == '[')) {
    const std::size_t close = rest.find(rest.front() == '{' ? '}' : ']');
    for (std::string_view part : split(rest.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1), ',')) {
      part = trim(part);
      if (const std::size_t colon = part.find(':'); colon != std::string_view::npos) part = trim(part.substr(colon + 1));
      std::size_t n = 0;
      while (n < part.size() && is_name_char(part[n])) ++n;
      if (n > 0) names.emplace_back(part.substr(0, n));
    }
    return names;
  }
  std::size_t n = 0;
  while (n < rest.size() && is_name_char(rest[n])) ++n;
  if (n > 0) names.emplace_back(rest.substr(0, n));
  return names;
}

Parsed parse_module(const std::string& file, const std::string& text) {
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (std::string_view bad : {"</script", "<!--"}) {
    if (const auto at = lower.find(bad); at != std::string::npos) {
      const auto line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
      fail(file, line, "contains '" + std::string(bad) + "', which would end or confuse the <script> element it is inlined into");
    }
  }
  Parsed out;
  const std::vector<std::string_view> lines = split(text, '\n');
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.ends_with('\r')) line.remove_suffix(1);  // LF only, as the HTML parser will hand the inlined text to the CSP hash
    const std::size_t number = i + 1;
    if (line.starts_with("import ") || line.starts_with("import{")) {
      std::string statement(line);
      out.code += "\n";  // a blank line for each line of the import keeps the line numbers of the rest
      while (!contains(statement, ";")) {  // an import over several lines ends with its ';'
        if (++i >= lines.size()) fail(file, number, "import without its closing ';'");
        statement += " ";
        statement += lines[i];
        out.code += "\n";
      }
      out.imports.push_back(imported_file(statement, file, number));
      continue;
    }
    if (line.starts_with("export ") || line.starts_with("export{")) {
      std::string_view rest = line.substr(std::string_view("export").size());
      const bool declaration = consume_prefix(rest, " ") &&
                               (rest.starts_with("function ") || rest.starts_with("async function ") ||
                                rest.starts_with("class ") || rest.starts_with("const ") || rest.starts_with("let "));
      if (!declaration) {
        fail(file, number, "only `export` before a function, class, const or let declaration can be inlined");
      }
      out.code += rest;
      for (std::string& name : declared_names(rest)) out.declared.emplace_back(std::move(name), number);
    } else {
      out.code += line;
      for (std::string& name : declared_names(line)) out.declared.emplace_back(std::move(name), number);
    }
    out.code += "\n";
  }
  return out;
}

class Bundler {
 public:
  explicit Bundler(std::filesystem::path dir) : dir_(std::move(dir)) {}

  void add(const std::string& name, std::vector<std::string>& chain) {
    if (done_.contains(name)) return;
    if (std::find(chain.begin(), chain.end(), name) != chain.end()) {
      std::string cycle;
      for (const auto& m : chain) cycle += m + " -> ";
      throw std::invalid_argument("import cycle: " + cycle + name);
    }
    if (bundle_.modules.size() + chain.size() >= kMaxBundleModules) {
      throw std::invalid_argument("more than " + std::to_string(kMaxBundleModules) + " modules to inline");
    }
    const std::filesystem::path path = dir_ / name;
    if (!std::filesystem::is_regular_file(path)) throw std::invalid_argument(path.string() + ": no such module");
    const std::string text = read_file_bounded("module", path, kMaxModuleBytes);
    Parsed parsed = parse_module(path.string(), text);
    chain.push_back(name);
    for (const std::string& dep : parsed.imports) add(dep, chain);
    chain.pop_back();
    // One module scope holds them all: a name two of them declare would stop the page with a SyntaxError when
    // it loads. Said here instead, naming both places.
    for (const auto& [declared, line] : parsed.declared) {
      const auto [at, added] = declared_.emplace(declared, path.string() + ":" + std::to_string(line));
      if (!added) {
        fail(path.string(), line, "'" + declared + "' is declared at the top level of " + at->second +
                                      " too: the inlined modules share one scope (rename one)");
      }
    }
    bundle_.code += "// ---- " + name + "\n" + parsed.code;
    bundle_.modules.push_back(name);
    done_.insert(name);
  }

  ModuleBundle take() { return std::move(bundle_); }

 private:
  std::filesystem::path dir_;
  std::set<std::string> done_;
  std::map<std::string, std::string> declared_;  // top-level name -> "file:line" of its declaration
  ModuleBundle bundle_;
};

}  // namespace

ModuleBundle bundle_modules(const std::filesystem::path& dir, const std::string& entry) {
  Bundler bundler(dir);
  std::vector<std::string> chain;
  bundler.add(sibling("./" + entry, entry, 0), chain);
  return bundler.take();
}

}  // namespace gammalab::cli
