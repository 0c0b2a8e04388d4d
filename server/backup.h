#pragma once
// `gammalab-server backup DEST --db DB`: a consistent copy of the coordinator's database while it runs, through
// SQLite's online backup API (sqlite3_backup_*). The copy is one snapshot: it holds every write committed before
// the backup began and none that commits during it. It is taken in steps of a few pages; the database is in WAL
// mode, so the server's writers go on meanwhile (the backup only reads). The copy is checked with
// PRAGMA integrity_check, then renamed into place, so DEST exists only when it is whole. Restore: docs/deploy.md.
#include <cstdint>
#include <filesystem>
#include <string>

namespace gammalab {

struct BackupOptions {
  std::filesystem::path database;     // the live database (must exist; never created or written)
  std::filesystem::path destination;  // a new file (refused if it exists); its directory must exist
  int pages_per_step = 256;           // pages copied per sqlite3_backup_step
  int pause_ms = 0;                   // pause between steps, to keep the disk free for the server
};

struct BackupResult {
  std::int64_t pages = 0;  // pages in the copy
  std::int64_t steps = 0;  // sqlite3_backup_step calls
  std::int64_t bytes = 0;  // size of the copy
};

// Throws std::runtime_error naming the file, the option and the reason; a failed backup leaves no DEST behind.
BackupResult backup_database(const BackupOptions& options);

// The subcommand: prints {"event":"backup","destination":..,"pages":..,"steps":..,"bytes":..} on stdout and
// returns 0, or logs the error and returns 1.
int run_backup_command(const BackupOptions& options);

}  // namespace gammalab
