#pragma once
// What the CLI asks of the terminal it prints to: its size, whether to colour, how wide a table may be.
#include <cstddef>

namespace gammalab::cli {

struct TerminalSize {
  int columns = 80;
  int rows = 24;
};

// The size of the terminal on `fd`; $COLUMNS / $LINES, then 80×24, where it cannot be asked.
TerminalSize terminal_size(int fd);

// Whether to colour the output on `fd`: a terminal, and NO_COLOR unset or empty (no-color.org).
bool colour_wanted(int fd);

// How wide a table printed on stdout may be: the terminal's width when stdout is one, else $COLUMNS when set,
// else 0 (any: a pipe or a file gets whole lines, for scripts).
std::size_t output_columns();

}  // namespace gammalab::cli
