// The database schema as numbered migrations, applied in order; jobs.state's CHECK lists core's state names.
#include "server/schema.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/uid.h"
#include "server/random_hex.h"

namespace gammalab {

namespace {

// The migrations in order. A migration, once released, never changes: a database records how far it got.
// (jobs.state's CHECK spells core's names: renaming a state needs a migration of its own.)
// A migration: its SQL, then (for data the SQL cannot compute) a step in C++ in the same transaction.
// A migration that rebuilds a table others refer to (SQLite cannot change a column's CHECK in place) runs
// with foreign keys off, as SQLite's own procedure for it says: dropping the old table would otherwise count
// every reference to it as a violation, and renaming would point the references at the old name. The
// references are checked before it commits.
struct Migration {
  Migration(std::string text, void (*step)(sql::Database&) = nullptr) : sql(std::move(text)), then(step) {}
  Migration(const char* text, void (*step)(sql::Database&) = nullptr) : Migration(std::string(text), step) {}
  static Migration rebuilding(const char* text) {
    Migration m(text);
    m.rebuilds_tables = true;
    return m;
  }
  std::string sql;
  void (*then)(sql::Database&);
  bool rebuilds_tables = false;
};

// Migration 10's tiles, from the points, as that version defined them (frozen here, not today's store code):
// per level l of 1..6 and tile of 8^l steps, the count and the first, last, lowest and highest point whole.
// Lowest and highest order a NaN (NULL) or an infinity above every finite value and take the earlier step
// among equals (core/metric_tiles.h, value_below, as it was then). Each of the four is the row numbered 1 in
// its order within the tile; the aggregate picks that row's columns (exactly one row gives each a value).
std::string tiles_from_points_v10() {
  std::string sql;
  for (int level = 1; level <= 6; ++level) {
    const std::string width = std::to_string(std::int64_t{1} << (3 * level));
    auto of = [](std::string_view rank) {
      std::string out;
      for (const char* column : {"step", "tokens", "value"}) {
        out.append(", MAX(CASE WHEN ").append(rank).append(" = 1 THEN ").append(column).append(" END)");
      }
      return out;
    };
    sql += absl::StrCat(
        "INSERT INTO metric_tiles(job_id, name_id, level, tile, points, first_step, first_tokens, first_value, "
        "last_step, last_tokens, last_value, low_step, low_tokens, low_value, high_step, high_tokens, high_value)\n"
        "SELECT job_id, name_id, ", level, ", tile, COUNT(*)", of("by_first"), of("by_last"), of("by_low"),
        of("by_high"),
        "\nFROM (SELECT job_id, name_id, step / ", width, " AS tile, step, tokens, value,\n"
        "  ROW_NUMBER() OVER (PARTITION BY job_id, name_id, step / ", width, " ORDER BY step) AS by_first,\n"
        "  ROW_NUMBER() OVER (PARTITION BY job_id, name_id, step / ", width, " ORDER BY step DESC) AS by_last,\n"
        "  ROW_NUMBER() OVER (PARTITION BY job_id, name_id, step / ", width,
        " ORDER BY odd, finite, step) AS by_low,\n"
        "  ROW_NUMBER() OVER (PARTITION BY job_id, name_id, step / ", width,
        " ORDER BY odd DESC, finite DESC, step) AS by_high\n"
        "  FROM (SELECT job_id, name_id, step, tokens, value, odd, CASE WHEN odd THEN 0 ELSE value END AS finite\n"
        "        FROM (SELECT *, (value IS NULL OR abs(value) > 1.7976931348623157e308) AS odd FROM metrics)))\n"
        "GROUP BY job_id, name_id, tile;\n");
  }
  return sql;
}

// Migration 17's C++ step: a uid for the database and for every job stored so far, then the index that keeps
// job uids unique (it could not be made before they were filled).
void fill_identities(sql::Database& db) {
  sql::Statement identity(db.handle(), "INSERT INTO database_identity(id, uid) VALUES (1, ?)");
  identity.bind(1, random_hex(kUidBytes)).run();
  std::vector<std::int64_t> ids;
  {
    sql::Statement jobs(db.handle(), "SELECT id FROM jobs");
    while (jobs.step()) ids.push_back(jobs.int64(0));
    jobs.reset();
  }
  sql::Statement set_uid(db.handle(), "UPDATE jobs SET uid = ? WHERE id = ?");
  for (const std::int64_t id : ids) set_uid.bind(1, random_hex(kUidBytes)).bind(2, id).run();
  db.exec("CREATE UNIQUE INDEX jobs_by_uid ON jobs(uid)");
}

const std::vector<Migration>& migrations() {
  static const std::vector<Migration> all = {
    // 1: sweeps, jobs (state machine with attempts and leases), workers, metric points.
    std::string(R"sql(
CREATE TABLE sweeps (
  id           INTEGER PRIMARY KEY,
  name         TEXT    NOT NULL,
  file_name    TEXT    NOT NULL,
  source_yaml  TEXT    NOT NULL,
  priority     INTEGER NOT NULL,
  max_attempts INTEGER NOT NULL,
  created_ms   INTEGER NOT NULL,
  lease_turn   INTEGER NOT NULL DEFAULT 0  -- round-robin among sweeps: the one served longest ago goes first
);
CREATE TABLE workers (
  id            INTEGER PRIMARY KEY,
  hostname      TEXT    NOT NULL,
  slots         INTEGER NOT NULL,
  gpus          TEXT    NOT NULL,
  registered_ms INTEGER NOT NULL,
  heartbeat_ms  INTEGER NOT NULL,
  draining      INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE jobs (
  id               INTEGER PRIMARY KEY,
  sweep_id         INTEGER NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
  ordinal          INTEGER NOT NULL,           -- position in the sweep's expansion
  name             TEXT    NOT NULL,
  config_hash      TEXT    NOT NULL,
  config_json      TEXT    NOT NULL,
)sql") + "  state            TEXT    NOT NULL CHECK (state IN (" + sql_states([](JobState) { return true; }) +
        R"sql()),
  attempt          INTEGER NOT NULL DEFAULT 0,
  max_attempts     INTEGER NOT NULL,
  priority         INTEGER NOT NULL,
  worker_id        INTEGER REFERENCES workers(id),
  lease_expires_ms INTEGER,
  cancel_requested INTEGER NOT NULL DEFAULT 0,
  step             INTEGER NOT NULL DEFAULT 0,
  total_steps      INTEGER NOT NULL,
  tokens           INTEGER NOT NULL DEFAULT 0,
  last_loss        REAL,
  tokens_per_s     REAL,
  created_ms       INTEGER NOT NULL,
  started_ms       INTEGER,
  finished_ms      INTEGER,
  error            TEXT    NOT NULL DEFAULT '',
  reused_from      INTEGER REFERENCES jobs(id),
  UNIQUE (sweep_id, name)
);
CREATE INDEX jobs_by_sweep_state ON jobs(sweep_id, state, ordinal);
CREATE INDEX jobs_by_state ON jobs(state);
CREATE INDEX jobs_by_hash ON jobs(config_hash, state);
CREATE INDEX jobs_by_worker ON jobs(worker_id, state);
CREATE TABLE metric_names (
  id   INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);
-- One row per (job, metric, step): resent or repeated points are ignored on insert, so ingest is idempotent.
CREATE TABLE metrics (
  job_id  INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  name_id INTEGER NOT NULL REFERENCES metric_names(id),
  step    INTEGER NOT NULL,
  tokens  INTEGER NOT NULL,
  value   REAL,                               -- NULL stands for NaN
  PRIMARY KEY (job_id, name_id, step)
) WITHOUT ROWID;
)sql",
    // 2: scaling-law fits of a sweep, versioned, with the jobs each one used.
    R"sql(
CREATE TABLE fits (
  id         INTEGER PRIMARY KEY,
  sweep_id   INTEGER NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
  version    INTEGER NOT NULL,
  created_ms INTEGER NOT NULL,
  law        TEXT    NOT NULL,
  group_by   TEXT    NOT NULL,
  job_ids    TEXT    NOT NULL,  -- JSON array of the job ids whose final losses went in
  report     TEXT    NOT NULL,  -- JSON FitReport (core/scaling/fit_report.h)
  UNIQUE (sweep_id, version)
);
)sql",
    // 3: one fit version holds one report per law (L(N) and, on the same runs, L(C) with the multipliers).
    R"sql(
CREATE TABLE fits_by_law (
  id         INTEGER PRIMARY KEY,
  sweep_id   INTEGER NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
  version    INTEGER NOT NULL,
  created_ms INTEGER NOT NULL,
  law        TEXT    NOT NULL,
  group_by   TEXT    NOT NULL,
  job_ids    TEXT    NOT NULL,
  report     TEXT    NOT NULL,
  UNIQUE (sweep_id, version, law)
);
INSERT INTO fits_by_law SELECT id, sweep_id, version, created_ms, law, group_by, job_ids, report FROM fits;
DROP TABLE fits;
ALTER TABLE fits_by_law RENAME TO fits;
)sql",
    // 4: tune stages (core/sweep/tune.h): jobs belong to the tune or the main stage of their sweep.
    R"sql(
ALTER TABLE jobs ADD COLUMN stage TEXT NOT NULL DEFAULT 'main' CHECK (stage IN ('tune', 'main'));
ALTER TABLE sweeps ADD COLUMN awaiting_main INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sweeps ADD COLUMN tune_report TEXT;  -- JSON TunePicks, once the tune stage ended
ALTER TABLE sweeps ADD COLUMN stage_error TEXT;  -- why the main stage was not added
)sql",
    // 5: access tokens (server/tokens.h), kept only as salted hashes, and the token each worker registered with.
    R"sql(
CREATE TABLE tokens (
  id         INTEGER PRIMARY KEY,
  name       TEXT    NOT NULL,
  role       TEXT    NOT NULL CHECK (role IN ('user', 'worker')),
  salt       TEXT    NOT NULL,  -- hex, the per-token key of the hash
  hash       TEXT    NOT NULL,  -- hex, keyed BLAKE2b of the token's secret part
  created_ms INTEGER NOT NULL,
  revoked_ms INTEGER
);
ALTER TABLE workers ADD COLUMN token_id INTEGER REFERENCES tokens(id);  -- NULL: registered without auth
)sql",
    // 6: metric tiles (server/store/metric_tiles.h): each metric's extremes per 8, 64, ..., 262,144 steps, from
    // which a chart's downsampled curve is read. It once built them here too; migration 10 replaces the table
    // and builds it, so a database older than 6 builds its tiles once, in the layout of today's code.
    {R"sql(
CREATE TABLE metric_tiles (
  job_id     INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  name_id    INTEGER NOT NULL REFERENCES metric_names(id),
  level      INTEGER NOT NULL,  -- 1..6: tile_steps(level) steps per tile
  tile       INTEGER NOT NULL,  -- step / tile_steps(level)
  points     INTEGER NOT NULL,
  first_step INTEGER NOT NULL,
  last_step  INTEGER NOT NULL,
  low_step   INTEGER NOT NULL,
  low_value  REAL,              -- NULL stands for NaN
  high_step  INTEGER NOT NULL,
  high_value REAL,
  PRIMARY KEY (job_id, name_id, level, tile)
) WITHOUT ROWID;
)sql"},  // (built from the points by migration 10, which replaces the table)
    // 7: a job's history: one row per change of its state (or a cancel asked of its worker), written in the
    // transaction of that change (server/store/job_events.h names the kinds).
    R"sql(
CREATE TABLE job_events (
  id        INTEGER PRIMARY KEY,
  job_id    INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  at_ms     INTEGER NOT NULL,
  kind      TEXT    NOT NULL,
  state     TEXT    NOT NULL,  -- the job's state after the event
  attempt   INTEGER NOT NULL,  -- the attempt it concerns (0: none yet)
  worker_id INTEGER,           -- the worker that held the attempt, if any
  detail    TEXT    NOT NULL DEFAULT ''  -- why: the error of a failed attempt, who cancelled, ...
);
CREATE INDEX job_events_by_job ON job_events(job_id, id);
)sql",
    // 8: a job takes `gpus` slots of one worker (its config's world_size, docs/distributed.md); jobs stored
    // before this read it from their config. The index finds a sweep's pending jobs that fit a worker.
    R"sql(
ALTER TABLE jobs ADD COLUMN gpus INTEGER NOT NULL DEFAULT 1 CHECK (gpus >= 1);
UPDATE jobs SET gpus = MAX(1, CAST(COALESCE(json_extract(config_json, '$.world_size'), 1) AS INTEGER));
CREATE INDEX jobs_by_sweep_state_gpus ON jobs(sweep_id, state, gpus);
)sql",
    // 9: a third token role, `metrics` (GET /metrics only), in the tokens table's CHECK: the table is rebuilt
    // with its rows; workers.token_id goes on naming `tokens`, the new table.
    Migration::rebuilding(R"sql(
CREATE TABLE tokens_9 (
  id         INTEGER PRIMARY KEY,
  name       TEXT    NOT NULL,
  role       TEXT    NOT NULL CHECK (role IN ('user', 'worker', 'metrics')),
  salt       TEXT    NOT NULL,  -- hex, the per-token key of the hash
  hash       TEXT    NOT NULL,  -- hex, keyed BLAKE2b of the token's secret part
  created_ms INTEGER NOT NULL,
  revoked_ms INTEGER
);
INSERT INTO tokens_9(id, name, role, salt, hash, created_ms, revoked_ms)
  SELECT id, name, role, salt, hash, created_ms, revoked_ms FROM tokens;
DROP TABLE tokens;
ALTER TABLE tokens_9 RENAME TO tokens;
)sql"),
    // 10: tiles keep their four points whole (tokens and value with each step), so that a downsampled curve is
    // read from tiles alone, without a lookup per kept point; rebuilt from the points.
    std::string(R"sql(
DROP TABLE metric_tiles;
CREATE TABLE metric_tiles (
  job_id       INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  name_id      INTEGER NOT NULL REFERENCES metric_names(id),
  level        INTEGER NOT NULL,  -- 1..6: tile_steps(level) steps per tile
  tile         INTEGER NOT NULL,  -- step / tile_steps(level)
  points       INTEGER NOT NULL,
  first_step   INTEGER NOT NULL,
  first_tokens INTEGER NOT NULL,
  first_value  REAL,              -- NULL stands for NaN
  last_step    INTEGER NOT NULL,
  last_tokens  INTEGER NOT NULL,
  last_value   REAL,
  low_step     INTEGER NOT NULL,
  low_tokens   INTEGER NOT NULL,
  low_value    REAL,
  high_step    INTEGER NOT NULL,
  high_tokens  INTEGER NOT NULL,
  high_value   REAL,
  PRIMARY KEY (job_id, name_id, level, tile)
) WITHOUT ROWID;
)sql") + tiles_from_points_v10(),
    // 11: a job may span several workers (`nodes`, docs/distributed.md): `gpus` becomes the slots it takes of each
    // (world_size / nodes), and gang_members holds the workers of a gang, while it forms (the job still pending,
    // `attempt` its next one) and while that attempt runs.
    R"sql(
