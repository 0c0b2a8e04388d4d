// A `watch` frame sized to the terminal (cli/watch_frame.h).
#include "cli/watch_frame.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>

#include "cli/job_family.h"
#include "cli/job_view.h"
#include "cli/terminal_text.h"
#include "core/job_state.h"
#include "proto/convert.h"

namespace gammalab::cli {
namespace {

constexpr int kSweepNameColumns = 24;

// The order rows are shown in, and dropped from the end of when they do not fit: what moves first.
int display_rank(v1::JobState state) {
  switch (state) {
    case v1::JOB_STATE_RUNNING:
    case v1::JOB_STATE_LEASED:
      return 0;
    case v1::JOB_STATE_FAILED:
      return 1;
    case v1::JOB_STATE_PENDING:
      return 2;
    case v1::JOB_STATE_CANCELLED:
      return 3;
    default:
      return 4;  // succeeded
  }
}

// SGR colours: running cyan, failed red, cancelled yellow, succeeded green; pending as the terminal's text.
const char* colour_of(v1::JobState state) {
  switch (state) {
    case v1::JOB_STATE_RUNNING:
    case v1::JOB_STATE_LEASED:
      return "\x1b[36m";
    case v1::JOB_STATE_FAILED:
      return "\x1b[31m";
    case v1::JOB_STATE_CANCELLED:
      return "\x1b[33m";
    case v1::JOB_STATE_SUCCEEDED:
      return "\x1b[32m";
    default:
      return nullptr;
  }
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}


}  // namespace


std::string fit_width(const std::string& line, int columns) {
  if (columns <= 0) return "";
  // Count code points: a UTF-8 continuation byte (10xxxxxx) does not start one.
  std::size_t points = 0, cut = std::string::npos;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if ((static_cast<unsigned char>(line[i]) & 0xC0) == 0x80) continue;
    if (points == static_cast<std::size_t>(columns - 1)) cut = i;  // where "…" goes if the line is too wide
    if (++points > static_cast<std::size_t>(columns)) return line.substr(0, cut) + "…";
  }
  return line;
}

std::string sweep_line(const v1::Sweep& sweep, const std::vector<v1::Job>& jobs) {
  std::map<v1::JobState, int> by_state;
  double steps_left = 0, steps_per_s = 0;
  for (const auto& j : jobs) {
    ++by_state[j.state()];
    const auto state = from_proto(j.state());
    if (state && is_terminal(*state)) continue;
    steps_left += std::max<double>(0, double(j.total_steps()) - double(j.step()));
    if (j.state() == v1::JOB_STATE_RUNNING && j.tokens_per_s() > 0 && j.step() > 0 && j.tokens() > 0) {
      steps_per_s += j.tokens_per_s() * double(j.step()) / double(j.tokens());
    }
  }
  const int succeeded = by_state[v1::JOB_STATE_SUCCEEDED], failed = by_state[v1::JOB_STATE_FAILED],
            cancelled = by_state[v1::JOB_STATE_CANCELLED];
  const int running = by_state[v1::JOB_STATE_RUNNING] + by_state[v1::JOB_STATE_LEASED];
  const int pending = by_state[v1::JOB_STATE_PENDING];
  // What a narrow terminal must keep comes first (done of all, the ETA); the name is cut to leave room for it.
  std::string line = "sweep " + sweep.id() + " '" + fit_width(terminal_text(sweep.name()), kSweepNameColumns) +
                     "': " + std::to_string(succeeded + failed + cancelled) + "/" + std::to_string(jobs.size()) +
                     " done, " +
                     (sweep.finished() ? "finished" : "ETA " + (steps_per_s > 0 ? duration_text(steps_left / steps_per_s) : "-")) +
                     "; " + std::to_string(succeeded) + " succeeded";
  if (failed > 0) line += ", " + std::to_string(failed) + " failed";
  if (cancelled > 0) line += ", " + std::to_string(cancelled) + " cancelled";
  if (!sweep.finished()) line += ", " + std::to_string(running) + " running, " + std::to_string(pending) + " pending";
  return line;
}

std::vector<std::string> finished_summary(const v1::Sweep& sweep, const std::vector<v1::Job>& jobs, int columns) {
  constexpr std::size_t kFailuresShown = 5;
  std::vector<std::string> lines{sweep_line(sweep, jobs)};
  // Stages in the order their jobs come (tune first), each with its jobs counted by state.
  std::vector<std::string> stages;
  std::map<std::string, std::map<std::string, int>> by_stage;
  std::vector<const v1::Job*> failed;
  for (const auto& j : jobs) {
    const std::string stage = j.stage().empty() ? "main" : j.stage();
    if (!by_stage.contains(stage)) stages.push_back(stage);
    ++by_stage[stage][state_label(j.state())];
    if (j.state() == v1::JOB_STATE_FAILED) failed.push_back(&j);
  }
  if (stages.size() > 1) {
    for (const auto& stage : stages) {
      int total = 0;
      std::string counts;
      for (const auto& [state, n] : by_stage[stage]) {
        total += n;
        counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + state;
      }
      lines.push_back("  " + terminal_text(stage) + " stage: " + std::to_string(total) + " jobs, " + counts);
    }
  }
  for (std::size_t i = 0; i < failed.size() && i < kFailuresShown; ++i) {
    const v1::Job& j = *failed[i];
    std::string error = j.error().substr(0, j.error().find('\n'));
    lines.push_back("  failed: job " + j.id() + " " + terminal_text(j.name()) + " (attempt " +
                    std::to_string(j.attempt()) + "): " + terminal_text(error));
  }
  if (failed.size() > kFailuresShown) {
    lines.push_back("  and " + std::to_string(failed.size() - kFailuresShown) + " more failed");
  }
  // Where to read on: every job, the verdict, and the LR picks where there was a tune stage.
  lines.push_back("next: gammalab jobs " + sweep.id() + " · gammalab fit " + sweep.id() +
                  (by_stage.contains("tune") ? " · gammalab tune " + sweep.id() : ""));
  if (columns > 0) {
    for (auto& line : lines) line = fit_width(line, columns);
  }
  return lines;
}

