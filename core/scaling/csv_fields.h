#pragma once
// Reading a CSV of runs, shared by every reader of one: a line split into trimmed fields (double quotes
// protect commas; "" is a literal quote), the header (the first non-blank line), data rows (blank lines and
// lines starting with '#' skipped) whose field count is checked, and errors that name SOURCE:LINE and the
// column; a seed field is a non-negative integer, as in a sweep's `seeds:`.
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace gammalab {

std::string trim_csv_field(std::string_view s);
std::vector<std::string> split_csv_line(std::string_view line);

class CsvReader {
 public:
  // Throws std::invalid_argument "SOURCE: empty file (HEADER_HINT)" when there is no header row.
  CsvReader(std::string_view text, std::string source, const std::string& header_hint);

  const std::vector<std::string>& header() const { return header_; }
  std::optional<std::size_t> column(const std::string& name) const;
  // The next data row into fields(); false at the end. Throws on a row of another field count.
  bool next();
  const std::vector<std::string>& fields() const { return fields_; }

  // std::invalid_argument "SOURCE:LINE: what", at the line read last.
  [[noreturn]] void fail(const std::string& what) const;
  // "column 'NAME' (INDEX+1): ", the start of a message about one field.
  std::string where(std::size_t column) const;
  // The field as a finite number; fails naming the column otherwise (an empty field too).
  double finite_number(std::size_t column) const;
  // The field as a seed; fails naming the column otherwise.
  std::uint64_t seed(std::size_t column) const;

 private:
  std::istringstream in_;
  std::string source_;
  int line_no_ = 0;
  std::vector<std::string> header_;
  std::vector<std::string> fields_;
};

}  // namespace gammalab