ALTER TABLE jobs ADD COLUMN nodes INTEGER NOT NULL DEFAULT 1 CHECK (nodes >= 1);
UPDATE jobs SET nodes = MAX(1, CAST(COALESCE(json_extract(config_json, '$.nodes'), 1) AS INTEGER));
UPDATE jobs SET gpus = MAX(1, gpus / nodes);
CREATE TABLE gang_members (
  job_id     INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  node       INTEGER NOT NULL CHECK (node >= 0),  -- its index among the gang's workers; node 0 hosts the rendezvous
  worker_id  INTEGER NOT NULL,
  attempt    INTEGER NOT NULL,  -- the attempt the gang runs (while it forms: the job's next)
  joined_ms  INTEGER NOT NULL,
  expires_ms INTEGER NOT NULL,  -- its hold (renewed by the worker's lease requests) or lease (by its heartbeats)
  delivered  INTEGER NOT NULL DEFAULT 0,  -- the worker has been sent its lease
  rendezvous TEXT,              -- node 0: host:port of its trainer's store, once reported
  PRIMARY KEY (job_id, node)
) WITHOUT ROWID;
CREATE UNIQUE INDEX gang_members_by_worker ON gang_members(worker_id, job_id);
)sql",
    // 12: a lease takes its sweep's first pending job by ordinal that fits the worker. With an index on (sweep,
    // state, gpus) beside the one on (sweep, state, ordinal), SQLite's planner took the first, collected every
    // pending job of the sweep that fits and sorted them for each lease: a cost that grew with the queue (30,000
    // pending jobs: tens of ms). Without it, the (sweep_id, state, ordinal) index yields the jobs in order and
    // the first that fits ends the search, so a lease costs the same with 100 or 30,000 pending jobs
    // (bench/dispatch_ingest.cpp).
    R"sql(
DROP INDEX jobs_by_sweep_state_gpus;
)sql",
    // 13: cooldown branches (docs/branches.md). A branch names the run it starts from and the step of that run's
    // checkpoint; it waits (waiting = 1) until the run has reported that checkpoint written (its branch_point
    // metric) or finished. A run lists its branch points (comma-separated steps) for its trainer to keep. A lease
    // walks the jobs that are not waiting through a partial index, so a queue of waiting branches costs it
    // nothing (bench/dispatch_ingest.cpp).
    R"sql(
