#pragma once
// What `gammalab watch` draws on a terminal: a frame that fits the terminal whatever its size, redrawn whole on
// every update (cli/cmd_watch.cpp). The sweep's line first (jobs done of all, by state, and an ETA), then as
// many job rows as fit, the jobs that move first, and one line for the rest.
#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cli/terminal.h"
#include "gammalab/v1/gammalab.pb.h"

namespace gammalab::cli {

namespace v1 = ::gammalab::v1;


// "sweep 3 'demo': 12/54 done, ETA 3m10s; 10 succeeded, 2 failed, 4 running, 38 pending" ("finished" in place
// of the ETA once it has). The ETA is the steps left in every unfinished job over the steps per second the
// running jobs make together: a guess that assumes the pending jobs run as fast as the running ones.
std::string sweep_line(const v1::Sweep& sweep, const std::vector<v1::Job>& jobs);

// The frame's lines: at most size.rows - 1 of them (the cursor's line stays free, so the terminal never
// scrolls), none wider than size.columns. Job rows go running and leased first, then failed, pending,
// cancelled and succeeded, each in the sweep's order; the rows that do not fit are counted by state in one
// line. With `colour`, each job row takes its state's colour (escape sequences add no width).
std::vector<std::string> watch_frame(const v1::Sweep& sweep, const std::vector<v1::Job>& jobs, TerminalSize size,
                                     bool colour);

// What `watch` prints for a sweep that had already finished when it started (nothing to follow): the sweep's
// line, each stage's jobs by state, the jobs that failed with their errors (the first five), and where to read
// on: a few lines, however many jobs the sweep has. Lines cut to `columns` (0: whole).
std::vector<std::string> finished_summary(const v1::Sweep& sweep, const std::vector<v1::Job>& jobs, int columns);

// What `watch` prints where it cannot draw (a pipe, a log file, `make demo` under a CI runner): about twenty
// lines for a sweep of any size, not a line per job and state. next() gets every complete round of updates
// until the sweep finishes (whose end is the final table's own sweep line) and returns what to print:
//   - "CLOCK " + sweep_line(...) at the first round, then each time the jobs finished pass another multiple of
//     a twentieth of them (at least one), and beside each failure;
//   - "CLOCK NAME failed (attempt N): ERROR" for each job that fails, once.
class ProgressLog {
 public:
  std::string next(const v1::Sweep& sweep, const std::vector<v1::Job>& jobs, std::string_view clock);

 private:
  bool printed_ = false;
  std::size_t printed_done_ = 0;
  std::set<std::string> failed_;
};

// `line` cut to `columns` code points (each taken as one column), ending in "…" when cut.
std::string fit_width(const std::string& line, int columns);

}  // namespace gammalab::cli
