#include "core/scaling/csv_fields.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace gammalab {

std::string trim_csv_field(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

std::vector<std::string> split_csv_line(std::string_view line) {
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
      fields.push_back(trim_csv_field(field));
      field.clear();
    } else {
      field += c;
    }
  }
  fields.push_back(trim_csv_field(field));
  return fields;
}

CsvReader::CsvReader(std::string_view text, std::string source, const std::string& header_hint)
    : in_(std::string(text)), source_(std::move(source)) {
  std::string line;
  while (header_.empty() && std::getline(in_, line)) {
    ++line_no_;
    if (!trim_csv_field(line).empty()) header_ = split_csv_line(line);
  }
  if (header_.empty()) throw std::invalid_argument(source_ + ": empty file (" + header_hint + ")");
}

std::optional<std::size_t> CsvReader::column(const std::string& name) const {
  for (std::size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return i;
  }
  return std::nullopt;
}

bool CsvReader::next() {
  std::string line;
  while (std::getline(in_, line)) {
    ++line_no_;
    const std::string trimmed = trim_csv_field(line);
    if (trimmed.empty() || trimmed.front() == '#') continue;
    fields_ = split_csv_line(line);
    if (fields_.size() != header_.size()) {
      fail("expected " + std::to_string(header_.size()) + " fields, found " + std::to_string(fields_.size()));
    }
    return true;
  }
  return false;
}

void CsvReader::fail(const std::string& what) const {
  throw std::invalid_argument(source_ + ":" + std::to_string(line_no_) + ": " + what);
}

std::string CsvReader::where(std::size_t column) const {
  return "column '" + header_[column] + "' (" + std::to_string(column + 1) + "): ";
}

double CsvReader::finite_number(std::size_t column) const {
  const std::string& s = fields_[column];
  if (s.empty()) fail(where(column) + "empty value");
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(v)) {
    fail(where(column) + "not a finite number: '" + s + "'");
  }
  return v;
}

std::uint64_t CsvReader::seed(std::size_t column) const {
  const std::string& s = fields_[column];
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) {
    fail(where(column) + "a seed must be a non-negative integer, got '" + s + "'");
  }
  errno = 0;
  const unsigned long long v = std::strtoull(s.c_str(), nullptr, 10);
  if (errno == ERANGE) fail(where(column) + "seed out of range: '" + s + "'");
  return static_cast<std::uint64_t>(v);
}

}  // namespace gammalab