ALTER TABLE jobs ADD COLUMN parent_id INTEGER REFERENCES jobs(id);
ALTER TABLE jobs ADD COLUMN branch_step INTEGER NOT NULL DEFAULT 0 CHECK (branch_step >= 0);
ALTER TABLE jobs ADD COLUMN branch_points TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN waiting INTEGER NOT NULL DEFAULT 0 CHECK (waiting IN (0, 1));
CREATE INDEX jobs_ready ON jobs(sweep_id, state, ordinal) WHERE waiting = 0;
CREATE INDEX jobs_by_parent ON jobs(parent_id, waiting) WHERE parent_id IS NOT NULL;
)sql",
    // 14: the end of each job's train and val loss curves (server/store/loss_tails.cpp), kept by ingest beside
    // the points, so that a sweep's runs table is one read of its jobs' tails rather than a search of the
    // points per job; filled here from the points of the jobs stored so far.
    R"sql(
CREATE TABLE loss_tails (
  job_id  INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  name_id INTEGER NOT NULL REFERENCES metric_names(id),
  step    INTEGER NOT NULL,
  tokens  INTEGER NOT NULL,
  value   REAL,                               -- NULL stands for NaN
  PRIMARY KEY (job_id, name_id, step)
) WITHOUT ROWID;
INSERT INTO loss_tails(job_id, name_id, step, tokens, value)
  SELECT job_id, name_id, step, tokens, value FROM (
    SELECT m.job_id, m.name_id, m.step, m.tokens, m.value,
           ROW_NUMBER() OVER (PARTITION BY m.job_id, m.name_id ORDER BY m.step DESC) AS newest
    FROM metrics m WHERE m.name_id IN (SELECT id FROM metric_names WHERE name IN ('train/loss', 'val/loss')))
  WHERE newest <= 16;
)sql",
    // 15: the jobs' `gpus` column has held the slots a job takes of each worker it spans since migration 11,
    // not a number of GPUs: it takes the name the Job message and the code give it.
    R"sql(
