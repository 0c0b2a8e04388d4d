// Store: a sweep and the jobs of it changed since a watch's last round. The numbering is the database's own
// (triggers of schema migration 16 on every write of a job's row), so a write added to the store later is
// numbered without knowing of it; the (sweep_id, changed_seq) index finds the changed jobs without reading the
// others, and the sweep's counts per state are kept as jobs change, so a round costs what changed, not the
// sweep's size.
#include "server/store.h"
#include "server/store/rows.h"

namespace gammalab {

namespace {
constexpr std::string_view kChangeSeq = "SELECT seq FROM job_change_seq WHERE id = 1";
}  // namespace

Store::JobChanges Store::jobs_changed_since(const std::string& sweep_id, std::int64_t after_seq) {
  store_read::ReadPool::Read snapshot = readers_.read();
  sql::StatementCache& statements = snapshot.statements();
  JobChanges out;
  // The counter first, in the same snapshot as the rows: every change it counts is in what is read below.
  sql::Statement& seq = statements.get(std::string(kChangeSeq));
  if (seq.step()) out.seq = seq.int64(0);
  seq.reset();
  // By id, else the newest of that name, as find_sweep resolves it; without the file's text, which a round
  // never needs and which find_sweep would read each time.
  sql::Statement& sweep = statements.get(std::string("SELECT ") + store_rows::kSweepSummaryColumns +
                                         " FROM sweeps s WHERE s.id = ? OR s.name = ? "
                                         "ORDER BY (s.id = ?) DESC, s.id DESC LIMIT 1");
  const std::int64_t named = store_rows::parse_id(sweep_id);
  sweep.bind(1, named).bind(2, sweep_id).bind(3, named);
  std::int64_t id = -1;
  if (sweep.step()) {
    id = sweep.int64(0);
    out.sweep = read_sweep(statements, sweep);
  }
  sweep.reset();
  if (!out.sweep) return out;
  sql::Statement& jobs = statements.get("SELECT " + store_rows::job_columns() +
                                        " FROM jobs j WHERE j.sweep_id = ? AND j.changed_seq > ? ORDER BY j.ordinal");
  jobs.bind(1, id).bind(2, after_seq);
  while (jobs.step()) out.jobs.push_back(store_rows::read_job(jobs));
  return out;
}

std::int64_t Store::job_change_seq() {
  store_read::ReadPool::Read snapshot = readers_.read();
  sql::Statement& seq = snapshot.statements().get(std::string(kChangeSeq));
  const std::int64_t now = seq.step() ? seq.int64(0) : 0;
  seq.reset();
  return now;
}

}  // namespace gammalab
