#pragma once
// The rows a law written as a file (core/scaling/law_form.h) is fitted to: per run, the values of the law's
// variables (any numeric columns: params, tokens, compute, experts, unique_tokens, lr, ...), its final loss, its
// group and its seed. Read from a CSV whose header names the columns, or made from a sweep's runs.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/scaling/csv_points.h"
#include "core/scaling/law.h"

namespace gammalab {

struct LawRow {
  std::vector<double> values;  // in the order of LawRows::variables
  double loss = 0.0;           // NaN for a row to predict without one
  std::string group;
  std::optional<std::uint64_t> seed;
  std::string label;
};

struct LawRows {
  std::vector<std::string> variables;
  std::vector<LawRow> rows;
};

// Every variable must be a column, except `compute`, which is 6·params·tokens when the file has params and
// tokens but no compute column. Values are finite numbers; a loss is positive. Errors name the file, line
// and column (std::invalid_argument).
LawRows parse_law_rows_csv(std::string_view text, const std::string& source, const std::vector<std::string>& variables,
                           const std::string& group_column = "", LossColumn loss = LossColumn::kRequired);
LawRows read_law_rows_csv(const std::string& path, const std::vector<std::string>& variables,
                          const std::string& group_column = "", LossColumn loss = LossColumn::kRequired);

// A sweep's runs as rows of params, tokens and compute; a law over any other variable needs a CSV.
LawRows law_rows_from_runs(const std::vector<RunPoint>& runs, const std::vector<std::string>& variables);

}  // namespace gammalab