ALTER TABLE jobs RENAME COLUMN gpus TO slots_per_node;
)sql",
    // 16: a watch round costs what changed since the last, not the sweep's size (server/store/job_changes.cpp).
    // Every write that changes what a job reads as takes the next number of one counter into its changed_seq,
    // by triggers, so that no write of the store's can forget it; a change of a run's state renumbers its
    // branches too, whose pending reason reads it. The jobs stored so far are changes after 0. A sweep's jobs
    // per state are counted as they change (sweep_job_counts), so a sweep's row is read without its jobs.
    R"sql(
CREATE TABLE job_change_seq (
  id  INTEGER PRIMARY KEY CHECK (id = 1),
  seq INTEGER NOT NULL
);
INSERT INTO job_change_seq(id, seq) VALUES (1, 1);
ALTER TABLE jobs ADD COLUMN changed_seq INTEGER NOT NULL DEFAULT 0;
UPDATE jobs SET changed_seq = 1;
CREATE INDEX jobs_by_sweep_change ON jobs(sweep_id, changed_seq);
CREATE TRIGGER jobs_inserted_change AFTER INSERT ON jobs BEGIN
  UPDATE job_change_seq SET seq = seq + 1 WHERE id = 1;
  UPDATE jobs SET changed_seq = (SELECT seq FROM job_change_seq WHERE id = 1) WHERE id = NEW.id;
