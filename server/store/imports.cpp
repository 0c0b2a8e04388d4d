// Store: runs trained elsewhere (core/scaling/imported_runs.h), stored as a sweep of finished jobs with their
// points, in one transaction: an import that fails part way stores nothing.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "core/job_stage.h"
#include "core/metric_names.h"
#include "core/sweep/config_hash.h"
#include "core/uid.h"
#include "server/random_hex.h"
#include "server/store.h"
#include "server/store/rows.h"

namespace gammalab {

using store_rows::kSweepColumns;

SweepRecord Store::import_runs(const std::string& name, const std::string& description,
                               const std::vector<ImportedRun>& runs) {
  absl::MutexLock lock(&mutex_);
  const std::int64_t now = now_ms();
  std::int64_t sweep_id = 0;
  {
    sql::Transaction tx(db_);
    // max_attempts 0: nothing here is ever run (a retry of an imported job is refused: it never failed).
    statements_
        .get("INSERT INTO sweeps(name, file_name, source_yaml, priority, max_attempts, created_ms, awaiting_main) "
             "VALUES (?, ?, '', 0, 0, ?, 0)")
        .bind(1, name)
        .bind(2, description)
        .bind(3, now)
        .run();
    sweep_id = db_.last_insert_id();
    sql::Statement& insert_job = statements_.get(
        "INSERT INTO jobs(sweep_id, ordinal, name, config_hash, config_json, state, max_attempts, priority, "
        "total_steps, created_ms, step, tokens, last_loss, finished_ms, stage, slots_per_node, nodes, branch_step, "
        "branch_points, waiting, uid) VALUES (?, ?, ?, ?, ?, ?, 0, 0, ?, ?, ?, ?, ?, ?, ?, 1, 1, 0, '', 0, ?)");
    std::int64_t ordinal = 0;
    for (const ImportedRun& run : runs) {
      check_transition(std::nullopt, JobState::kSucceeded);
      // Its progress as a finished job shows it: the last step and tokens, and the last train loss.
      std::int64_t step = 0, tokens = 0;
      const MetricPoint* last_loss = nullptr;
      for (const MetricPoint& p : run.points) {
        step = std::max(step, p.step);
        tokens = std::max(tokens, p.tokens);
        if (p.name == metric_names::kTrainLoss && (!last_loss || p.step >= last_loss->step)) last_loss = &p;
      }
      // A source without tokens per step (TensorBoard, MLflow) still says the run's D: its progress shows that.
      if (tokens == 0) tokens = static_cast<std::int64_t>(std::llround(*run.config.declared_tokens));
      insert_job.bind(1, sweep_id).bind(2, ordinal++).bind(3, run.name).bind(4, config_hash(run.config));
      insert_job.bind(5, to_json(run.config).dump()).bind(6, job_state_name(JobState::kSucceeded));
      insert_job.bind(7, run.config.steps).bind(8, now).bind(9, step).bind(10, tokens);
      if (last_loss && std::isfinite(last_loss->value)) {
        insert_job.bind(11, last_loss->value);
      } else {
        insert_job.bind_null(11);
      }
      insert_job.bind(12, now).bind(13, std::string(job_stage::kMain)).bind(14, random_hex(kUidBytes));
      insert_job.run();
      const std::int64_t job_id = db_.last_insert_id();
      write_points(job_id, 0, run.points, {});
      record_event(job_id, job_event_kind::kImported, JobState::kSucceeded, 0, -1, *run.config.imported);
    }
    tx.commit();
  }
  SweepRecord sweep;
  sql::Statement& read = statements_.get(std::string("SELECT ") + kSweepColumns + " FROM sweeps s WHERE s.id = ?");
  read.bind(1, sweep_id);
  if (read.step()) sweep = read_sweep(statements_, read);
  read.reset();
  changed();
  return sweep;
}

}  // namespace gammalab
