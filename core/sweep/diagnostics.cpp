// Problems of a sweep file (core/sweep/diagnostics.h).
#include "core/sweep/diagnostics.h"

#include <absl/strings/str_join.h>

namespace gammalab {

std::string SweepDiagnostic::to_string() const {
  std::string out = file;
  if (line > 0) out += ":" + std::to_string(line) + ":" + std::to_string(column);
  out += ": ";
  if (!path.empty()) out += path + ": ";
  return out + message;
}

namespace {

std::string join_messages(const std::vector<SweepDiagnostic>& diagnostics) {
  return absl::StrJoin(diagnostics, "\n", [](std::string* out, const SweepDiagnostic& d) { out->append(d.to_string()); });
}

}  // namespace

SweepError::SweepError(std::vector<SweepDiagnostic> diagnostics)
    : std::runtime_error(join_messages(diagnostics)), diagnostics_(std::move(diagnostics)) {}


void DiagnosticList::add(const SourceRef& at, const std::string& message, int column_offset) {
  const int column = at.line > 0 ? at.column + column_offset : 0;
  items_.push_back(SweepDiagnostic{file_, at.line, column, at.path, message});
}

void DiagnosticList::add(SweepDiagnostic diagnostic) {
  diagnostic.file = file_;
  items_.push_back(std::move(diagnostic));
}

}  // namespace gammalab