END;
-- Only a write that changed what a job reads as (store_rows::job_columns, and the cancel flag and the waiting
-- that its pending reason follows): not a heartbeat's renewal of the lease, nor an update that left the row as
-- it was. (A column added later that a job reads as needs a migration that lists it here.)
CREATE TRIGGER jobs_updated_change AFTER UPDATE ON jobs WHEN NEW.changed_seq = OLD.changed_seq AND
  (NEW.name, NEW.config_hash, NEW.config_json, NEW.state, NEW.attempt, NEW.max_attempts, NEW.priority,
   NEW.worker_id, NEW.cancel_requested, NEW.step, NEW.total_steps, NEW.tokens, NEW.last_loss, NEW.tokens_per_s,
   NEW.started_ms, NEW.finished_ms, NEW.error, NEW.reused_from, NEW.stage, NEW.slots_per_node, NEW.nodes,
   NEW.parent_id, NEW.branch_step, NEW.branch_points, NEW.waiting) IS NOT
  (OLD.name, OLD.config_hash, OLD.config_json, OLD.state, OLD.attempt, OLD.max_attempts, OLD.priority,
   OLD.worker_id, OLD.cancel_requested, OLD.step, OLD.total_steps, OLD.tokens, OLD.last_loss, OLD.tokens_per_s,
   OLD.started_ms, OLD.finished_ms, OLD.error, OLD.reused_from, OLD.stage, OLD.slots_per_node, OLD.nodes,
   OLD.parent_id, OLD.branch_step, OLD.branch_points, OLD.waiting)
