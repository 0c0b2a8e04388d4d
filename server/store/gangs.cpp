// Store: gang leases, for a job that spans `nodes` workers (docs/distributed.md). The gang_members table holds
// each worker's place: while the gang gathers (the job still pending, the place's attempt the job's next one)
// and while that attempt runs. The places are renewed by the worker's lease requests until it has its lease,
// then by its heartbeats; Store::expire_leases ends an attempt one of whose places ran out.
//
// Why a gang cannot wait for ever: a gang starts only when enough live workers have the slots for it; a
// gathering gang is joined before any other work is leased, so workers that fit it go to it rather than
// start a second; and a gang that gathered for longer than the gang wait is dissolved, so two half-formed
// gangs (each holding a worker the other needs) let go of their workers.
#include <absl/strings/str_join.h>

#include "server/schema.h"
#include "server/store.h"
#include "server/store/rows.h"

namespace gammalab {

namespace {

std::string_view pending_name() { return job_state_name(JobState::kPending); }

}  // namespace

// Every query that joins gang_members to jobs (here and in leases.cpp) says CROSS JOIN: SQLite then reads the
// gangs (a handful of rows) and looks each job up by id, instead of walking every pending job to find the few
// with a gang, which made each lease cost in proportion to the queue (20 ms with 30,000 pending jobs;
// bench/dispatch_ingest.cpp).

void Store::prune_gangs(std::int64_t now, std::int64_t gang_wait_ms) {
  // Places of attempts that ended, or of gangs whose job is no longer waiting for them (cancelled, retried).
  sql::Statement& ended = statements_.get(
      "DELETE FROM gang_members WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = gang_members.job_id AND "
      "((j.state = ? AND gang_members.attempt = j.attempt + 1) OR "
      "(j.state IN (" + sql_active_states() + ") AND gang_members.attempt = j.attempt)))");
  ended.bind(1, pending_name()).run();
  // Gangs that will not form: gathered too long, or a worker stopped asking (lost, or draining).
  sql::Statement& stale = statements_.get(
      "DELETE FROM gang_members WHERE job_id IN (SELECT g.job_id FROM gang_members g CROSS JOIN jobs j ON j.id = g.job_id "
      "WHERE j.state = ? GROUP BY g.job_id HAVING MIN(g.joined_ms) < ? OR MIN(g.expires_ms) < ?)");
  stale.bind(1, pending_name()).bind(2, now - gang_wait_ms).bind(3, now).run();
}

Store::GangTurn Store::gang_turn(std::int64_t worker, std::int64_t now, std::int64_t lease_timeout_ms) {
  GangTurn turn;
  sql::Statement& place = statements_.get(
      "SELECT g.job_id, g.node, g.attempt, j.state FROM gang_members g CROSS JOIN jobs j ON j.id = g.job_id "
      "WHERE g.worker_id = ? AND g.delivered = 0 LIMIT 1");
  if (!place.bind(1, worker).step()) return turn;
  const std::int64_t job_id = place.int64(0), node = place.int64(1), attempt = place.int64(2);
  const bool gathering = place.text(3) == pending_name();
  place.reset();
  turn.held = true;
  sql::Statement& renew =
      statements_.get("UPDATE gang_members SET expires_ms = ? WHERE job_id = ? AND worker_id = ?");
  renew.bind(1, now + lease_timeout_ms).bind(2, job_id).bind(3, worker).run();
  if (gathering) return turn;
  std::string rendezvous;
  if (node > 0) {
    sql::Statement& host = statements_.get(
        "SELECT rendezvous FROM gang_members WHERE job_id = ? AND node = 0 AND attempt = ? AND rendezvous IS NOT NULL");
    if (!host.bind(1, job_id).bind(2, attempt).step()) return turn;  // node 0's trainer has not reported it yet
    rendezvous = host.text(0);
    host.reset();
  }
  sql::Statement& deliver = statements_.get("UPDATE gang_members SET delivered = 1 WHERE job_id = ? AND worker_id = ?");
  deliver.bind(1, job_id).bind(2, worker).run();
  Lease lease;
  if (auto job = read_job_by_id(statements_, job_id)) lease.job = std::move(*job);
  lease.attempt = static_cast<int>(attempt);
  lease.node = static_cast<int>(node);
  lease.rendezvous = std::move(rendezvous);
  lease.stored = stored_metrics(statements_, job_id);
  turn.lease = std::move(lease);
  return turn;
}

bool Store::join_gang(std::int64_t worker, std::int64_t now, std::int64_t lease_timeout_ms, int free_slots) {
  sql::Statement& gathering = statements_.get(
      "SELECT g.job_id, j.nodes, COUNT(*), MAX(g.attempt) FROM gang_members g CROSS JOIN jobs j ON j.id = g.job_id "
      "WHERE j.state = ? AND j.slots_per_node <= ? GROUP BY g.job_id ORDER BY MIN(g.joined_ms), g.job_id LIMIT 1");
  if (!gathering.bind(1, pending_name()).bind(2, free_slots).step()) return false;
  const std::int64_t job_id = gathering.int64(0), nodes = gathering.int64(1), node = gathering.int64(2),
                     attempt = gathering.int64(3);
  gathering.reset();
  sql::Statement& join = statements_.get(
      "INSERT INTO gang_members(job_id, node, worker_id, attempt, joined_ms, expires_ms) VALUES (?, ?, ?, ?, ?, ?)");
  join.bind(1, job_id).bind(2, node).bind(3, worker).bind(4, attempt).bind(5, now).bind(6, now + lease_timeout_ms).run();
  if (node + 1 < nodes) return true;
  // The last place: the gang is whole, and the job is leased to it as one attempt, held by node 0's worker.
  sql::Statement& members = statements_.get("SELECT worker_id FROM gang_members WHERE job_id = ? ORDER BY node");
  members.bind(1, job_id);
  std::vector<std::int64_t> workers;
  while (members.step()) workers.push_back(members.int64(0));
  transition(job_id, JobState::kPending, JobState::kLeased,
             {{"attempt = ?", attempt},
              {"worker_id = (SELECT worker_id FROM gang_members WHERE job_id = ? AND node = 0)", job_id},
              {"lease_expires_ms = ?", now + lease_timeout_ms},
              {"started_ms = COALESCE(started_ms, ?)", now}},
             {job_event_kind::kLeased,
              "gang of " + std::to_string(workers.size()) + " workers (node 0 first): " + absl::StrJoin(workers, ", "),
              attempt, workers.front()});
  sql::Statement& renew = statements_.get("UPDATE gang_members SET expires_ms = ? WHERE job_id = ?");
  renew.bind(1, now + lease_timeout_ms).bind(2, job_id).run();
  changed();
  return true;
}

void Store::start_gang(std::int64_t job_id, std::int64_t worker, std::int64_t now, std::int64_t lease_timeout_ms) {
  sql::Statement& start = statements_.get(
      "INSERT INTO gang_members(job_id, node, worker_id, attempt, joined_ms, expires_ms) "
      "SELECT id, 0, ?, attempt + 1, ?, ? FROM jobs WHERE id = ?");
  start.bind(1, worker).bind(2, now).bind(3, now + lease_timeout_ms).bind(4, job_id).run();
}

void Store::end_gang(std::int64_t job_id) {
  sql::Statement& end = statements_.get("DELETE FROM gang_members WHERE job_id = ?");
  end.bind(1, job_id).run();
}

std::optional<int> Store::gang_node(std::int64_t job_id, std::int64_t worker, std::int64_t attempt) {
  sql::Statement& member = statements_.get(
      "SELECT g.node FROM gang_members g CROSS JOIN jobs j ON j.id = g.job_id WHERE g.job_id = ? AND g.worker_id = ? AND "
      "g.attempt = ? AND j.attempt = g.attempt AND j.state IN (" + sql_active_states() + ")");
  if (!member.bind(1, job_id).bind(2, worker).bind(3, attempt).step()) return std::nullopt;
  const int node = static_cast<int>(member.int64(0));
  member.reset();
  return node;
}

}  // namespace gammalab
