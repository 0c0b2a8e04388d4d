#pragma once
// Runs for `gammalab fit --points FILE.csv`: a header row naming the columns params, tokens, loss (required),
// compute (optional; 6·N·D when absent or empty), a group column, label/run and seed (optional: a non-negative
// integer; runs of different groups with the same size, tokens and seed are a pair); other columns are
// ignored. Bad rows are errors naming the file, line and column, never silently skipped.
#include <string>
#include <string_view>
#include <vector>

#include "core/scaling/law.h"

namespace gammalab {

// group_column: the column that labels groups. Empty means "group if present, else one group"; a non-empty
// name that is not in the header is an error. Throws std::invalid_argument with "SOURCE:LINE: column 'X': ...".
// Rows to predict (`gammalab fit --predict`) need no loss: with kLossOptional a missing loss column or an
// empty value reads as NaN (a loss that is there is checked as always, and shown beside the prediction).
enum class LossColumn { kRequired, kOptional };
std::vector<RunPoint> parse_points_csv(std::string_view text, const std::string& source,
                                       const std::string& group_column = "", LossColumn loss = LossColumn::kRequired);
std::vector<RunPoint> read_points_csv(const std::string& path, const std::string& group_column = "",
                                      LossColumn loss = LossColumn::kRequired);

}  // namespace gammalab
