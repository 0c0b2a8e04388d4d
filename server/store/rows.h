#pragma once
// What the store's entity files (server/store/*.cpp) share: id parsing, the column lists of the
// jobs and sweeps tables and the reader of a job row. Internal to the store.
#include <cstdint>
#include <string>

#include "core/job_record.h"
#include "core/job_state.h"
#include "server/sqlite.h"

namespace gammalab::store_rows {

// A row id from its decimal text; -1 (matches no row) for anything else.
std::int64_t parse_id(const std::string& id);

// The state stored in `column`; throws sql::Error for a name core/job_state.h does not know.
JobState read_state(const sql::Statement& s, int column);

// A cooldown branch j may start (docs/branches.md): its parent has reported the checkpoint at j.branch_step
// written (the branch_point metric, which a reused parent has with the rest of its curve), or has finished
// without it (a reused run whose branches differed): then the branch trains from step 0, to the same result.
// Store::release_branches (which clears the `waiting` flag the lease reads) and read_job's fields use this one
// definition.
const std::string& sql_branch_point_written();  // EXISTS (...) over the alias j
const std::string& sql_branch_may_start();      // (j.parent_id IS NULL OR ...) over the alias j

// SELECT lists matching read_job and Store::read_sweep, over the aliases j (jobs) and s (sweeps).
const std::string& job_columns();
inline constexpr int kJobColumnCount = 31;  // the columns of job_columns(); a query may select more after them
inline constexpr const char* kSweepColumns =
    "s.id, s.name, s.priority, s.max_attempts, s.created_ms, s.source_yaml, s.file_name, s.awaiting_main, "
    "s.tune_report, s.stage_error";
// The same columns for lists: without the file and the tune report, which may be large and are never read.
inline constexpr const char* kSweepSummaryColumns =
    "s.id, s.name, s.priority, s.max_attempts, s.created_ms, '', s.file_name, s.awaiting_main, NULL, s.stage_error";

JobRecord read_job(const sql::Statement& s);

}  // namespace gammalab::store_rows
