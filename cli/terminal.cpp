// The terminal the CLI prints to (cli/terminal.h).
#include "cli/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace gammalab::cli {

namespace {

int env_int(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? 0 : std::max(0, std::atoi(value));
}

}  // namespace

TerminalSize terminal_size(int fd) {
  winsize w{};
  if (ioctl(fd, TIOCGWINSZ, &w) == 0 && w.ws_col > 0 && w.ws_row > 0) return {w.ws_col, w.ws_row};
  TerminalSize size;
  if (const int c = env_int("COLUMNS"); c > 0) size.columns = c;
  if (const int r = env_int("LINES"); r > 0) size.rows = r;
  return size;
}

bool colour_wanted(int fd) {
  const char* no_colour = std::getenv("NO_COLOR");
  return isatty(fd) && (no_colour == nullptr || *no_colour == '\0');
}

std::size_t output_columns() {
  if (isatty(STDOUT_FILENO)) return static_cast<std::size_t>(terminal_size(STDOUT_FILENO).columns);
  return static_cast<std::size_t>(env_int("COLUMNS"));
}

}  // namespace gammalab::cli
