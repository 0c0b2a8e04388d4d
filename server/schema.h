#pragma once
// The coordinator's SQLite schema as forward migrations. Migration i (1-based) takes the schema from
// version i-1 to i; schema_version holds the version the file is at. Never edit a released migration:
// append a new one.
#include "server/sqlite.h"

namespace gammalab {

// Applies every migration the file has not seen yet, each in its own transaction. Returns the new version.
int migrate(sql::Database& db);

}  // namespace gammalab
