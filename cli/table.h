#pragma once
// Plain-text tables for the CLI: a header, a rule, and rows with columns aligned left (text) or right
// (numbers), two spaces apart, no trailing spaces. Shared by every command that prints a table.
#include <string>
#include <vector>

namespace gammalab::cli {

class TextTable {
 public:
  enum class Align { kLeft, kRight };
  struct Column {
    std::string header;
    Align align = Align::kLeft;
  };

  explicit TextTable(std::vector<Column> columns);

  // Missing cells are blank; extra cells are an error (std::invalid_argument). Cells are printed as
  // terminal_text (cli/terminal_text.h), with tabs and newlines as spaces.
  void add_row(std::vector<std::string> cells);
  std::size_t rows() const { return rows_.size(); }

  std::string render() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Display width of UTF-8 text (code points; good enough for the symbols we print).
std::size_t display_width(const std::string& text);

}  // namespace gammalab::cli
