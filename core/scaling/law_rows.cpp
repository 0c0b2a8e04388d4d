#include "core/scaling/law_rows.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "core/scaling/csv_fields.h"

namespace gammalab {

LawRows parse_law_rows_csv(std::string_view text, const std::string& source, const std::vector<std::string>& variables,
                           const std::string& group_column, LossColumn loss_column) {
  CsvReader csv(text, source, "a header row naming the columns is required");
  // Each variable's column; nullopt for compute made from params and tokens.
  std::vector<std::optional<std::size_t>> columns;
  const auto params = csv.column("params"), tokens = csv.column("tokens");
  for (const std::string& v : variables) {
    columns.push_back(csv.column(v));
    if (!columns.back() && !(v == "compute" && params && tokens)) {
      csv.fail("header has no column '" + v + "', a variable of the law");
    }
  }
  const auto loss = csv.column("loss");
  if (!loss && loss_column == LossColumn::kRequired) csv.fail("header has no column 'loss'");
  const auto group = csv.column(group_column.empty() ? "group" : group_column);
  if (!group_column.empty() && !group) csv.fail("header has no group column '" + group_column + "'");
  const auto seed = csv.column("seed");
  auto label = csv.column("label");
  if (!label) label = csv.column("run");

  LawRows out;
  out.variables = variables;
  while (csv.next()) {
    const auto& fields = csv.fields();
    LawRow row;
    for (std::size_t i = 0; i < variables.size(); ++i) {
      row.values.push_back(columns[i] ? csv.finite_number(*columns[i])
                                      : 6.0 * csv.finite_number(*params) * csv.finite_number(*tokens));
    }
    row.loss = std::numeric_limits<double>::quiet_NaN();
    if (loss && !(loss_column == LossColumn::kOptional && fields[*loss].empty())) {
      row.loss = csv.finite_number(*loss);
      if (!(row.loss > 0)) csv.fail(csv.where(*loss) + "must be positive, got '" + fields[*loss] + "'");
    }
    if (group) {
      row.group = fields[*group];
      if (row.group.empty()) csv.fail(csv.where(*group) + "empty group");
    }
    if (label) row.label = fields[*label];
    if (seed && !fields[*seed].empty()) row.seed = csv.seed(*seed);
    out.rows.push_back(std::move(row));
  }
  if (out.rows.empty()) throw std::invalid_argument(source + ": no data rows after the header");
  return out;
}

LawRows read_law_rows_csv(const std::string& path, const std::vector<std::string>& variables,
                          const std::string& group_column, LossColumn loss) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::invalid_argument(path + ": cannot open");
  std::ostringstream text;
  text << file.rdbuf();
  return parse_law_rows_csv(text.str(), path, variables, group_column, loss);
}

LawRows law_rows_from_runs(const std::vector<RunPoint>& runs, const std::vector<std::string>& variables) {
  LawRows out;
  out.variables = variables;
  for (const std::string& v : variables) {
    if (v != "params" && v != "tokens" && v != "compute") {
      throw std::invalid_argument("a sweep's runs have params, tokens and compute; the law's variable '" + v +
                                  "' needs a CSV of runs (--points)");
    }
  }
  for (const RunPoint& run : runs) {
    LawRow row;
    for (const std::string& v : variables) {
      row.values.push_back(v == "params" ? run.params : v == "tokens" ? run.tokens : run_compute(run));
    }
    row.loss = run.loss;
    row.group = run.group;
    row.seed = run.seed;
    row.label = run.label;
    out.rows.push_back(std::move(row));
  }
  return out;
}

}  // namespace gammalab