std::vector<std::string> watch_frame(const v1::Sweep& sweep, const std::vector<v1::Job>& jobs, TerminalSize size,
                                     bool colour) {
  const int columns = std::max(size.columns, 1);
  const int lines = size.rows - 1;  // the cursor's line stays free
  std::vector<std::string> frame{fit_width(sweep_line(sweep, jobs), columns)};
  // By state, a run's cooldown branches kept with it (the family goes where its most urgent member would).
  std::vector<std::size_t> order;
  for (const FamilyRow& row : family_rows(jobs, [](const v1::Job& j) { return display_rank(j.state()); })) {
    order.push_back(row.index);
  }
  // "… 30 more: 2 running, 28 pending": the jobs from order[from] on, by state.
  const auto rest_line = [&](std::size_t from) {
    std::map<int, int> hidden;  // by display rank
    for (std::size_t k = from; k < jobs.size(); ++k) ++hidden[display_rank(jobs[order[k]].state())];
    static const char* const kRankName[] = {"running", "failed", "pending", "cancelled", "succeeded"};
    std::string rest = "… " + std::to_string(jobs.size() - from) + (from == 0 ? " jobs:" : " more:");
    bool first = true;
    for (const auto& [rank, n] : hidden) {
      rest += std::string(first ? " " : ", ") + std::to_string(n) + " " + kRankName[rank];
      first = false;
    }
    return fit_width(rest + " (`gammalab jobs " + sweep.id() + "` lists them all)", columns);
  };
  // Job rows fit beside the sweep line, the table's header and rule, and (when some are left out) the line
  // that counts the rest.
  const int table_rows = lines - 3;
  std::size_t shown = jobs.size();
  if (table_rows < static_cast<int>(jobs.size())) shown = static_cast<std::size_t>(std::max(table_rows - 1, 0));
  if (shown == 0 && !jobs.empty()) {  // too short for a table: the sweep line, and the count if it fits
    if (lines >= 2) frame.push_back(rest_line(0));
    return frame;
  }
  if (lines < 3) return frame;
  std::vector<v1::Job> rows;
  for (std::size_t k = 0; k < shown; ++k) rows.push_back(jobs[order[k]]);
  // The progress bar gives way first: its width shrinks to what the terminal leaves, down to 8 characters;
  // then every line is cut to the width.
  int bar = 24;
  std::vector<std::string> table = lines_of(progress_lines(rows, bar));
  std::size_t widest = 0;
  for (const auto& l : table) widest = std::max(widest, l.size());
  if (const int excess = static_cast<int>(widest) - columns; excess > 0) {
    bar = std::max(8, bar - excess);
    table = lines_of(progress_lines(rows, bar));
  }
  for (std::size_t i = 0; i < table.size(); ++i) {
    std::string line = fit_width(table[i], columns);
    const char* c = i >= 2 && colour ? colour_of(rows[i - 2].state()) : nullptr;
    frame.push_back(c == nullptr ? line : std::string(c) + line + "\x1b[0m");
  }
  if (shown < jobs.size()) frame.push_back(rest_line(shown));
  return frame;
}

std::string ProgressLog::next(const v1::Sweep& sweep, const std::vector<v1::Job>& jobs, std::string_view clock) {
  std::string failures;
  std::size_t done = 0;
  for (const auto& j : jobs) {
    const std::optional<JobState> state = from_proto(j.state());
    if (!state || !is_terminal(*state)) continue;
    ++done;
    if (*state == JobState::kFailed && failed_.insert(j.id()).second) {
      failures += std::string(clock) + " " + j.name() + " failed";
      if (j.attempt() > 0) failures += " (attempt " + std::to_string(j.attempt()) + ")";
      failures += j.error().empty() ? "\n" : ": " + j.error() + "\n";
    }
  }
  std::string out;
  const std::size_t step = std::max<std::size_t>(1, jobs.size() / 20);
  // Anchored on multiples of the step, so a failure's own line does not shift the ones after it.
  if (!printed_ || done / step > printed_done_ / step || (!failures.empty() && done != printed_done_)) {
    out = std::string(clock) + " " + sweep_line(sweep, jobs) + "\n";
    printed_ = true;
    printed_done_ = done;
  }
  return terminal_text(out + failures);
}

}  // namespace gammalab::cli
