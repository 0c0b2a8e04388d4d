#pragma once
// The coordinator's SQLite schema as forward migrations. Migration i (1-based) takes the schema from
// version i-1 to i; schema_version holds the version the file is at. Never edit a released migration:
// append a new one.
#include <string>

#include "core/job_state.h"
#include "server/sqlite.h"

namespace gammalab {

// Applies the migrations the file has not seen yet (up to `target`; -1 = all), each in its own transaction.
// Returns the version the file is at afterwards.
int migrate(sql::Database& db, int target = -1);
int latest_schema_version();

// The quoted names of the states for which `include` holds, comma-separated, for SQL: `'leased','running'` for
// is_active. The jobs.state column holds core/job_state.h's names.
std::string sql_states(bool (*include)(JobState));
// sql_states(is_active), built once: the store's lease, heartbeat, finish and metric-ingest statements use it
// on every call.
const std::string& sql_active_states();

}  // namespace gammalab
