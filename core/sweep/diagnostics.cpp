#include "core/sweep/diagnostics.h"

namespace gammalab {

void DiagnosticList::add(const SourceRef& at, const std::string& message, int column_offset) {
  const int column = at.line > 0 ? at.column + column_offset : 0;
  items_.push_back(SweepDiagnostic{file_, at.line, column, at.path, message});
}

void DiagnosticList::add(SweepDiagnostic diagnostic) {
  diagnostic.file = file_;
  items_.push_back(std::move(diagnostic));
}

}  // namespace gammalab
