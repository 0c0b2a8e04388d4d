// Store: notes and tags on sweeps and runs (core/annotation.h), and the search across them.
#include <algorithm>
#include <stdexcept>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "server/store.h"
#include "server/store/rows.h"

namespace gammalab {

using store_rows::parse_id;

namespace {

// Tags as a column keeps them: sorted, each bounded by spaces (" a b "), "" for none.
std::string tags_column(const std::vector<std::string>& tags) {
  return tags.empty() ? "" : " " + absl::StrJoin(tags, " ") + " ";
}

std::vector<std::string> tags_of(const std::string& column) {
  return absl::StrSplit(column, ' ', absl::SkipEmpty());
}

std::string id_text(std::int64_t id) { return id == 0 ? "" : std::to_string(id); }

}  // namespace

Annotation Store::annotate(const std::string& sweep_id, const std::string& job_id, const AnnotationChange& change) {
  const std::int64_t sweep = parse_id(sweep_id);
  const std::int64_t job = job_id.empty() ? 0 : parse_id(job_id);
  absl::MutexLock lock(&mutex_);
  sql::Transaction tx(db_);
  Annotation out{sweep_id, job_id, "", {}, 0};
  sql::Statement& read = statements_.get("SELECT note, tags FROM annotations WHERE sweep_id = ? AND job_id = ?");
  read.bind(1, sweep).bind(2, job);
  if (read.step()) {
    out.note = read.text(0);
    out.tags = tags_of(read.text(1));
  }
  read.reset();
  if (change.note) out.note = *change.note;
  out.tags = tags_after(out.tags, change);  // (throws before anything is written: the transaction rolls back)
  if (out.note.empty() && out.tags.empty()) {
    sql::Statement& remove = statements_.get("DELETE FROM annotations WHERE sweep_id = ? AND job_id = ?");
    remove.bind(1, sweep).bind(2, job).run();
  } else {
    out.updated_ms = now_ms();
    sql::Statement& write = statements_.get(
        "INSERT INTO annotations(sweep_id, job_id, note, tags, updated_ms) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT(sweep_id, job_id) DO UPDATE SET note = excluded.note, tags = excluded.tags, "
        "updated_ms = excluded.updated_ms");
    write.bind(1, sweep).bind(2, job).bind(3, out.note).bind(4, tags_column(out.tags)).bind(5, out.updated_ms).run();
  }
  tx.commit();
  changed();
  return out;
}

std::vector<Annotation> Store::annotations(const std::string& sweep_id) {
  store_read::ReadPool::Read snapshot = readers_.read();
  sql::Statement& s = snapshot.statements().get(
      "SELECT job_id, note, tags, updated_ms FROM annotations WHERE sweep_id = ? ORDER BY job_id");
  s.bind(1, parse_id(sweep_id));
  std::vector<Annotation> out;
  while (s.step()) out.push_back({sweep_id, id_text(s.int64(0)), s.text(1), tags_of(s.text(2)), s.int64(3)});
  return out;
}

std::vector<SearchHit> Store::search(const std::vector<SearchWord>& words, std::size_t limit, bool& truncated) {
  truncated = false;
  store_read::ReadPool::Read snapshot = readers_.read();
  sql::StatementCache& statements = snapshot.statements();
  std::vector<SearchHit> out;
  const auto keep = [&](SearchHit hit) {
    if (out.size() == limit) {
      truncated = true;
      return false;
    }
    out.push_back(std::move(hit));
    return true;
  };
  // Every sweep (its name and file are always searchable), newest first, each followed by its annotated runs.
  // One pass over the sweeps and one over the annotations: what a search costs grows with those, not with runs.
  sql::Statement& sweeps = statements.get(
      "SELECT s.id, s.name, s.file_name, COALESCE(a.note, ''), COALESCE(a.tags, ''), COALESCE(a.updated_ms, 0) "
      "FROM sweeps s LEFT JOIN annotations a ON a.sweep_id = s.id AND a.job_id = 0 ORDER BY s.id DESC");
  sql::Statement& runs = statements.get(
      "SELECT a.job_id, j.name, a.note, a.tags, a.updated_ms FROM annotations a JOIN jobs j ON j.id = a.job_id "
      "WHERE a.sweep_id = ? AND a.job_id != 0 ORDER BY a.job_id");
  while (sweeps.step()) {
    const std::string sweep_id = std::to_string(sweeps.int64(0));
    const std::string name = sweeps.text(1), file = sweeps.text(2), note = sweeps.text(3);
    const std::vector<std::string> tags = tags_of(sweeps.text(4));
    if (matches_search(words, {name, file, note}, tags) &&
        !keep({Annotation{sweep_id, "", note, tags, sweeps.int64(5)}, name, ""})) {
      break;
    }
    runs.bind(1, sweeps.int64(0));
    bool more = true;
    while (more && runs.step()) {
      const std::string job_name = runs.text(1), run_note = runs.text(2);
      const std::vector<std::string> run_tags = tags_of(runs.text(3));
      if (matches_search(words, {job_name, run_note}, run_tags)) {
        more = keep({Annotation{sweep_id, std::to_string(runs.int64(0)), run_note, run_tags, runs.int64(4)}, name,
                     job_name});
      }
    }
    runs.reset();
    if (!more) break;
  }
  sweeps.reset();
  return out;
}

}  // namespace gammalab
