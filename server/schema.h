#pragma once
// The coordinator's SQLite schema as forward migrations. Migration i (1-based) takes the schema from
// version i-1 to i; schema_version holds the version the file is at. Never edit a released migration:
// append a new one.
#include "server/sqlite.h"

namespace gammalab {

// Applies the migrations the file has not seen yet (up to `target`; -1 = all), each in its own transaction.
// Returns the version the file is at afterwards.
int migrate(sql::Database& db, int target = -1);
int latest_schema_version();

}  // namespace gammalab
