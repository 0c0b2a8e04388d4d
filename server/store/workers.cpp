// Store: workers, as they register (keeping their id across coordinator restarts) and as the CLI lists them.
#include <absl/strings/str_join.h>
#include <absl/strings/str_split.h>

#include <limits>

#include "server/schema.h"
#include "server/store.h"
#include "server/store/rows.h"

namespace gammalab {

using store_rows::parse_id;

std::string Store::register_worker(const std::string& hostname, int slots, const std::vector<std::string>& gpus,
                                   const std::string& requested_id, std::optional<std::int64_t> token_id,
                                   WorkerQuota* quota) {
  absl::MutexLock lock(&mutex_);
  const std::int64_t now = now_ms();
  const std::string gpu_list = absl::StrJoin(gpus, ",");
  sql::Transaction tx(db_);
  std::int64_t id = parse_id(requested_id);
  // A worker the table already has keeps its place; a new one counts against its token's live workers, in this
  // transaction, so that concurrent registrations cannot pass the bound together.
  if (quota != nullptr && quota->max_live > 0 && token_id) {
    sql::Statement& known = statements_.get("SELECT 1 FROM workers WHERE id = ?");
    const bool is_known = id >= 0 && known.bind(1, id).step();
    known.reset();
    if (!is_known) {
      sql::Statement& live = statements_.get("SELECT COUNT(*) FROM workers WHERE token_id = ? AND heartbeat_ms >= ?");
      live.bind(1, *token_id).bind(2, now - quota->live_within_ms);
      quota->live = live.step() ? live.int64(0) : 0;
      live.reset();
      if (quota->live >= quota->max_live) {
        quota->refused = true;
        return "";
      }
    }
  }
  auto bind_token = [&](sql::Statement& s, int index) {
    if (token_id)
      s.bind(index, *token_id);
    else
      s.bind_null(index);
  };
  if (id >= 0) {
    // Re-registration after a coordinator restart or a network loss keeps the worker's id (and its leases), but
    // only for the token it registered with: another worker token cannot take over its id and leases.
    sql::Statement& upsert = statements_.get(
        "INSERT INTO workers(id, hostname, slots, gpus, registered_ms, heartbeat_ms, token_id) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET hostname = excluded.hostname, "
        "slots = excluded.slots, gpus = excluded.gpus, heartbeat_ms = excluded.heartbeat_ms, "
        "draining = 0, token_id = COALESCE(excluded.token_id, workers.token_id) "
        "WHERE excluded.token_id IS NULL OR workers.token_id IS NULL OR workers.token_id = excluded.token_id");
    upsert.bind(1, id).bind(2, hostname).bind(3, slots).bind(4, gpu_list).bind(5, now).bind(6, now);
    bind_token(upsert, 7);
    upsert.run();
    if (db_.changes() == 0) return "";  // held by another token
  } else {
    sql::Statement& insert = statements_.get(
        "INSERT INTO workers(hostname, slots, gpus, registered_ms, heartbeat_ms, token_id) "
        "VALUES (?, ?, ?, ?, ?, ?)");
    insert.bind(1, hostname).bind(2, slots).bind(3, gpu_list).bind(4, now).bind(5, now);
    bind_token(insert, 6);
    insert.run();
    id = db_.last_insert_id();
  }
  tx.commit();
  changed();
  return std::to_string(id);
}

bool Store::worker_of_other_token(const std::string& worker_id, std::int64_t token_id) {
  store_read::ReadPool::Read snapshot = worker_readers_.read();
  sql::StatementCache& statements = snapshot.statements();
  sql::Statement& s = statements.get("SELECT token_id FROM workers WHERE id = ?");
  if (!s.bind(1, parse_id(worker_id)).step()) return false;
  const bool other = s.is_null(0) || s.int64(0) != token_id;
  s.reset();
  return other;
}

std::optional<int> Store::worker_slots(const std::string& worker_id) {
  store_read::ReadPool::Read snapshot = worker_readers_.read();
  sql::StatementCache& statements = snapshot.statements();
  sql::Statement& s = statements.get("SELECT slots FROM workers WHERE id = ?");
  if (!s.bind(1, parse_id(worker_id)).step()) return std::nullopt;
  const int slots = static_cast<int>(s.int64(0));
  s.reset();
  return slots;
}

std::vector<int> Store::live_worker_slots(std::int64_t worker_timeout_ms) {
  store_read::ReadPool::Read snapshot = readers_.read();
  sql::StatementCache& statements = snapshot.statements();
  sql::Statement& s =
      statements.get("SELECT slots FROM workers WHERE heartbeat_ms >= ? AND draining = 0 ORDER BY slots DESC");
  s.bind(1, now_ms() - worker_timeout_ms);
  std::vector<int> slots;
  while (s.step()) slots.push_back(static_cast<int>(s.int64(0)));
  return slots;
}

std::vector<WorkerRecord> Store::list_workers(std::int64_t worker_timeout_ms) {
  bool more = false;
  return list_workers_page(worker_timeout_ms, -1, std::numeric_limits<std::size_t>::max(), more);
}

std::vector<WorkerRecord> Store::list_workers_page(std::int64_t worker_timeout_ms, std::int64_t after_id,
                                                   std::size_t limit, bool& more) {
  store_read::ReadPool::Read snapshot = readers_.read();
  sql::StatementCache& statements = snapshot.statements();
  const std::int64_t now = now_ms();
  std::vector<WorkerRecord> out;
  more = false;
  sql::Statement& s = statements.get(
      "SELECT id, hostname, slots, gpus, registered_ms, heartbeat_ms, draining, paused_until_ms, pause_reason "
      "FROM workers WHERE id > ? "
      "ORDER BY id LIMIT ?");
  // One more than the page tells whether another follows.
  s.bind(1, after_id).bind(2, limit >= static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max())
                                    ? std::int64_t{-1}
                                    : static_cast<std::int64_t>(limit) + 1);
  sql::Statement& jobs =
      statements.get("SELECT id FROM jobs WHERE state IN (" + sql_active_states() + ") AND (worker_id = ?1 OR id IN "
                      "(SELECT g.job_id FROM gang_members g WHERE g.worker_id = ?1 AND g.attempt = jobs.attempt)) "
                      "ORDER BY id");
  while (s.step()) {
    if (out.size() == limit) {
      more = true;
      s.reset();
      break;
    }
    WorkerRecord w;
    w.id = std::to_string(s.int64(0));
    w.hostname = s.text(1);
    w.slots = static_cast<int>(s.int64(2));
    for (absl::string_view gpu : absl::StrSplit(s.text(3), ',', absl::SkipEmpty())) w.gpus.emplace_back(gpu);
    w.registered_ms = s.int64(4);
    w.last_heartbeat_ms = s.int64(5);
    w.alive = now - s.int64(5) <= worker_timeout_ms;
    w.draining = s.int64(6) != 0;
    if (s.int64(7) > now) {  // a pause that has passed is no pause
      w.paused_until_ms = s.int64(7);
      w.pause_reason = s.text(8);
    }
    jobs.bind(1, s.int64(0));
    while (jobs.step()) w.running_job_ids.push_back(std::to_string(jobs.int64(0)));
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace gammalab
