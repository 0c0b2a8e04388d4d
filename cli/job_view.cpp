// The CLI's tables of sweeps, jobs and workers, and the live progress lines of `gammalab watch`.
#include "cli/job_view.h"

#include <absl/strings/str_join.h>
#include <google/protobuf/util/time_util.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "cli/job_family.h"
#include "cli/number_text.h"
#include "cli/table.h"
#include "cli/terminal_text.h"
#include "core/job_state.h"
#include "proto/convert.h"

namespace gammalab::cli {

namespace {

// The SLOTS column (a slot is a GPU, or a share of a CPU machine): the slots the job takes, or for a job that
// spans workers the slots of each times the workers ("2x4": 2 slots on each of 4 workers).
std::string slots_text(const v1::Job& j) {
  const std::string each = std::to_string(std::max(1, j.slots_per_node()));
  return j.nodes() > 1 ? each + "x" + std::to_string(j.nodes()) : each;
}

}  // namespace

std::string duration_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "-";
  const long s = std::lround(seconds);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  else if (s >= 60)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%lds", s);
  return buf;
}

namespace {

int count(const v1::Sweep& s, JobState state) {
  auto it = s.job_counts().find(std::string(job_state_name(state)));
  return it == s.job_counts().end() ? 0 : it->second;
}

std::string loss_text(const v1::Job& j) { return j.has_loss() ? fixed(j.last_loss(), 4) : "-"; }

// A table whose columns are right-aligned where `numeric` says so.
std::string render(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                   const std::vector<bool>& numeric) {
  std::vector<TextTable::Column> columns;
  for (std::size_t c = 0; c < header.size(); ++c) {
    columns.push_back({header[c], numeric[c] ? TextTable::Align::kRight : TextTable::Align::kLeft});
  }
  TextTable table(std::move(columns));
  for (const auto& row : rows) table.add_row(row);
  return table.render();
}

}  // namespace

std::string state_label(v1::JobState state) {
  const auto known = from_proto(state);
  return known ? std::string(job_state_name(*known)) : "unspecified";
}

std::string sweep_status(const v1::Sweep& s) {
  if (!s.finished()) return "active";
  const int failed = count(s, JobState::kFailed), succeeded = count(s, JobState::kSucceeded);
  if (failed == 0) return succeeded > 0 || s.total_jobs() == 0 ? "finished" : "cancelled";
  return succeeded == 0 ? "failed" : "partly failed";
}

std::string sweeps_table(const std::vector<v1::Sweep>& sweeps) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& s : sweeps) {
    rows.push_back({s.id(), s.name(), std::to_string(s.total_jobs()), std::to_string(count(s, JobState::kPending)),
                    std::to_string(count(s, JobState::kLeased) + count(s, JobState::kRunning)),
                    std::to_string(count(s, JobState::kSucceeded)), std::to_string(count(s, JobState::kFailed)),
                    std::to_string(count(s, JobState::kCancelled)),
                    sweep_status(s)});
  }
  return render({"ID", "NAME", "JOBS", "PENDING", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED", "STATUS"}, rows,
                {true, false, true, true, true, true, true, true, false});
}

WorkerNames worker_names(const std::vector<v1::Worker>& workers) {
  std::map<std::string, int> per_host;
  for (const auto& w : workers) ++per_host[w.hostname()];
  WorkerNames names;
  for (const auto& w : workers) {
    names[w.id()] = w.hostname().empty()         ? "worker " + w.id()
                    : per_host[w.hostname()] > 1 ? w.hostname() + "#" + w.id()
                                                 : w.hostname();
  }
  return names;
}

std::string worker_label(const WorkerNames& names, const std::string& worker_id) {
  const auto name = names.find(worker_id);
  return name == names.end() ? worker_id : name->second;
}