BEGIN
  UPDATE job_change_seq SET seq = seq + 1 WHERE id = 1;
  UPDATE jobs SET changed_seq = (SELECT seq FROM job_change_seq WHERE id = 1) WHERE id = NEW.id;
END;
-- A run's state is read by its branches' rows (their pending reason): a change of it is theirs too. Apart
-- from the trigger above so that a report, which leaves the state as it was, never looks for branches.
CREATE TRIGGER jobs_state_change_of_branches AFTER UPDATE OF state ON jobs WHEN NEW.state IS NOT OLD.state BEGIN
  UPDATE job_change_seq SET seq = seq + 1 WHERE id = 1;
  UPDATE jobs SET changed_seq = (SELECT seq FROM job_change_seq WHERE id = 1) WHERE parent_id = NEW.id;
END;
CREATE TABLE sweep_job_counts (
  sweep_id INTEGER NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
  state    TEXT NOT NULL,
  jobs     INTEGER NOT NULL CHECK (jobs >= 0),
  PRIMARY KEY (sweep_id, state)
) WITHOUT ROWID;
INSERT INTO sweep_job_counts(sweep_id, state, jobs) SELECT sweep_id, state, COUNT(*) FROM jobs GROUP BY sweep_id, state;
CREATE TRIGGER jobs_inserted_count AFTER INSERT ON jobs BEGIN
  INSERT INTO sweep_job_counts(sweep_id, state, jobs) VALUES (NEW.sweep_id, NEW.state, 1)
    ON CONFLICT(sweep_id, state) DO UPDATE SET jobs = jobs + 1;
END;
CREATE TRIGGER jobs_moved_count AFTER UPDATE OF sweep_id, state ON jobs
  WHEN NEW.state IS NOT OLD.state OR NEW.sweep_id IS NOT OLD.sweep_id BEGIN
  UPDATE sweep_job_counts SET jobs = jobs - 1 WHERE sweep_id = OLD.sweep_id AND state = OLD.state;
  INSERT INTO sweep_job_counts(sweep_id, state, jobs) VALUES (NEW.sweep_id, NEW.state, 1)
    ON CONFLICT(sweep_id, state) DO UPDATE SET jobs = jobs + 1;
