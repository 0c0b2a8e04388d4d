// Store: a worker's hold on a job's attempt. Leasing (pending -> leased), the trainer's start (-> running),
// heartbeats that renew the lease, the attempt's end (finish) and leases that ran out (expire_leases).
// Every report from a worker is fenced by (worker, attempt): a stale one changes nothing.
#include <spdlog/spdlog.h>

#include "core/utf8_text.h"
#include "server/schema.h"
#include "server/store.h"
#include "server/store/rows.h"

namespace gammalab {

using store_rows::parse_id;
using store_rows::read_state;

namespace {

// The history's name for how an attempt ended (Store::finish).
std::string_view finish_event_kind(AttemptEnd end, JobState to) {
  switch (to) {
    case JobState::kSucceeded:
      return job_event_kind::kSucceeded;
    case JobState::kCancelled:
      return job_event_kind::kCancelled;
    case JobState::kFailed:
      return job_event_kind::kFailed;
    default:
      return end == AttemptEnd::kHandedBack ? job_event_kind::kHandedBack : job_event_kind::kRequeued;
  }
}

}  // namespace

HeartbeatResult Store::heartbeat(const std::string& worker_id, const std::vector<std::pair<std::string, int>>& running,
                                 bool draining, std::int64_t lease_timeout_ms) {
  absl::MutexLock lock(&mutex_);
  HeartbeatResult result;
  const std::int64_t now = now_ms(), wid = parse_id(worker_id);
  sql::Transaction tx(db_);
  sql::Statement& touch = statements_.get("UPDATE workers SET heartbeat_ms = ?, draining = ? WHERE id = ?");
  touch.bind(1, now).bind(2, draining ? 1 : 0).bind(3, wid).run();
  if (db_.changes() == 0) {
    tx.commit();
    return result;  // unknown worker: it must register again
  }
  result.known = true;
  if (draining) {
    // A draining worker lets go of the gangs it is gathering with: they dissolve, their other workers go free.
    sql::Statement& leave = statements_.get(
        "DELETE FROM gang_members WHERE job_id IN (SELECT g.job_id FROM gang_members g CROSS JOIN jobs j ON "
        "j.id = g.job_id WHERE g.worker_id = ? AND j.state = ?)");
    leave.bind(1, wid).bind(2, job_state_name(JobState::kPending)).run();
  }
  sql::Statement& renew = statements_.get(
      "UPDATE jobs SET lease_expires_ms = ? WHERE id = ? AND worker_id = ? AND attempt = ? "
      "AND state IN (" + sql_active_states() + ") RETURNING cancel_requested");
  // A gang's members (node 0 included) renew their places; the job's own lease is node 0's.
  sql::Statement& renew_place = statements_.get(
      "UPDATE gang_members SET expires_ms = ? WHERE job_id = ? AND worker_id = ? AND attempt = ? AND EXISTS "
      "(SELECT 1 FROM jobs j WHERE j.id = gang_members.job_id AND j.attempt = gang_members.attempt AND j.state IN (" +
      sql_active_states() + "))");
  sql::Statement& cancel_asked = statements_.get("SELECT cancel_requested FROM jobs WHERE id = ?");
  for (const auto& [job_id, attempt] : running) {
    const std::int64_t id = parse_id(job_id);
    bool held = false, cancel = false;
    renew.bind(1, now + lease_timeout_ms).bind(2, id).bind(3, wid).bind(4, attempt);
    if (renew.step()) {
      held = true;
      cancel = renew.int64(0) != 0;
      renew.reset();
    }
    renew_place.bind(1, now + lease_timeout_ms).bind(2, id).bind(3, wid).bind(4, attempt).run();
    if (!held && db_.changes() > 0) {
      held = true;  // a member of the attempt's gang other than node 0
      if (cancel_asked.bind(1, id).step()) {
        cancel = cancel_asked.int64(0) != 0;
        cancel_asked.reset();
      }
    }
    if (!held) {
      result.lost_job_ids.push_back(job_id);
    } else if (cancel) {
      result.cancel_job_ids.push_back(job_id);
    }
  }
  tx.commit();
  return result;
}

std::optional<Lease> Store::lease(const std::string& worker_id, std::int64_t lease_timeout_ms, int free_slots,
                                  std::int64_t gang_wait_ms) {
  absl::MutexLock lock(&mutex_);
  const std::int64_t now = now_ms(), wid = parse_id(worker_id);
  const std::string_view pending = job_state_name(JobState::kPending);
  sql::Transaction tx(db_);
  sql::Statement& worker = statements_.get("SELECT draining, slots, paused_until_ms FROM workers WHERE id = ?");
  worker.bind(1, wid);
  if (!worker.step()) return std::nullopt;  // unknown: no work
  const bool draining = worker.int64(0) != 0;
  const std::int64_t slots = worker.int64(1);
  const bool paused = worker.int64(2) > now;  // a job failed there in a way its environment may cause (finish)
  worker.reset();
  if (draining || paused || free_slots < 1) return std::nullopt;
  // A gang this worker holds a place in comes first, then one it can join (server/store/gangs.cpp).
  prune_gangs(now, gang_wait_ms);
  if (GangTurn turn = gang_turn(wid, now, lease_timeout_ms); turn.held) {
    tx.commit();
    if (turn.lease) changed();
    return std::move(turn.lease);
  }
  if (join_gang(wid, now, lease_timeout_ms, free_slots)) {
    tx.commit();
    return std::nullopt;
  }
  // First the sweep (a small table): highest priority, then the one served longest ago (round robin), among
  // sweeps with a pending job this worker could ever run. Then its first such job by the (sweep_id, state,
  // ordinal) index. No sort over all pending jobs.
  // A job that spans workers is a candidate only while enough live workers have its share of slots.
  // A cooldown branch, only once it no longer waits for its run's checkpoint (Store::release_branches).
  // Never a job that failed on this worker in a way its environment may cause (Store::finish).
  const std::string can_gather =
      "j.waiting = 0 AND (j.nodes = 1 OR j.nodes <= (SELECT COUNT(*) FROM workers w WHERE w.draining = 0 AND "
      "w.heartbeat_ms >= ?3 AND w.slots >= j.slots_per_node)) AND NOT EXISTS (SELECT 1 FROM job_worker_faults f "
      "WHERE f.job_id = j.id AND f.worker_id = ?5) AND j.not_before_ms <= ?6";
  sql::Statement& pick_sweep = statements_.get(
      "SELECT s.id FROM sweeps s WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.sweep_id = s.id "
      "AND j.state = ?1 AND j.slots_per_node <= ?2 AND " + can_gather + ") ORDER BY s.priority DESC, s.lease_turn, s.id LIMIT 1");
  const std::int64_t live_since = now - lease_timeout_ms;
  if (!pick_sweep.bind(1, pending).bind(2, slots).bind(3, live_since).bind(5, wid).bind(6, now).step()) {
    return std::nullopt;
  }
  const std::int64_t sweep_id = pick_sweep.int64(0);
  pick_sweep.reset();
  sql::Statement& pick = statements_.get(
      "SELECT j.id, j.slots_per_node, j.nodes FROM jobs j WHERE j.sweep_id = ?4 AND j.state = ?1 AND j.slots_per_node <= ?2 AND " +
      can_gather + " ORDER BY j.ordinal LIMIT 1");
  if (!pick.bind(1, pending).bind(2, slots).bind(3, live_since).bind(4, sweep_id).bind(5, wid).bind(6, now).step()) {
    return std::nullopt;
  }
  const std::int64_t job_id = pick.int64(0), slots_per_node = pick.int64(1), nodes = pick.int64(2);
  pick.reset();
  // Its turn: wait for the worker's running jobs to free enough slots.
  if (slots_per_node > free_slots) return std::nullopt;
  if (nodes > 1) {
    // This worker gathers a gang for it as node 0; the job is leased once `nodes` workers hold places.
    start_gang(job_id, wid, now, lease_timeout_ms);
    advance_lease_turn(sweep_id);
    tx.commit();
    return std::nullopt;
  }
  if (!transition(job_id, JobState::kPending, JobState::kLeased,
                  {{"attempt = attempt + 1"},
                   {"worker_id = ?", wid},
                   {"lease_expires_ms = ?", now + lease_timeout_ms},
                   {"started_ms = COALESCE(started_ms, ?)", now}},
                  {job_event_kind::kLeased, "", std::nullopt, std::nullopt})) {
    return std::nullopt;  // (picked as pending in this transaction: cannot happen)
  }
  advance_lease_turn(sweep_id);
  Lease lease;
  if (auto job = read_job_by_id(statements_, job_id)) lease.job = std::move(*job);
  lease.attempt = lease.job.attempt;
  lease.stored = stored_metrics(statements_, job_id);
  tx.commit();
  changed();
  return lease;
}

void Store::release_branches(std::int64_t parent_id) {
  sql::Statement& release = statements_.get("UPDATE jobs AS j SET waiting = 0 WHERE j.parent_id = ? AND j.waiting = 1 "
                                            "AND " + store_rows::sql_branch_may_start());
  release.bind(1, parent_id).run();
}

void Store::end_orphaned_branches(std::int64_t parent_id, JobState parent) {
  sql::Statement& waiting = statements_.get(
      "SELECT id, branch_step FROM jobs WHERE parent_id = ? AND state = ? AND waiting = 1 ORDER BY id");
  waiting.bind(1, parent_id).bind(2, job_state_name(JobState::kPending));
  std::vector<std::pair<std::int64_t, std::int64_t>> branches;  // (id, branch step)
  while (waiting.step()) branches.emplace_back(waiting.int64(0), waiting.int64(1));
  const std::string run = std::to_string(parent_id);
  for (const auto& [id, step] : branches) {
    const std::string why = "its run (job " + run + ") ended " + std::string(job_state_name(parent)) +
                            " before writing its checkpoint at step " + std::to_string(step) +
                            ": retry the run (gammalab retry " + run + ") and this branch waits for it again";
    transition(id, JobState::kPending, JobState::kCancelled,
               {{"orphaned = 1"}, {"finished_ms = ?", now_ms()}, {"error = ?", why}},
               {job_event_kind::kCancelled, why, 0, -1});
  }
}

void Store::restore_orphaned_branches(std::int64_t parent_id) {
  sql::Statement& orphaned = statements_.get(
      "SELECT id FROM jobs WHERE parent_id = ? AND state = ? AND orphaned = 1 ORDER BY id");
  orphaned.bind(1, parent_id).bind(2, job_state_name(JobState::kCancelled));
  std::vector<std::int64_t> branches;
  while (orphaned.step()) branches.push_back(orphaned.int64(0));
  const std::string why = "its run (job " + std::to_string(parent_id) + ") was retried";
  for (const std::int64_t id : branches) {
    transition(id, JobState::kCancelled, JobState::kPending, {{"orphaned = 0"}, {"finished_ms = NULL"}, {"error = ''"}},
               {job_event_kind::kRetried, why, 0, -1});
  }
}

void Store::advance_lease_turn(std::int64_t sweep_id) {
  sql::Statement& turn = statements_.get(
      "UPDATE sweeps SET lease_turn = (SELECT COALESCE(MAX(lease_turn), 0) + 1 FROM sweeps) "
      "WHERE id = ?");
  turn.bind(1, sweep_id).run();
}

bool Store::start(const std::string& worker_id, const std::string& job_id, int attempt,
                  const std::string& rendezvous) {
  absl::MutexLock lock(&mutex_);
  const std::int64_t id = parse_id(job_id), wid = parse_id(worker_id);
  sql::Transaction tx(db_);
  sql::Statement& held = statements_.get("SELECT state FROM jobs WHERE id = ? AND worker_id = ? AND attempt = ? "
                                         "AND state IN (" + sql_active_states() + ")");
  if (!held.bind(1, id).bind(2, wid).bind(3, attempt).step()) {
    // A gang's other member: its ranks started; the job's state is node 0's to change.
    return gang_node(id, wid, attempt).has_value();
  }
  const JobState from = read_state(held, 0);
  held.reset();
  if (!rendezvous.empty()) {
    sql::Statement& host = statements_.get(
        "UPDATE gang_members SET rendezvous = ? WHERE job_id = ? AND node = 0 AND worker_id = ? AND attempt = ?");
    host.bind(1, rendezvous).bind(2, id).bind(3, wid).bind(4, attempt).run();  // the others' leases can go out
  }
  if (from == JobState::kRunning) {
    tx.commit();  // a repeated report: already running
    return true;
  }
  transition(id, from, JobState::kRunning, {}, {job_event_kind::kStarted, "", attempt, wid});
  tx.commit();
  changed();
  return true;
}

bool Store::finish(const std::string& worker_id, const std::string& job_id, int attempt, AttemptEnd end,
                   const std::string& error) {
  absl::MutexLock lock(&mutex_);
  const std::int64_t now = now_ms(), id = parse_id(job_id), wid = parse_id(worker_id);
  sql::Transaction tx(db_);
  sql::Statement& held = statements_.get(
      "SELECT state, attempt, max_attempts, cancel_requested, worker_id, hand_backs, parent_id IS NOT NULL FROM jobs "
      "WHERE id = ? AND attempt = ? AND state IN (" + sql_active_states() + ")");
  held.bind(1, id).bind(2, attempt);
  if (!held.step()) return false;
  const JobState from = read_state(held, 0);
  const bool retries_left = held.int64(1) < held.int64(2), cancel_requested = held.int64(3) != 0;
  const std::int64_t holder = held.is_null(4) ? -1 : held.int64(4);
  const std::int64_t hand_backs = held.int64(5);
  const bool is_branch = held.int64(6) != 0;
  held.reset();
  std::string why = error;
  if (holder != wid) {
    // Not the attempt's holder: a member of its gang, or a stale report.
    const std::optional<int> node = gang_node(id, wid, attempt);
    if (!node) return false;
    if (end == AttemptEnd::kSucceeded) {
      // Its ranks ended with the others'; node 0's report ends the attempt.
      sql::Statement& leave = statements_.get("DELETE FROM gang_members WHERE job_id = ? AND worker_id = ?");
      leave.bind(1, id).bind(2, wid).run();
      tx.commit();
      return true;
    }
    why = "node " + std::to_string(*node) + " (worker " + worker_id + "): " + error;
  }
  // Counted before `end` may become kFailedPermanently below: the failing fault is a fault too.
  const bool worker_faults_counted = end == AttemptEnd::kWorkerFault;
  // A fault the worker's own environment may have caused: the job is never offered to that worker again and is
  // tried elsewhere, and the worker is paused (its other jobs go elsewhere too). The job fails once
  // kMaxWorkerFaults distinct workers failed it alike, or when no worker is left to try it on (live, not
  // draining, not paused, not one it failed on): then this worker is not paused, so a one-worker cluster fails a
  // job with missing data at once, as it should, and goes on.
  if (end == AttemptEnd::kWorkerFault) {
    sql::Statement& mark = statements_.get("INSERT OR IGNORE INTO job_worker_faults(job_id, worker_id) VALUES (?, ?)");
    mark.bind(1, id).bind(2, wid).run();
    sql::Statement& failed_on = statements_.get("SELECT COUNT(*) FROM job_worker_faults WHERE job_id = ?");
    failed_on.bind(1, id);
    const std::int64_t workers_failed = failed_on.step() ? failed_on.int64(0) : 0;
    failed_on.reset();
    sql::Statement& others = statements_.get(
        "SELECT COUNT(*) FROM workers w WHERE w.id != ? AND w.draining = 0 AND w.paused_until_ms <= ? AND "
        "w.heartbeat_ms >= ? AND NOT EXISTS (SELECT 1 FROM job_worker_faults f WHERE f.job_id = ? AND "
        "f.worker_id = w.id)");
    others.bind(1, wid).bind(2, now).bind(3, now - kLiveWorkerMs).bind(4, id);
    const std::int64_t elsewhere = others.step() ? others.int64(0) : 0;
    others.reset();
    if (workers_failed >= kMaxWorkerFaults) {
      end = AttemptEnd::kFailedPermanently;
      why = "failed alike on " + std::to_string(workers_failed) + " workers, so the job is at fault: " + why;
    } else if (elsewhere == 0) {
      end = AttemptEnd::kFailedPermanently;
      why = "no other worker to try it on: " + why;
    } else {
      sql::Statement& pause = statements_.get("UPDATE workers SET paused_until_ms = ?, pause_reason = ? WHERE id = ?");
      pause.bind(1, now + kWorkerFaultPauseMs).bind(2, utf8_head(why, 1024)).bind(3, wid).run();
      spdlog::warn("worker {} paused for {} s: job {} failed there in a way its environment may cause: {}", worker_id,
                   kWorkerFaultPauseMs / 1000, job_id, utf8_head(why, 200));
    }
  }
  // A job handed back over and over (a buggy worker, a trainer that keeps exiting 75) ends by its attempts.
  if (end == AttemptEnd::kHandedBack && hand_backs + 1 > kMaxHandBacks) {
    end = AttemptEnd::kFailed;
    why = "handed back " + std::to_string(hand_backs + 1) + " times (more than " + std::to_string(kMaxHandBacks) +
          "): this one uses an attempt";
  }
  const JobState to = state_after_attempt(end, cancel_requested, retries_left);
  // A branch's failed attempt is retried after a back-off: what fails a branch fast (its start checkpoint not
  // yet seen whole on a shared filesystem that lags, a worker that cannot read it) would use up its attempts
  // in seconds.
  std::int64_t not_before = 0;
  if (is_branch && end == AttemptEnd::kFailed && to == JobState::kPending) {
    not_before = now + std::min(kMaxBranchRetryBackoffMs, kBranchRetryBackoffMs << std::min(attempt - 1, 20));
    why += " (the next attempt starts in " + std::to_string((not_before - now) / 1000) + " s at the earliest)";
  }
  // A drained worker's hand-back, or a worker's fault, does not use up an attempt.
  const bool spares_attempt = end == AttemptEnd::kHandedBack || end == AttemptEnd::kWorkerFault;
  const std::int64_t attempt_change = spares_attempt ? -1 : 0;
  const bool done = is_terminal(to);
  ColumnWrite finished{"finished_ms = ?", nullptr};
  if (done) finished.value = now;
  transition(id, from, to,
             {{"attempt = attempt + ?", attempt_change},
              {"error = ?", why},
              {"worker_faults = worker_faults + ?", std::int64_t{worker_faults_counted ? 1 : 0}},
              {"hand_backs = hand_backs + ?", std::int64_t{end == AttemptEnd::kHandedBack ? 1 : 0}},
              {"not_before_ms = ?", not_before},
              {done ? "worker_id = worker_id" : "worker_id = NULL"},  // an ended job names its last worker
              {"lease_expires_ms = NULL"},
              finished},
             {finish_event_kind(end, to), to == JobState::kCancelled && error.empty() ? "cancelled by user" : why,
              attempt, wid});
  end_gang(id);
  if (to == JobState::kSucceeded) release_branches(id);
  if (to == JobState::kFailed || to == JobState::kCancelled) end_orphaned_branches(id, to);
  tx.commit();
  changed();
  return true;
}

int Store::grant_lease_grace(std::int64_t grace_ms) {
  absl::MutexLock lock(&mutex_);
  const std::int64_t until = now_ms() + grace_ms;
  sql::Transaction tx(db_);
  sql::Statement& s = statements_.get("UPDATE jobs SET lease_expires_ms = MAX(lease_expires_ms, ?) WHERE state IN (" +
                                      sql_active_states() + ") AND lease_expires_ms IS NOT NULL");
  s.bind(1, until).run();
  const int extended = static_cast<int>(db_.changes());
  // A gang's places too: its members reconnect with the same grace (gangs.cpp).
  sql::Statement& places = statements_.get("UPDATE gang_members SET expires_ms = MAX(expires_ms, ?)");
  places.bind(1, until).run();
  tx.commit();
  if (extended > 0) changed();
  return extended;
}

int Store::expire_leases() {
  absl::MutexLock lock(&mutex_);
  const std::int64_t now = now_ms();
  sql::Transaction tx(db_);
  sql::Statement& expired = statements_.get(
      "SELECT id, state, attempt, max_attempts, cancel_requested, worker_id FROM jobs "
      "WHERE state IN (" + sql_active_states() + ") AND (lease_expires_ms < ?1 OR EXISTS (SELECT 1 FROM gang_members g "
      "WHERE g.job_id = jobs.id AND g.attempt = jobs.attempt AND g.expires_ms < ?1))");
  struct Expired {
    std::int64_t id;
    JobState from;
    std::int64_t attempt, max_attempts;
    bool cancel_requested;
    std::int64_t worker_id;
  };
  std::vector<Expired> jobs;
  expired.bind(1, now);
  while (expired.step()) {
    jobs.push_back({expired.int64(0), read_state(expired, 1), expired.int64(2), expired.int64(3),
                    expired.int64(4) != 0, expired.is_null(5) ? -1 : expired.int64(5)});
  }
  for (const Expired& job : jobs) {
    const JobState to =
        state_after_attempt(AttemptEnd::kLeaseExpired, job.cancel_requested, job.attempt < job.max_attempts);
    const std::string why = "lease expired on attempt " + std::to_string(job.attempt) + " of " +
                            std::to_string(job.max_attempts) + " (worker lost)";
    const std::string cancelled = "cancelled by user (worker lost)";
    // The error a pending job keeps is its last attempt's (a retry's reason stays until the next ends).
    ColumnWrite error{"error = COALESCE(?, error)", nullptr};
    if (to == JobState::kCancelled) error.value = cancelled;
    if (to == JobState::kFailed) error.value = why;
    ColumnWrite finished{"finished_ms = ?", nullptr};
    if (is_terminal(to)) finished.value = now;
    transition(job.id, job.from, to, {error, finished, {"worker_id = NULL"}, {"lease_expires_ms = NULL"}},
               {job_event_kind::kLeaseExpired, to == JobState::kCancelled ? cancelled : why, job.attempt,
                job.worker_id});
    end_gang(job.id);
    // With its event, in the same transaction: an attempt lost with its worker is an alert (core/alert.h).
    Alert lost;
    lost.job_id = std::to_string(job.id);
    lost.attempt = static_cast<int>(job.attempt);
    lost.rule = alert_rule::kWorkerLost;
    lost.message = (job.worker_id >= 0 ? "worker " + std::to_string(job.worker_id) + " stopped heartbeating: " : "") + why +
                   (to == JobState::kPending ? "; the job is queued again" : "");
    raise_alert_locked(lost);
    if (is_terminal(to)) end_orphaned_branches(job.id, to);
  }
  tx.commit();
  if (!jobs.empty()) changed();
  return static_cast<int>(jobs.size());
}

}  // namespace gammalab
