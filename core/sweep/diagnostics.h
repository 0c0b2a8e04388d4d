#pragma once
// The problems found in a sweep file, each with its place: collected all (instead of stopping at the first)
// and thrown together as one SweepError.
#include <stdexcept>
#include <string>
#include <vector>

namespace gammalab {

struct SweepDiagnostic {
  std::string file;
  int line = 0;             // 1-based; 0 when unknown
  int column = 0;           // 1-based; 0 when unknown
  std::string path;         // dot path of the field, e.g. base.optim.lr
  std::string message;
  std::string to_string() const;  // file:line:column: path: message
};

class SweepError : public std::runtime_error {
 public:
  explicit SweepError(std::vector<SweepDiagnostic> diagnostics);
  const std::vector<SweepDiagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<SweepDiagnostic> diagnostics_;
};


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