END;
CREATE TRIGGER jobs_deleted_count AFTER DELETE ON jobs BEGIN
  UPDATE sweep_job_counts SET jobs = jobs - 1 WHERE sweep_id = OLD.sweep_id AND state = OLD.state;
END;
)sql",
    // 17: identities that are never reused (docs/deploy.md, "Identity"). A job's uid is minted at submit and
    // travels with its lease into its checkpoints: a row id comes round again after a backup is restored, a uid
    // does not, so a job never resumes another's checkpoint. The database's uid is written into the shared
    // root it uses (core/shared_root_claim.h), so two coordinators never share one unknowingly. A uid never
    // changes after its insert: the change triggers above need not list it.
    Migration(R"sql(
ALTER TABLE jobs ADD COLUMN uid TEXT NOT NULL DEFAULT '';
CREATE TABLE database_identity (
  id  INTEGER PRIMARY KEY CHECK (id = 1),
  uid TEXT NOT NULL
);
)sql", fill_identities),
    // 18: a failure a worker's own environment may cause (its data directory, its device's memory) uses no
    // attempt: the job counts them apart and fails after Store::kMaxWorkerFaults, and the worker is paused
    // (no leases) for Store::kWorkerFaultPauseMs. Hand-backs use no attempt either, up to Store::kMaxHandBacks.
    // And a token's live workers are bounded (--max-workers-per-token); a branch whose run ended without its
    // checkpoint is cancelled (orphaned), and comes back when the run is retried.
    R"sql(
ALTER TABLE jobs ADD COLUMN worker_faults INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN hand_backs INTEGER NOT NULL DEFAULT 0;
-- A branch cancelled because its run ended without its checkpoint (Store::end_orphaned_branches): a retry of
-- the run brings it back.
ALTER TABLE jobs ADD COLUMN orphaned INTEGER NOT NULL DEFAULT 0 CHECK (orphaned IN (0, 1));
ALTER TABLE workers ADD COLUMN paused_until_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workers ADD COLUMN pause_reason TEXT NOT NULL DEFAULT '';
-- A new worker counts its token's live ones (Store::register_worker).
CREATE INDEX workers_by_token ON workers(token_id, heartbeat_ms);
)sql",
    // 19: the workers a job failed on in a way their environment may cause (Store::finish). Such a worker is
    // never offered the job again, so one bad worker cannot use up the job's bound on its own, however often
    // its pause lapses: the job fails once kMaxWorkerFaults distinct workers failed it alike. A retry clears
    // the list. And a branch whose attempt failed is not leased again before `not_before_ms` (a back-off).
    R"sql(
ALTER TABLE jobs ADD COLUMN not_before_ms INTEGER NOT NULL DEFAULT 0;
CREATE TABLE job_worker_faults (
  job_id    INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  worker_id INTEGER NOT NULL,
  PRIMARY KEY (job_id, worker_id)
) WITHOUT ROWID;
)sql",
    // 20: notes and tags on sweeps and runs (core/annotation.h; Store::annotate). One row per sweep (job_id 0)
    // or run that has any; tags sorted, each bounded by a space (" a b "); the search reads them in C++ (its
    // words match parts of names and notes, which LIKE cannot index either).
    R"sql(
CREATE TABLE annotations (
  sweep_id   INTEGER NOT NULL REFERENCES sweeps(id),
  job_id     INTEGER NOT NULL DEFAULT 0,
  note       TEXT NOT NULL DEFAULT '',
  tags       TEXT NOT NULL DEFAULT '',
  updated_ms INTEGER NOT NULL,
  PRIMARY KEY (sweep_id, job_id)
) WITHOUT ROWID;
)sql",
    // 21: the dashboard's saved views (core/saved_view.h; Store::save_view), one name per user.
    R"sql(
