#include "cli/table.h"

#include <absl/strings/str_split.h>

#include <algorithm>
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
  auto width_of = [](const TextTable& t) {
    const std::string text = t.render();
    return display_width(text.substr(0, text.find('\n')));  // the header line is as wide as any
  };
  std::vector<std::size_t> ranked;  // droppable columns, the first to go first
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (columns_[c].drop_rank > 0) ranked.push_back(c);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [&](std::size_t a, std::size_t b) { return columns_[a].drop_rank > columns_[b].drop_rank; });
  std::vector<bool> kept(columns_.size(), true);
  auto fitted = [&] {
    TextTable t({});
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      if (kept[c]) t.columns_.push_back(columns_[c]);
    }
    for (const auto& row : rows_) {
      std::vector<std::string> cells;
      for (std::size_t c = 0; c < columns_.size(); ++c) {
        if (kept[c]) cells.push_back(row[c]);
      }
      t.rows_.push_back(std::move(cells));
    }
    return t;
  };
  TextTable t = fitted();
  for (std::size_t next = 0; width_of(t) > max_width && next < ranked.size(); ++next) {
    kept[ranked[next]] = false;
    left_out.push_back(columns_[ranked[next]].header);
    t = fitted();
  }
  const std::size_t wide = width_of(t);
  if (wide <= max_width) return t.render();
  for (std::size_t c = 0; c < t.columns_.size(); ++c) {
    if (!t.columns_[c].elastic) continue;
    std::size_t longest = display_width(t.columns_[c].header);
    for (const auto& row : t.rows_) longest = std::max(longest, display_width(row[c]));
    const std::size_t over = wide - max_width;
    const std::size_t room = std::max(kMinElasticWidth, longest > over ? longest - over : 0);
    for (auto& row : t.rows_) {
      if (display_width(row[c]) > room) {
        row[c] = cut_middle(row[c], room);
        cut = true;
      }
    }
  }
  return t.render();
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
