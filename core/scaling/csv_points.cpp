#include "core/scaling/csv_points.h"

#include <cerrno>
#include <cmath>
#include <limits>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace gammalab {

namespace {

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

// Splits one CSV line; double quotes protect commas ("" is a literal quote).
std::vector<std::string> split(std::string_view line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(trim(field));
      field.clear();
    } else {
      field += c;
    }
  }
  fields.push_back(trim(field));
  return fields;
}

// A seed is a non-negative integer, as in a sweep file's `seeds:`.
template <typename Fail>
std::uint64_t seed_number(const std::string& s, const std::string& where, Fail fail) {
  if (s.find_first_not_of("0123456789") != std::string::npos) {
    fail(where + "a seed must be a non-negative integer, got '" + s + "'");
  }
  errno = 0;
  const unsigned long long v = std::strtoull(s.c_str(), nullptr, 10);
  if (errno == ERANGE) fail(where + "seed out of range: '" + s + "'");
  return static_cast<std::uint64_t>(v);
}

}  // namespace

std::vector<RunPoint> parse_points_csv(std::string_view text, const std::string& source,
                                       const std::string& group_column, LossColumn loss_column) {
  const bool loss_optional = loss_column == LossColumn::kOptional;
  std::istringstream in{std::string(text)};
  std::string line;
  int line_no = 0;
  auto fail = [&](const std::string& what) { throw std::invalid_argument(source + ":" + std::to_string(line_no) + ": " + what); };
  std::vector<std::string> header;
  while (header.empty() && std::getline(in, line)) {
    ++line_no;
    if (!trim(line).empty()) header = split(line);
  }
  if (header.empty()) throw std::invalid_argument(source + ": empty file (a header row params,tokens,loss is required)");
  auto column = [&](const std::string& name) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return i;
    }
    return std::nullopt;
  };
  const auto params = column("params"), tokens = column("tokens"), loss = column("loss");
  for (const auto& [name, index] : {std::pair{"params", params}, {"tokens", tokens}, {"loss", loss}}) {
    if (!index && !(loss_optional && std::string(name) == "loss")) {
      fail(std::string("header has no column '") + name + "' (required: params,tokens" +
           (loss_optional ? ")" : ",loss)"));
    }
  }
  const auto compute = column("compute");
  auto group = column(group_column.empty() ? "group" : group_column);
  if (!group_column.empty() && !group) fail("header has no group column '" + group_column + "'");
  const auto seed = column("seed");
  auto label = column("label");
  if (!label) label = column("run");

  std::vector<RunPoint> runs;
  while (std::getline(in, line)) {
    ++line_no;
    if (trim(line).empty() || trim(line).front() == '#') continue;
    const auto fields = split(line);
    if (fields.size() != header.size()) {
      fail("expected " + std::to_string(header.size()) + " fields, found " + std::to_string(fields.size()));
    }
    auto number = [&](std::size_t index, bool optional) -> double {
      const std::string& s = fields[index];
      const std::string where = "column '" + header[index] + "' (" + std::to_string(index + 1) + "): ";
      if (s.empty()) {
        if (optional) return 0.0;
        fail(where + "empty value");
      }
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(s.c_str(), &end);
      if (end != s.c_str() + s.size() || errno == ERANGE) fail(where + "not a number: '" + s + "'");
      if (!(v > 0.0) || !std::isfinite(v)) fail(where + "must be positive and finite, got '" + s + "'");
      return v;
    };
    RunPoint run;
    run.params = number(*params, false);
    run.tokens = number(*tokens, false);
    run.loss = loss && !(loss_optional && fields[*loss].empty()) ? number(*loss, false)
                                                                  : std::numeric_limits<double>::quiet_NaN();
    if (compute) run.compute = number(*compute, true);
    if (group) {
      run.group = fields[*group];
      if (run.group.empty()) fail("column '" + header[*group] + "' (" + std::to_string(*group + 1) + "): empty group");
    }
    if (label) run.label = fields[*label];
    if (seed && !fields[*seed].empty()) {
      run.seed = seed_number(fields[*seed], "column 'seed' (" + std::to_string(*seed + 1) + "): ", fail);
    }
    runs.push_back(std::move(run));
  }
  if (runs.empty()) throw std::invalid_argument(source + ": no data rows after the header");
  return runs;
}

std::vector<RunPoint> read_points_csv(const std::string& path, const std::string& group_column, LossColumn loss) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::invalid_argument(path + ": cannot open");
  std::ostringstream text;
  text << file.rdbuf();
  return parse_points_csv(text.str(), path, group_column, loss);
}

}  // namespace gammalab