CREATE TABLE views (
  id         INTEGER PRIMARY KEY,
  owner      INTEGER NOT NULL,
  name       TEXT NOT NULL,
  sweep_id   INTEGER NOT NULL REFERENCES sweeps(id),
  settings   TEXT NOT NULL,
  updated_ms INTEGER NOT NULL,
  UNIQUE (owner, name)
);
)sql",
    // 22: alerts (core/alert.h; server/store/alerts.cpp), one per job, attempt and rule. Raising one renumbers
    // its job's change, so that a watch (the dashboard's event stream) hears of it as of any change of the job.
    R"sql(
CREATE TABLE alerts (
  id        INTEGER PRIMARY KEY,
  job_id    INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  attempt   INTEGER NOT NULL,
  rule      TEXT NOT NULL,
  step      INTEGER,
  value     REAL,
  message   TEXT NOT NULL,
  raised_ms INTEGER NOT NULL,
  UNIQUE (job_id, attempt, rule)
);
CREATE TRIGGER alerts_inserted_change AFTER INSERT ON alerts BEGIN
  UPDATE job_change_seq SET seq = seq + 1 WHERE id = 1;
  UPDATE jobs SET changed_seq = (SELECT seq FROM job_change_seq WHERE id = 1) WHERE id = NEW.job_id;
END;
)sql",
    // 23: a sweep's jobs in their order without a sort. Listing a sweep's jobs or runs (ORDER BY ordinal) sorted
    // whole rows, configs included, in a temporary B-tree that spills to a file past the page cache: /runs took
    // 27x as long for 10x the jobs (docs/perf.md). The change feed keeps jobs_by_sweep_change and the lease
    // jobs_ready (their plans are checked in tests/service/query_plan_test.cpp).
    R"sql(
CREATE INDEX jobs_by_sweep_ordinal ON jobs(sweep_id, ordinal);
)sql",
  };
  return all;
}

}  // namespace

std::string sql_states(bool (*include)(JobState)) {
  std::vector<std::string_view> names;
  for (JobState s : kJobStates) {
    if (include(s)) names.push_back(job_state_name(s));
  }
  return absl::StrJoin(names, ",", [](std::string* out, std::string_view name) { out->append("'").append(name) += "'"; });
}

const std::string& sql_active_states() {
  static const std::string states = sql_states(is_active);
  return states;
}

int latest_schema_version() { return static_cast<int>(migrations().size()); }

int migrate(sql::Database& db, int target) {
  const std::vector<Migration>& steps = migrations();
  const std::size_t last = target < 0 ? steps.size() : std::min(steps.size(), std::size_t(target));
  db.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
  int version = 0;
  {
    sql::Statement read(db.handle(), "SELECT COALESCE(MAX(version), 0) FROM schema_version");
    if (read.step()) version = static_cast<int>(read.int64(0));
    read.reset();
  }
  for (std::size_t i = static_cast<std::size_t>(version); i < last; ++i) {
    const bool rebuild = steps[i].rebuilds_tables;
    if (rebuild) db.exec("PRAGMA foreign_keys=OFF");  // (a no-op inside a transaction: before it)
    try {
      sql::Transaction tx(db);
      db.exec(steps[i].sql);
      if (steps[i].then) steps[i].then(db);
      if (rebuild) {
        sql::Statement check(db.handle(), "SELECT COUNT(*) FROM pragma_foreign_key_check");
        const std::int64_t broken = check.step() ? check.int64(0) : 0;
        check.reset();
        if (broken != 0) {
          throw sql::Error("schema migration " + std::to_string(i + 1) + " would leave " + std::to_string(broken) +
                           " broken references; nothing was changed");
        }
      }
      sql::Statement bump(db.handle(), "INSERT INTO schema_version(version) VALUES (?)");
      bump.bind(1, static_cast<std::int64_t>(i + 1)).run();
      tx.commit();
    } catch (...) {
      if (rebuild) db.exec("PRAGMA foreign_keys=ON");
      throw;
    }
    if (rebuild) db.exec("PRAGMA foreign_keys=ON");
    version = static_cast<int>(i + 1);
  }
  return version;
}

}  // namespace gammalab
