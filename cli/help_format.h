#pragma once
// `--help` that fits the terminal: CLI11 prints each description on one line, so at 80 columns the terminal
// breaks it mid-word ("comp|ute"). This formatter wraps descriptions at word boundaries to the width of the
// terminal (80 into a pipe or a file), continuation lines under the description column.
#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>

namespace gammalab::cli {

class WrappingHelpFormatter : public CLI::Formatter {
 public:
  explicit WrappingHelpFormatter(std::size_t columns) : columns_(columns) {}

  std::string make_option_desc(const CLI::Option* option) const override;
  std::string make_subcommand(const CLI::App* command) const override;
  std::string make_description(const CLI::App* app) const override;
  std::string make_footer(const CLI::App* app) const override;

 private:
  // `text` in lines of at most `width` columns, joined by '\n' (CLI11 indents what follows each '\n'); a
  // paragraph break ("\n") in the text is kept.
  std::string wrap(const std::string& text, std::size_t width) const;
  std::size_t description_width() const;

  std::size_t columns_;
};

// The width help is wrapped to: the terminal's, or 80 where stdout is not one.
std::size_t help_columns();

}  // namespace gammalab::cli