std::string jobs_table(const std::vector<v1::Job>& jobs, const WorkerNames& names, std::size_t width) {
  using Align = TextTable::Align;
  TextTable table({{"ID", Align::kRight},
                   {"NAME", Align::kLeft, 0, /*elastic=*/true},
                   {"STATE", Align::kLeft},
                   {"SLOTS", Align::kRight, 2},
                   {"ATTEMPT", Align::kRight, 1},
                   {"STEP", Align::kRight},
                   {"TOKENS", Align::kRight, 4},
                   {"LOSS", Align::kRight},
                   {"TOK/S", Align::kRight, 5},
                   {"WORKER", Align::kLeft, 3}});
  std::string reasons;  // why pending jobs wait, under the table: a sentence does not fit a column
  for (const FamilyRow& row : family_rows(jobs)) {
    const v1::Job& j = jobs[row.index];
    table.add_row({j.id(), row.name, state_label(j.state()), slots_text(j), std::to_string(j.attempt()),
                   std::to_string(j.step()) + "/" + std::to_string(j.total_steps()), count_text(double(j.tokens())),
                   loss_text(j), j.tokens_per_s() > 0 ? count_text(j.tokens_per_s()) : "-",
                   j.worker_id().empty() ? "-" : worker_label(names, j.worker_id())});
    if (!j.pending_reason().empty()) reasons += "job " + j.id() + " waits: " + j.pending_reason() + "\n";
  }
  std::string out = table.render_fitted(width);
  return out + terminal_text(reasons);
}

std::string workers_table(const std::vector<v1::Worker>& workers, std::int64_t now_ms) {
  std::vector<std::vector<std::string>> rows;
  std::string reasons;  // why a worker is paused, under the table: a sentence does not fit a column
  for (const auto& w : workers) {
    const std::string gpus = absl::StrJoin(w.gpus(), ","), running = absl::StrJoin(w.running_job_ids(), ",");
    const std::int64_t paused_ms = w.has_paused_until() ? google::protobuf::util::TimeUtil::TimestampToMilliseconds(w.paused_until()) - now_ms : 0;
    const bool paused = w.alive() && !w.draining() && paused_ms > 0;
    rows.push_back({w.id(), w.hostname(), std::to_string(w.slots()), gpus.empty() ? "-" : gpus,
                    w.alive() ? (w.draining() ? "draining" : paused ? "paused" : "alive") : "lost",
                    running.empty() ? "-" : running});
    if (paused) {
      reasons += "worker " + w.id() + " is paused for " + std::to_string((paused_ms + 999) / 1000) +
                 " s more (leased nothing): " + w.pause_reason() + "\n";
    }
  }
  return render({"ID", "HOST", "SLOTS", "GPUS", "STATUS", "JOBS"}, rows, {true, false, true, false, false, false}) +
         terminal_text(reasons);
}

std::string progress_lines(const std::vector<v1::Job>& jobs, int bar_width) {
  std::vector<std::vector<std::string>> rows;
  for (const FamilyRow& row : family_rows(jobs)) {
    const v1::Job& j = jobs[row.index];
    const double fraction = j.total_steps() > 0 ? std::min(1.0, double(j.step()) / double(j.total_steps())) : 0.0;
    const int filled = static_cast<int>(std::lround(fraction * bar_width));
    std::string bar = "[";
    bar.append(static_cast<std::size_t>(filled), '#').append(static_cast<std::size_t>(bar_width - filled), '.') += ']';
    std::string eta = "-";
    const auto state = from_proto(j.state());
    const bool active = state && is_active(*state);
    if (active && j.tokens_per_s() > 0 && j.step() > 0) {
      const double tokens_per_step = double(j.tokens()) / double(j.step());
      eta = duration_text(double(j.total_steps() - j.step()) * tokens_per_step / j.tokens_per_s());
    }
    rows.push_back({row.name, state_label(j.state()), bar, percent(fraction),
                    std::to_string(j.step()) + "/" + std::to_string(j.total_steps()), count_text(double(j.tokens())),
                    loss_text(j), j.tokens_per_s() > 0 ? count_text(j.tokens_per_s()) + "/s" : "-", eta});
  }
  return render({"JOB", "STATE", "PROGRESS", "", "STEP", "TOKENS", "LOSS", "SPEED", "ETA"}, rows,
                {false, false, false, true, true, true, true, true, true});
}

}  // namespace gammalab::cli
