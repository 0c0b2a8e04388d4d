#include "cli/table.h"

#include <absl/strings/str_split.h>

#include <absl/strings/str_join.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "cli/terminal_text.h"

namespace gammalab::cli {

std::size_t display_width(const std::string& text) {
  // Count bytes that do not continue a UTF-8 sequence.
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string wrap_words(const std::string& text, std::size_t width) {
  std::string out, line;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    if (!line.empty() && width > 0 && display_width(line) + 1 + display_width(std::string(word)) > width) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + std::string(word);
  }
  return line.empty() ? out : out + line + "\n";
}

// `text`'s lines wrapped to `columns` at word boundaries, each continuation indented two more spaces than the
// line it continues (0 columns: unchanged). Table rows are never passed here: only prose.
std::string wrap_prose(const std::string& text, std::size_t columns) {
  if (columns == 0) return text;
  std::istringstream lines(text);
  std::string out, line;
  while (std::getline(lines, line)) {
    const std::size_t indent = line.find_first_not_of(' ');
    if (indent == std::string::npos || display_width(line) <= columns) {
      out += line + "\n";
      continue;
    }
    const std::string first(indent, ' '), rest(indent + 2, ' ');
    const std::size_t width = columns > rest.size() + 20 ? columns - rest.size() : 20;
    // The first line has two more columns than the rest: wrap it with the rest's width, then join its start.
    std::istringstream pieces(wrap_words(line.substr(indent), width));
    std::string piece;
    bool head = true;
    while (std::getline(pieces, piece)) {
      out += (head ? first : rest) + piece + "\n";
      head = false;
    }
  }
  return out;
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

namespace {

// The first and last parts of `text` around "…", `width` wide in all: a name's start (its stage and size) and
// its end (its variant and seed) tell it apart best.
std::string cut_middle(const std::string& text, std::size_t width) {
  std::vector<std::size_t> starts;  // the byte where each code point starts
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) starts.push_back(i);
  }
  if (starts.size() <= width || width < 3) return text;
  const std::size_t tail = (width - 1) / 2, head = width - 1 - tail;
  return text.substr(0, starts[head]) + "…" + text.substr(starts[starts.size() - tail]);
}

}  // namespace

std::string TextTable::render(std::size_t max_width, std::vector<std::string>& left_out, bool& cut) const {
  left_out.clear();
  cut = false;
  if (max_width == 0) return render();
  // The table's width from its columns' (two spaces between them), without rendering it.
  std::vector<std::size_t> widths(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = display_width(columns_[c].header);
    for (const auto& row : rows_) widths[c] = std::max(widths[c], display_width(row[c]));
  }
  std::vector<bool> kept(columns_.size(), true);
  auto width = [&] {
    std::size_t sum = 0, shown = 0;
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      if (kept[c]) sum += widths[c], ++shown;
    }
    return shown == 0 ? 0 : sum + 2 * (shown - 1);
  };
  std::vector<std::size_t> ranked;  // droppable columns, the first to go first
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (columns_[c].drop_rank > 0) ranked.push_back(c);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [&](std::size_t a, std::size_t b) { return columns_[a].drop_rank > columns_[b].drop_rank; });
  for (std::size_t next = 0; width() > max_width && next < ranked.size(); ++next) {
    kept[ranked[next]] = false;
    left_out.push_back(columns_[ranked[next]].header);
  }
  const std::size_t over = width() > max_width ? width() - max_width : 0;
  // What is over is taken from the elastic columns in proportion to what each can give above its least width
  // (a long message gives more than a name), so that two of them are not both cut by all of it.
  std::size_t can_give = 0;
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (kept[c] && columns_[c].elastic && widths[c] > kMinElasticWidth) can_give += widths[c] - kMinElasticWidth;
  }
  TextTable fitted({});
  std::vector<std::size_t> room;  // per kept column: the widest a cell may be
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (!kept[c]) continue;
    fitted.columns_.push_back(columns_[c]);
    const bool cut_here = over > 0 && columns_[c].elastic && widths[c] > kMinElasticWidth;
    if (!cut_here) {
      room.push_back(widths[c]);
      continue;
    }
    const std::size_t gives = widths[c] - kMinElasticWidth;
    // Rounded up, so that the cuts together cover what is over.
    const std::size_t cut = std::min(gives, (over * gives + can_give - 1) / can_give);
    room.push_back(widths[c] - cut);
  }
  for (const auto& row : rows_) {
    std::vector<std::string> cells;
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      if (!kept[c]) continue;
      const std::size_t most = room[cells.size()];
      cells.push_back(display_width(row[c]) > most ? cut_middle(row[c], most) : row[c]);
      cut = cut || cells.back() != row[c];
    }
    fitted.rows_.push_back(std::move(cells));
  }
  return fitted.render();
}

std::string TextTable::render_fitted(std::size_t max_width) const {
  std::vector<std::string> left_out;
  bool cut = false;
  std::string out = render(max_width, left_out, cut);
  if (left_out.empty() && !cut) return out;
  std::string what = left_out.empty() ? "" : absl::StrJoin(left_out, ", ") + " left out";
  if (cut) what += std::string(what.empty() ? "" : ", ") + "names cut in the middle";
  return out + wrap_words("(fitted to " + std::to_string(max_width) + " columns: " + what +
                              "; a wider terminal or --json shows all)",
                          max_width);
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
