#include "server/store.h"

#include <google/protobuf/util/time_util.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "server/schema.h"

namespace gammalab {

namespace {

using google::protobuf::util::TimeUtil;

constexpr const char* kJobColumns =
    "j.id, j.sweep_id, j.name, j.config_hash, j.config_json, j.state, j.attempt, j.max_attempts, j.worker_id, "
    "j.step, j.total_steps, j.tokens, j.last_loss, j.tokens_per_s, j.created_ms, j.started_ms, j.finished_ms, "
    "j.error, j.priority, j.reused_from";

constexpr const char* kSweepColumns =
    "s.id, s.name, s.priority, s.max_attempts, s.created_ms, s.source_yaml, s.file_name";

google::protobuf::Timestamp timestamp(std::int64_t ms) { return TimeUtil::MillisecondsToTimestamp(ms); }

std::int64_t parse_id(const std::string& id) {
  if (id.empty() || id.size() > 18 || id.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoll(id);
}

bool finished_state(const std::string& s) { return s == "succeeded" || s == "failed" || s == "cancelled"; }

}  // namespace

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string state_name(v1::JobState state) {
  switch (state) {
    case v1::JOB_STATE_PENDING:
      return "pending";
    case v1::JOB_STATE_LEASED:
      return "leased";
    case v1::JOB_STATE_RUNNING:
      return "running";
    case v1::JOB_STATE_SUCCEEDED:
      return "succeeded";
    case v1::JOB_STATE_FAILED:
      return "failed";
    case v1::JOB_STATE_CANCELLED:
      return "cancelled";
    default:
      return "unspecified";
  }
}

v1::JobState parse_state(const std::string& name) {
  for (int s = v1::JOB_STATE_PENDING; s <= v1::JOB_STATE_CANCELLED; ++s) {
    if (state_name(static_cast<v1::JobState>(s)) == name) return static_cast<v1::JobState>(s);
  }
  return v1::JOB_STATE_UNSPECIFIED;
}

Store::Store(const std::string& path) : db_(path), statements_(db_) { migrate(db_); }
Store::~Store() = default;

void Store::changed() {
  ++version_;
  change_cv_.notify_all();
}

std::uint64_t Store::version() {
  std::lock_guard lock(mutex_);
  return version_;
}

std::uint64_t Store::wait_for_change(std::uint64_t seen, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  change_cv_.wait_for(lock, timeout, [&] { return version_ != seen; });
  return version_;
}

v1::Job Store::read_job(sql::Statement& s) {
  v1::Job j;
  j.set_id(std::to_string(s.int64(0)));
  j.set_sweep_id(std::to_string(s.int64(1)));
  j.set_name(s.text(2));
  j.set_config_hash(s.text(3));
  j.set_config_json(s.text(4));
  j.set_state(parse_state(s.text(5)));
  j.set_attempt(static_cast<int>(s.int64(6)));
  j.set_max_attempts(static_cast<int>(s.int64(7)));
  if (!s.is_null(8)) j.set_worker_id(std::to_string(s.int64(8)));
  j.set_step(s.int64(9));
  j.set_total_steps(s.int64(10));
  j.set_tokens(s.int64(11));
  if (auto loss = s.optional_real(12)) {
    j.set_last_loss(*loss);
    j.set_has_loss(true);
  }
  j.set_tokens_per_s(s.optional_real(13).value_or(0.0));
  *j.mutable_created_at() = timestamp(s.int64(14));
  if (!s.is_null(15)) *j.mutable_started_at() = timestamp(s.int64(15));
  if (!s.is_null(16)) *j.mutable_finished_at() = timestamp(s.int64(16));
  j.set_error(s.text(17));
  j.set_priority(static_cast<int>(s.int64(18)));
  if (!s.is_null(19)) j.set_reused_from(std::to_string(s.int64(19)));
  return j;
}

v1::Sweep Store::read_sweep(sql::Statement& s) {
  v1::Sweep sw;
  sw.set_id(std::to_string(s.int64(0)));
  sw.set_name(s.text(1));
  sw.set_priority(static_cast<int>(s.int64(2)));
  sw.set_max_attempts(static_cast<int>(s.int64(3)));
  *sw.mutable_created_at() = timestamp(s.int64(4));
  sw.set_source_yaml(s.text(5));
  sw.set_file_name(s.text(6));
  sql::Statement& counts = statements_.get("SELECT state, COUNT(*) FROM jobs WHERE sweep_id = ? GROUP BY state");
  counts.bind(1, s.int64(0));
  int total = 0;
  bool finished = true;
  while (counts.step()) {
    const std::string state = counts.text(0);
    const int n = static_cast<int>(counts.int64(1));
    (*sw.mutable_job_counts())[state] = n;
    total += n;
    if (!finished_state(state)) finished = false;
  }
  sw.set_total_jobs(total);
  sw.set_finished(finished);
  return sw;
}

SubmitResult Store::create_sweep(const Sweep& sweep, const std::string& yaml, const std::string& file_name,
                                 bool rerun) {
  std::lock_guard lock(mutex_);
  const std::int64_t now = now_ms();
  SubmitResult result;
  std::int64_t sweep_id = 0;
  {
    sql::Transaction tx(db_);
    sql::Statement& insert_sweep = statements_.get(
        "INSERT INTO sweeps(name, file_name, source_yaml, priority, max_attempts, created_ms) "
        "VALUES (?, ?, ?, ?, ?, ?)");
    insert_sweep.bind(1, sweep.name).bind(2, file_name).bind(3, yaml).bind(4, sweep.priority);
    insert_sweep.bind(5, sweep.max_attempts).bind(6, now).run();
    sweep_id = db_.last_insert_id();

    sql::Statement& find_done = statements_.get(
        "SELECT id, step, tokens, last_loss, total_steps FROM jobs "
        "WHERE config_hash = ? AND state = 'succeeded' ORDER BY id LIMIT 1");
    sql::Statement insert_job(
        db_.handle(),
        "INSERT INTO jobs(sweep_id, ordinal, name, config_hash, config_json, state, max_attempts, priority, "
        "total_steps, created_ms, step, tokens, last_loss, finished_ms, reused_from) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    sql::Statement& copy_metrics = statements_.get(
        "INSERT INTO metrics(job_id, name_id, step, tokens, value) "
        "SELECT ?, name_id, step, tokens, value FROM metrics WHERE job_id = ?");
    int ordinal = 0;
    for (const SweepJob& job : sweep.jobs) {
      insert_job.bind(1, sweep_id).bind(2, ordinal++).bind(3, job.name).bind(4, job.config_hash);
      insert_job.bind(5, to_json(job.config).dump()).bind(7, sweep.max_attempts).bind(8, sweep.priority);
      insert_job.bind(9, job.config.steps).bind(10, now);
      std::int64_t reused = -1;
      if (!rerun && find_done.bind(1, job.config_hash).step()) {
        reused = find_done.int64(0);
        insert_job.bind(6, "succeeded").bind(11, find_done.int64(1)).bind(12, find_done.int64(2));
        if (auto loss = find_done.optional_real(3)) insert_job.bind(13, *loss);
        insert_job.bind(14, now).bind(15, reused);
        find_done.reset();
      } else {
        insert_job.bind(6, "pending").bind(11, std::int64_t{0}).bind(12, std::int64_t{0});
      }
      insert_job.run();
      if (reused >= 0) {
        copy_metrics.bind(1, db_.last_insert_id()).bind(2, reused).run();
        ++result.jobs_reused;
      } else {
        ++result.jobs_created;
      }
    }
    tx.commit();
  }
  sql::Statement& read = statements_.get(std::string("SELECT ") + kSweepColumns + " FROM sweeps s WHERE s.id = ?");
  read.bind(1, sweep_id);
  if (read.step()) result.sweep = read_sweep(read);
  read.reset();
  changed();
  return result;
}

std::vector<v1::Sweep> Store::list_sweeps() {
  std::lock_guard lock(mutex_);
  std::vector<v1::Sweep> out;
  sql::Statement& s = statements_.get(std::string("SELECT ") + kSweepColumns + " FROM sweeps s ORDER BY s.id");
  while (s.step()) out.push_back(read_sweep(s));
  return out;
}

std::optional<v1::Sweep> Store::find_sweep(const std::string& id_or_name) {
  std::lock_guard lock(mutex_);
  sql::Statement& s = statements_.get(std::string("SELECT ") + kSweepColumns +
                                      " FROM sweeps s WHERE s.id = ? OR s.name = ? ORDER BY (s.id = ?) DESC, s.id DESC "
                                      "LIMIT 1");
  const std::int64_t id = parse_id(id_or_name);
  s.bind(1, id).bind(2, id_or_name).bind(3, id);
  std::optional<v1::Sweep> out;
  if (s.step()) out = read_sweep(s);
  s.reset();
  return out;
}

std::vector<v1::Job> Store::list_jobs(const std::string& sweep_id, const std::vector<v1::JobState>& states) {
  std::lock_guard lock(mutex_);
  std::vector<v1::Job> out;
  sql::Statement& s =
      statements_.get(std::string("SELECT ") + kJobColumns + " FROM jobs j WHERE j.sweep_id = ? ORDER BY j.ordinal");
  s.bind(1, parse_id(sweep_id));
  while (s.step()) {
    v1::Job job = read_job(s);
    if (states.empty() || std::find(states.begin(), states.end(), job.state()) != states.end()) out.push_back(job);
  }
  return out;
}

std::optional<v1::Job> Store::find_job(const std::string& id_or_path) {
  std::lock_guard lock(mutex_);
  std::optional<v1::Job> out;
  if (std::int64_t id = parse_id(id_or_path); id >= 0) {
    sql::Statement& s = statements_.get(std::string("SELECT ") + kJobColumns + " FROM jobs j WHERE j.id = ?");
    s.bind(1, id);
    if (s.step()) out = read_job(s);
    s.reset();
    return out;
  }
  // SWEEP/JOB-NAME, where SWEEP is an id or a name (the newest sweep of that name).
  const auto slash = id_or_path.find('/');
  if (slash == std::string::npos) return out;
  const std::string sweep = id_or_path.substr(0, slash), name = id_or_path.substr(slash + 1);
  sql::Statement& s = statements_.get(std::string("SELECT ") + kJobColumns +
                                      " FROM jobs j JOIN sweeps s ON s.id = j.sweep_id "
                                      "WHERE (s.id = ? OR s.name = ?) AND j.name = ? ORDER BY s.id DESC LIMIT 1");
  s.bind(1, parse_id(sweep)).bind(2, sweep).bind(3, name);
  if (s.step()) out = read_job(s);
  s.reset();
  return out;
}

int Store::cancel(const std::string& sweep_id, const std::vector<std::string>& job_ids) {
  std::lock_guard lock(mutex_);
  const std::int64_t now = now_ms();
  int cancelled = 0;
  sql::Transaction tx(db_);
  sql::Statement& pending = statements_.get(
      "UPDATE jobs SET state = 'cancelled', finished_ms = ?, error = 'cancelled by user' "
      "WHERE sweep_id = ? AND state = 'pending' AND (? = -1 OR id = ?)");
  sql::Statement& active = statements_.get(
      "UPDATE jobs SET cancel_requested = 1 "
      "WHERE sweep_id = ? AND state IN ('leased', 'running') AND (? = -1 OR id = ?)");
  std::vector<std::int64_t> ids;
  for (const auto& id : job_ids) ids.push_back(parse_id(id));
  if (ids.empty()) ids.push_back(-1);
  for (std::int64_t id : ids) {
    pending.bind(1, now).bind(2, parse_id(sweep_id)).bind(3, id).bind(4, id).run();
    cancelled += static_cast<int>(db_.changes());
    active.bind(1, parse_id(sweep_id)).bind(2, id).bind(3, id).run();
    cancelled += static_cast<int>(db_.changes());
  }
  tx.commit();
  changed();
  return cancelled;
}

std::optional<v1::Job> Store::retry(const std::string& job_id) {
  {
    std::lock_guard lock(mutex_);
    sql::Statement& s = statements_.get(
        "UPDATE jobs SET state = 'pending', attempt = 0, error = '', cancel_requested = 0, "
        "worker_id = NULL, lease_expires_ms = NULL, finished_ms = NULL "
        "WHERE id = ? AND state IN ('failed', 'cancelled')");
    s.bind(1, parse_id(job_id)).run();
    if (db_.changes() == 0) return std::nullopt;
    changed();
  }
  return find_job(job_id);
}

std::string Store::register_worker(const std::string& hostname, int slots, const std::vector<std::string>& gpus,
                                   const std::string& requested_id) {
  std::lock_guard lock(mutex_);
  const std::int64_t now = now_ms();
  std::string gpu_list;
  for (const auto& g : gpus) gpu_list += (gpu_list.empty() ? "" : ",") + g;
  sql::Transaction tx(db_);
  std::int64_t id = parse_id(requested_id);
  if (id >= 0) {
    // Re-registration after a coordinator restart or a network loss keeps the worker's id (and its leases).
    sql::Statement& upsert = statements_.get(
        "INSERT INTO workers(id, hostname, slots, gpus, registered_ms, heartbeat_ms) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET hostname = excluded.hostname, "
        "slots = excluded.slots, gpus = excluded.gpus, heartbeat_ms = excluded.heartbeat_ms, "
        "draining = 0");
    upsert.bind(1, id).bind(2, hostname).bind(3, slots).bind(4, gpu_list).bind(5, now).bind(6, now).run();
  } else {
    sql::Statement& insert = statements_.get(
        "INSERT INTO workers(hostname, slots, gpus, registered_ms, heartbeat_ms) "
        "VALUES (?, ?, ?, ?, ?)");
    insert.bind(1, hostname).bind(2, slots).bind(3, gpu_list).bind(4, now).bind(5, now).run();
    id = db_.last_insert_id();
  }
  tx.commit();
  changed();
  return std::to_string(id);
}

HeartbeatResult Store::heartbeat(const std::string& worker_id, const std::vector<std::pair<std::string, int>>& running,
                                 bool draining, std::int64_t lease_timeout_ms) {
  std::lock_guard lock(mutex_);
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
  sql::Statement& renew = statements_.get(
      "UPDATE jobs SET lease_expires_ms = ? WHERE id = ? AND worker_id = ? AND attempt = ? "
      "AND state IN ('leased', 'running') RETURNING cancel_requested");
  for (const auto& [job_id, attempt] : running) {
    renew.bind(1, now + lease_timeout_ms).bind(2, parse_id(job_id)).bind(3, wid).bind(4, attempt);
    if (renew.step()) {
      if (renew.int64(0) != 0) result.cancel_job_ids.push_back(job_id);
      renew.reset();
    } else {
      result.lost_job_ids.push_back(job_id);
    }
  }
  tx.commit();
  return result;
}

std::optional<Lease> Store::lease(const std::string& worker_id, std::int64_t lease_timeout_ms) {
  std::lock_guard lock(mutex_);
  const std::int64_t now = now_ms(), wid = parse_id(worker_id);
  sql::Transaction tx(db_);
  sql::Statement& worker = statements_.get("SELECT draining FROM workers WHERE id = ?");
  worker.bind(1, wid);
  if (!worker.step() || worker.int64(0) != 0) return std::nullopt;  // unknown or draining: no new work
  worker.reset();
  // First the sweep (a small table): highest priority, then the one served longest ago (round robin).
  // Then its first pending job by the (sweep_id, state, ordinal) index. No sort over all pending jobs.
  sql::Statement& pick_sweep = statements_.get(
      "SELECT s.id FROM sweeps s WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.sweep_id = s.id "
      "AND j.state = 'pending') ORDER BY s.priority DESC, s.lease_turn, s.id LIMIT 1");
  if (!pick_sweep.step()) return std::nullopt;
  const std::int64_t sweep_id = pick_sweep.int64(0);
  pick_sweep.reset();
  sql::Statement& pick =
      statements_.get("SELECT id FROM jobs WHERE sweep_id = ? AND state = 'pending' ORDER BY ordinal LIMIT 1");
  pick.bind(1, sweep_id);
  if (!pick.step()) return std::nullopt;
  const std::int64_t job_id = pick.int64(0);
  pick.reset();
  sql::Statement& take = statements_.get(
      "UPDATE jobs SET state = 'leased', attempt = attempt + 1, worker_id = ?, lease_expires_ms = ?, "
      "started_ms = COALESCE(started_ms, ?) WHERE id = ? AND state = 'pending'");
  take.bind(1, wid).bind(2, now + lease_timeout_ms).bind(3, now).bind(4, job_id).run();
  // Round robin: this sweep goes to the back of the queue among sweeps of its priority.
  sql::Statement& turn = statements_.get(
      "UPDATE sweeps SET lease_turn = (SELECT COALESCE(MAX(lease_turn), 0) + 1 FROM sweeps) "
      "WHERE id = ?");
  turn.bind(1, sweep_id).run();
  sql::Statement& read = statements_.get(std::string("SELECT ") + kJobColumns + " FROM jobs j WHERE j.id = ?");
  read.bind(1, job_id);
  Lease lease;
  if (read.step()) lease.job = read_job(read);
  read.reset();
  lease.attempt = lease.job.attempt();
  tx.commit();
  changed();
  return lease;
}

bool Store::finish(const std::string& worker_id, const std::string& job_id, int attempt, v1::JobOutcome outcome,
                   const std::string& error) {
  std::lock_guard lock(mutex_);
  const std::int64_t now = now_ms();
  sql::Transaction tx(db_);
  sql::Statement& held = statements_.get(
      "SELECT attempt, max_attempts, cancel_requested FROM jobs WHERE id = ? AND worker_id = ? "
      "AND attempt = ? AND state IN ('leased', 'running')");
  held.bind(1, parse_id(job_id)).bind(2, parse_id(worker_id)).bind(3, attempt);
  if (!held.step()) return false;
  const bool retries_left = held.int64(0) < held.int64(1), cancel_requested = held.int64(2) != 0;
  held.reset();
  std::string state;
  std::int64_t attempt_change = 0;
  switch (outcome) {
    case v1::JOB_OUTCOME_SUCCEEDED:
      state = "succeeded";
      break;
    case v1::JOB_OUTCOME_CANCELLED:
      state = "cancelled";
      break;
    case v1::JOB_OUTCOME_HANDED_BACK:
      state = cancel_requested ? "cancelled" : "pending";
      attempt_change = -1;  // a drained worker's hand-back does not use up an attempt
      break;
    default:
      state = cancel_requested ? "cancelled" : (retries_left ? "pending" : "failed");
      break;
  }
  const bool done = finished_state(state);
  sql::Statement& update = statements_.get(
      "UPDATE jobs SET state = ?, attempt = attempt + ?, error = ?, "
      "worker_id = CASE WHEN ? THEN worker_id ELSE NULL END, lease_expires_ms = NULL, "
      "finished_ms = CASE WHEN ? THEN ? ELSE NULL END WHERE id = ?");
  update.bind(1, state).bind(2, attempt_change).bind(3, error).bind(4, done ? 1 : 0).bind(5, done ? 1 : 0);
  update.bind(6, now).bind(7, parse_id(job_id)).run();
  tx.commit();
  changed();
  return true;
}

int Store::expire_leases() {
  std::lock_guard lock(mutex_);
  const std::int64_t now = now_ms();
  sql::Transaction tx(db_);
  sql::Statement expire(
      db_.handle(),
      "UPDATE jobs SET "
      "state = CASE WHEN cancel_requested THEN 'cancelled' WHEN attempt >= max_attempts THEN 'failed' "
      "ELSE 'pending' END, "
      "error = CASE WHEN cancel_requested THEN 'cancelled by user (worker lost)' "
      "WHEN attempt >= max_attempts THEN 'lease expired on attempt ' || attempt || ' of ' || max_attempts "
      "|| ' (worker lost)' ELSE error END, "
      "finished_ms = CASE WHEN cancel_requested OR attempt >= max_attempts THEN ? ELSE NULL END, "
      "worker_id = NULL, lease_expires_ms = NULL "
      "WHERE state IN ('leased', 'running') AND lease_expires_ms < ?");
  expire.bind(1, now).bind(2, now).run();
  const int n = static_cast<int>(db_.changes());
  tx.commit();
  if (n > 0) changed();
  return n;
}

std::vector<v1::Worker> Store::list_workers(std::int64_t worker_timeout_ms) {
  std::lock_guard lock(mutex_);
  const std::int64_t now = now_ms();
  std::vector<v1::Worker> out;
  sql::Statement& s = statements_.get(
      "SELECT id, hostname, slots, gpus, registered_ms, heartbeat_ms, draining FROM workers ORDER BY id");
  sql::Statement& jobs = statements_.get("SELECT id FROM jobs WHERE worker_id = ? AND state IN ('leased', 'running')");
  while (s.step()) {
    v1::Worker w;
    w.set_id(std::to_string(s.int64(0)));
    w.set_hostname(s.text(1));
    w.set_slots(static_cast<int>(s.int64(2)));
    const std::string gpus = s.text(3);
    for (std::size_t start = 0; start < gpus.size();) {
      std::size_t comma = gpus.find(',', start);
      if (comma == std::string::npos) comma = gpus.size();
      w.add_gpus(gpus.substr(start, comma - start));
      start = comma + 1;
    }
    *w.mutable_registered_at() = timestamp(s.int64(4));
    *w.mutable_last_heartbeat() = timestamp(s.int64(5));
    w.set_alive(now - s.int64(5) <= worker_timeout_ms);
    w.set_draining(s.int64(6) != 0);
    jobs.bind(1, s.int64(0));
    while (jobs.step()) w.add_running_job_ids(std::to_string(jobs.int64(0)));
    out.push_back(std::move(w));
  }
  return out;
}

std::int64_t Store::metric_name_id(const std::string& name) {
  if (auto it = name_ids_.find(name); it != name_ids_.end()) return it->second;
  sql::Statement& upsert = statements_.get(
      "INSERT INTO metric_names(name) VALUES (?) ON CONFLICT(name) DO UPDATE SET name = name "
      "RETURNING id");
  upsert.bind(1, name);
  if (!upsert.step()) throw sql::Error("metric name id for " + name);
  const std::int64_t id = upsert.int64(0);
  upsert.reset();
  name_ids_[name] = id;
  return id;
}

IngestResult Store::add_metrics(const std::string& job_id, int attempt, const std::vector<MetricPoint>& points) {
  std::lock_guard lock(mutex_);
  IngestResult result;
  result.received = static_cast<std::int64_t>(points.size());
  if (points.empty()) return result;
  const std::int64_t id = parse_id(job_id);
  // Name ids first, each committed on its own: a name row outlives a rolled-back batch harmlessly, and the
  // in-memory id cache never holds an id that does not exist.
  std::vector<std::int64_t> name_ids;
  name_ids.reserve(points.size());
  for (const MetricPoint& p : points) name_ids.push_back(metric_name_id(p.name));
  {
    sql::Transaction tx(db_);
    sql::Statement& insert = statements_.get(
        "INSERT INTO metrics(job_id, name_id, step, tokens, value) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT DO NOTHING");
    const MetricPoint* last_loss = nullptr;
    const MetricPoint* last_speed = nullptr;
    std::int64_t max_step = 0, max_tokens = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const MetricPoint& p = points[i];
      insert.bind(1, id).bind(2, name_ids[i]).bind(3, p.step).bind(4, p.tokens);
      if (std::isnan(p.value))
        insert.bind_null(5);
      else
        insert.bind(5, p.value);
      insert.run();
      result.stored += db_.changes();
      if (p.step >= max_step) {
        max_step = p.step;
        max_tokens = std::max(max_tokens, p.tokens);
      }
      if (p.name == "train/loss" && (!last_loss || p.step >= last_loss->step)) last_loss = &p;
      if (p.name == "tokens_per_s" && (!last_speed || p.step >= last_speed->step)) last_speed = &p;
    }
    // Progress is taken only from the attempt that holds the job, and never moves backwards.
    sql::Statement progress(db_.handle(),
                            "UPDATE jobs SET state = CASE WHEN state = 'leased' THEN 'running' ELSE state END, "
                            "step = MAX(step, ?), tokens = MAX(tokens, ?), "
                            "last_loss = CASE WHEN ? >= step THEN COALESCE(?, last_loss) ELSE last_loss END, "
                            "tokens_per_s = COALESCE(?, tokens_per_s) "
                            "WHERE id = ? AND attempt = ? AND state IN ('leased', 'running')");
    progress.bind(1, max_step).bind(2, max_tokens).bind(3, last_loss ? last_loss->step : -1);
    if (last_loss && std::isfinite(last_loss->value))
      progress.bind(4, last_loss->value);
    else
      progress.bind_null(4);
    if (last_speed)
      progress.bind(5, last_speed->value);
    else
      progress.bind_null(5);
    progress.bind(6, id).bind(7, attempt).run();
    tx.commit();
  }
  changed();
  return result;
}

std::vector<MetricPoint> Store::metrics(const std::string& job_id, const std::vector<std::string>& names,
                                        std::int64_t after_step) {
  std::lock_guard lock(mutex_);
  std::vector<MetricPoint> out;
  sql::Statement& s = statements_.get(
      "SELECT n.name, m.step, m.tokens, m.value FROM metrics m JOIN metric_names n ON n.id = m.name_id "
      "WHERE m.job_id = ? AND m.step > ? ORDER BY n.name, m.step");
  s.bind(1, parse_id(job_id)).bind(2, after_step);
  while (s.step()) {
    MetricPoint p;
    p.name = s.text(0);
    if (!names.empty() && std::find(names.begin(), names.end(), p.name) == names.end()) continue;
    p.step = s.int64(1);
    p.tokens = s.int64(2);
    p.value = s.optional_real(3).value_or(std::numeric_limits<double>::quiet_NaN());
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace gammalab

namespace gammalab {

std::vector<Store::FitInput> Store::fit_inputs(const std::string& sweep_id) {
  std::lock_guard lock(mutex_);
  std::vector<FitInput> out;
  sql::Statement& jobs = statements_.get(
      "SELECT id, name, config_json FROM jobs WHERE sweep_id = ? AND state = 'succeeded' ORDER BY ordinal");
  sql::Statement& points = statements_.get(
      "SELECT n.name, m.step, m.tokens, m.value FROM metrics m JOIN metric_names n ON n.id = m.name_id "
      "WHERE m.job_id = ? AND n.name IN ('val/loss', 'train/loss') ORDER BY m.step");
  jobs.bind(1, parse_id(sweep_id));
  while (jobs.step()) {
    FitInput input{std::to_string(jobs.int64(0)), jobs.text(1), jobs.text(2), {}, {}};
    points.bind(1, jobs.int64(0));
    while (points.step()) {
      MetricPoint p{points.int64(1), points.int64(2), points.text(0),
                    points.optional_real(3).value_or(std::numeric_limits<double>::quiet_NaN())};
      (p.name == "val/loss" ? input.val_loss : input.train_loss).push_back(std::move(p));
    }
    out.push_back(std::move(input));
  }
  return out;
}

std::map<std::string, std::vector<std::string>> Store::succeeded_jobs_by_sweep() {
  std::lock_guard lock(mutex_);
  std::map<std::string, std::vector<std::string>> out;
  sql::Statement& s = statements_.get("SELECT sweep_id, id FROM jobs WHERE state = 'succeeded' ORDER BY sweep_id, id");
  while (s.step()) out[std::to_string(s.int64(0))].push_back(std::to_string(s.int64(1)));
  return out;
}

int Store::add_fit(const std::string& sweep_id, const std::string& law, const std::string& group_by,
                   const std::vector<std::string>& job_ids, const std::string& report_json) {
  std::lock_guard lock(mutex_);
  sql::Transaction tx(db_);
  sql::Statement& insert = statements_.get(
      "INSERT INTO fits(sweep_id, version, created_ms, law, group_by, job_ids, report) "
      "VALUES (?1, (SELECT COALESCE(MAX(version), 0) + 1 FROM fits WHERE sweep_id = ?1), ?2, ?3, ?4, ?5, ?6) "
      "RETURNING version");
  insert.bind(1, parse_id(sweep_id)).bind(2, now_ms()).bind(3, law).bind(4, group_by);
  insert.bind(5, nlohmann::json(job_ids).dump()).bind(6, report_json);
  if (!insert.step()) throw sql::Error("add_fit: no version returned");
  const int version = static_cast<int>(insert.int64(0));
  insert.reset();
  tx.commit();
  changed();
  return version;
}

std::vector<v1::Fit> Store::fits(const std::string& sweep_id, bool latest_only) {
  std::lock_guard lock(mutex_);
  std::vector<v1::Fit> out;
  sql::Statement& s = statements_.get(
      "SELECT version, created_ms, law, group_by, job_ids, report FROM fits WHERE sweep_id = ? "
      "ORDER BY version DESC LIMIT ?");
  s.bind(1, parse_id(sweep_id)).bind(2, latest_only ? std::int64_t{1} : std::int64_t{-1});
  while (s.step()) {
    v1::Fit fit;
    fit.set_version(static_cast<int>(s.int64(0)));
    *fit.mutable_created_at() = timestamp(s.int64(1));
    fit.set_law(s.text(2));
    fit.set_group_by(s.text(3));
    for (const auto& id : nlohmann::json::parse(s.text(4))) fit.add_job_ids(id.get<std::string>());
    fit.set_report_json(s.text(5));
    out.push_back(std::move(fit));
  }
  return out;
}

}  // namespace gammalab
