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
    // Fitting a narrow terminal (render(max_width)): a column with a drop rank may be left out, the highest
    // rank first; the cells of an elastic column (a long name) may be cut in the middle.
    int drop_rank = 0;
    bool elastic = false;
  };

  explicit TextTable(std::vector<Column> columns);

  // Missing cells are blank; extra cells are an error (std::invalid_argument). Cells are printed as
  // terminal_text (cli/terminal_text.h), with tabs and newlines as spaces.
  void add_row(std::vector<std::string> cells);
  std::size_t rows() const { return rows_.size(); }

  std::string render() const;
  // The table in at most `max_width` columns (0: any width): while it is wider, columns with a drop rank are left
  // out, the highest rank first; then the elastic column's long cells are cut in the middle with "…", down to
  // kMinElasticWidth. `left_out` gets the headers of the columns left out; `cut` says whether cells were cut.
  static constexpr std::size_t kMinElasticWidth = 16;
  std::string render(std::size_t max_width, std::vector<std::string>& left_out, bool& cut) const;
  // render(max_width) with a note beneath naming what was left out or cut, when anything was.
  std::string render_fitted(std::size_t max_width) const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Display width of UTF-8 text (code points; good enough for the symbols we print).
std::size_t display_width(const std::string& text);

// A note under a table: `text`'s words in lines of at most `width` (0: one line; a longer word alone on its
// line), each ended by a newline.
std::string wrap_words(const std::string& text, std::size_t width);

// Prose for a terminal: each line of `text` longer than `columns` wrapped at word boundaries, its continuation
// lines indented two spaces more than it (0 columns: unchanged). Never for table rows.
std::string wrap_prose(const std::string& text, std::size_t columns);

}  // namespace gammalab::cli
