#pragma once
// Collects every problem found in a sweep file (instead of stopping at the first), each with its place.
#include <string>
#include <vector>

#include "core/sweep/sweep.h"

namespace gammalab {

// Where something was written in the sweep file: the dot path of the field and the node's position.
struct SourceRef {
  std::string path;   // e.g. base.optim.lr, axes.grid.scale.variant[2]
  int line = 0;       // 1-based; 0 when unknown
  int column = 0;     // 1-based; 0 when unknown
};

class DiagnosticList {
 public:
  explicit DiagnosticList(std::string file) : file_(std::move(file)) {}

  // `column_offset` moves the column right, e.g. to the character of an expression that is wrong.
  void add(const SourceRef& at, const std::string& message, int column_offset = 0);
  void add(SweepDiagnostic diagnostic);

  bool empty() const { return items_.empty(); }
  std::size_t size() const { return items_.size(); }
  const std::vector<SweepDiagnostic>& items() const { return items_; }
  const std::string& file() const { return file_; }

 private:
  std::string file_;
  std::vector<SweepDiagnostic> items_;
};

}  // namespace gammalab
