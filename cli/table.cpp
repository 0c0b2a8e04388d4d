#include "cli/table.h"

#include <algorithm>
#include <stdexcept>

#include "cli/terminal_text.h"

namespace gammalab::cli {

std::size_t display_width(const std::string& text) {
  // Count bytes that do not continue a UTF-8 sequence.
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

TextTable::TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

void TextTable::add_row(std::vector<std::string> cells) {
  if (cells.size() > columns_.size()) throw std::invalid_argument("table row has more cells than columns");
  cells.resize(columns_.size());
  // Cells hold names and errors from the server: no escape sequences, and one line each (the columns align).
  for (std::string& cell : cells) {
    cell = terminal_text(cell);
    std::replace_if(cell.begin(), cell.end(), [](char c) { return c == '\n' || c == '\t'; }, ' ');
  }
  rows_.push_back(std::move(cells));
}

std::string TextTable::render() const {
  std::vector<std::size_t> widths(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = display_width(columns_[c].header);
    for (const auto& row : rows_) widths[c] = std::max(widths[c], display_width(row[c]));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::string padding(widths[c] - display_width(cells[c]), ' ');
      if (c > 0) out += "  ";
      out += columns_[c].align == Align::kRight ? padding + cells[c] : cells[c] + padding;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::vector<std::string> headers, rule;
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    headers.push_back(columns_[c].header);
    rule.push_back(std::string(widths[c], '-'));
  }
  std::string out = line(headers) + line(rule);
  for (const auto& row : rows_) out += line(row);
  return out;
}

}  // namespace gammalab::cli
