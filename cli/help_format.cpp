#include "cli/help_format.h"

#include <unistd.h>

#include <algorithm>
#include <sstream>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cli/table.h"
#include "cli/terminal.h"

namespace gammalab::cli {

namespace {
// Narrower than this the description column is not worth keeping: wrap as if the terminal were this wide.
constexpr std::size_t kNarrowestDescription = 30;
}  // namespace

std::size_t help_columns() {
  return ::isatty(STDOUT_FILENO) ? static_cast<std::size_t>(std::max(terminal_size(STDOUT_FILENO).columns, 40)) : 80;
}

std::string WrappingHelpFormatter::wrap(const std::string& text, std::size_t width) const {
  std::vector<std::string> paragraphs;
  for (absl::string_view paragraph : absl::StrSplit(text, '\n')) {
    std::string lines = wrap_words(std::string(paragraph), width);
    if (!lines.empty() && lines.back() == '\n') lines.pop_back();
    paragraphs.push_back(std::move(lines));
  }
  return absl::StrJoin(paragraphs, "\n");
}

std::size_t WrappingHelpFormatter::description_width() const {
  // format_help (CLI11) pads the name column to column_width_, then writes the description after it.
  return std::max(columns_ > column_width_ ? columns_ - column_width_ : 0, kNarrowestDescription);
}

std::string WrappingHelpFormatter::make_option_desc(const CLI::Option* option) const {
  return wrap(CLI::Formatter::make_option_desc(option), description_width());
}

std::string WrappingHelpFormatter::make_subcommand(const CLI::App* command) const {
  std::stringstream out;
  CLI::detail::format_help(out, command->get_display_name(true), wrap(command->get_description(), description_width()),
                           column_width_);
  return out.str();
}

std::string WrappingHelpFormatter::make_description(const CLI::App* app) const {
  const std::string text = CLI::Formatter::make_description(app);
  if (text.empty()) return text;
  // CLI11 ends the description with a newline; wrap what comes before it, to the whole width.
  return wrap(text.substr(0, text.find_last_not_of('\n') + 1), columns_) + "\n";
}

std::string WrappingHelpFormatter::make_footer(const CLI::App* app) const {
  const std::string text = CLI::Formatter::make_footer(app);
  if (text.empty()) return text;
  // Footers hold examples: their lines are kept as written (a command is not to be broken), prose wrapped.
  std::vector<std::string> lines;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    const bool indented = !line.empty() && line.front() == ' ';
    lines.push_back(indented ? std::string(line) : wrap(std::string(line), columns_));
  }
  return absl::StrJoin(lines, "\n");
}

}  // namespace gammalab::cli
