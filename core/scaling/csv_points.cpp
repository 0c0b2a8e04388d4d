#include "core/scaling/csv_points.h"

#include "core/scaling/csv_fields.h"

#include <cerrno>
#include <cmath>
#include <limits>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace gammalab {


std::vector<RunPoint> parse_points_csv(std::string_view text, const std::string& source,
                                       const std::string& group_column, LossColumn loss_column) {
  const bool loss_optional = loss_column == LossColumn::kOptional;
  CsvReader csv(text, source, "a header row params,tokens,loss is required");
  const auto params = csv.column("params"), tokens = csv.column("tokens"), loss = csv.column("loss");
  for (const auto& [name, index] : {std::pair{"params", params}, {"tokens", tokens}, {"loss", loss}}) {
    if (!index && !(loss_optional && std::string(name) == "loss")) {
      csv.fail(std::string("header has no column '") + name + "' (required: params,tokens" +
               (loss_optional ? ")" : ",loss)"));
    }
  }
  const auto compute = csv.column("compute");
  auto group = csv.column(group_column.empty() ? "group" : group_column);
  if (!group_column.empty() && !group) csv.fail("header has no group column '" + group_column + "'");
  const auto seed = csv.column("seed");
  auto label = csv.column("label");
  if (!label) label = csv.column("run");

  std::vector<RunPoint> runs;
  while (csv.next()) {
    const auto& fields = csv.fields();
    auto number = [&](std::size_t index, bool optional) -> double {
      const std::string& s = fields[index];
      if (s.empty()) {
        if (optional) return 0.0;
        csv.fail(csv.where(index) + "empty value");
      }
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(s.c_str(), &end);
      if (end != s.c_str() + s.size() || errno == ERANGE) csv.fail(csv.where(index) + "not a number: '" + s + "'");
      if (!(v > 0.0) || !std::isfinite(v)) csv.fail(csv.where(index) + "must be positive and finite, got '" + s + "'");
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
      if (run.group.empty()) csv.fail(csv.where(*group) + "empty group");
    }
    if (label) run.label = fields[*label];
    if (seed && !fields[*seed].empty()) run.seed = csv.seed(*seed);
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
