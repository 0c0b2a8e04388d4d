#pragma once
// What the store's entity files (server/store/*.cpp) share: id parsing, timestamps, the column lists of the
// jobs and sweeps tables and the reader of a job row. Internal to the store.
#include <cstdint>
#include <string>

#include <google/protobuf/timestamp.pb.h>

#include "core/job_state.h"
#include "gammalab/v1/gammalab.pb.h"
#include "server/sqlite.h"

namespace gammalab::store_rows {

// A row id from its decimal text; -1 (matches no row) for anything else.
std::int64_t parse_id(const std::string& id);
google::protobuf::Timestamp timestamp(std::int64_t ms);

// The state stored in `column`; throws sql::Error for a name core/job_state.h does not know.
JobState read_state(const sql::Statement& s, int column);

// SELECT lists matching read_job and Store::read_sweep, over the aliases j (jobs) and s (sweeps).
inline constexpr const char* kJobColumns =
    "j.id, j.sweep_id, j.name, j.config_hash, j.config_json, j.state, j.attempt, j.max_attempts, j.worker_id, "
    "j.step, j.total_steps, j.tokens, j.last_loss, j.tokens_per_s, j.created_ms, j.started_ms, j.finished_ms, "
    "j.error, j.priority, j.reused_from, j.stage, j.gpus, j.nodes";
inline constexpr int kJobColumnCount = 23;  // the columns of kJobColumns; a query may select more after them
inline constexpr const char* kSweepColumns =
    "s.id, s.name, s.priority, s.max_attempts, s.created_ms, s.source_yaml, s.file_name, s.awaiting_main, "
    "s.tune_report, s.stage_error";
// The same columns for lists: without the file and the tune report, which may be large and are never read.
inline constexpr const char* kSweepSummaryColumns =
    "s.id, s.name, s.priority, s.max_attempts, s.created_ms, '', s.file_name, s.awaiting_main, NULL, s.stage_error";

v1::Job read_job(const sql::Statement& s);

}  // namespace gammalab::store_rows
