// Online backup of the coordinator's database (see server/backup.h).
#include "server/backup.h"

#include "server/private_files.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sqlite3.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace gammalab {

namespace {

// Pages per step: 1 page at the least; at most 1 GiB of 4 KiB pages at once.
constexpr int kMaxPagesPerStep = 1 << 18;
constexpr int kMaxPauseMs = 60000;
// Busy or locked steps in a row before giving up (each waits 10 ms): a checkpoint or a writer holds a lock
// far longer than any healthy one does.
constexpr int kMaxBusyRetries = 3000;

struct CloseDb {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using DbHandle = std::unique_ptr<sqlite3, CloseDb>;

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error("backup: " + what); }

DbHandle open_database(const std::filesystem::path& path, int flags, const std::string& role) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  DbHandle db(raw);
  if (rc != SQLITE_OK) {
    fail(role + " " + path.string() + ": cannot open (" + (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)) + ")");
  }
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, 10000);
  return db;
}

void exec(sqlite3* db, const std::string& sql, const std::string& what) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string text = message ? message : sqlite3_errmsg(db);
    sqlite3_free(message);
    fail(what + ": " + text);
  }
}

std::string integrity_check(sqlite3* db) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &raw, nullptr) != SQLITE_OK) return sqlite3_errmsg(db);
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> stmt(raw, sqlite3_finalize);
  std::string result;
  while (sqlite3_step(raw) == SQLITE_ROW) {
    if (!result.empty()) result += "; ";
    result += reinterpret_cast<const char*>(sqlite3_column_text(raw, 0));
  }
  return result;
}

void check_options(const BackupOptions& o) {
  if (o.pages_per_step < 1 || o.pages_per_step > kMaxPagesPerStep) {
    fail("--pages-per-step must be between 1 and " + std::to_string(kMaxPagesPerStep) + ", got " +
         std::to_string(o.pages_per_step));
  }
  if (o.pause_ms < 0 || o.pause_ms > kMaxPauseMs) {
    fail("--pause-ms must be between 0 and " + std::to_string(kMaxPauseMs) + ", got " + std::to_string(o.pause_ms));
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(o.database, ec))
    fail("--db " + o.database.string() + ": no such database file");
  if (o.destination.empty()) fail("DEST: empty path");
  if (std::filesystem::exists(std::filesystem::symlink_status(o.destination, ec))) {
    fail("DEST " + o.destination.string() + ": exists (a backup writes a new file; remove it or pick another name)");
  }
  const auto dir = std::filesystem::absolute(o.destination).parent_path();
  if (!std::filesystem::is_directory(dir, ec))
    fail("DEST " + o.destination.string() + ": no directory " + dir.string());
}

}  // namespace

BackupResult backup_database(const BackupOptions& options) {
  check_options(options);
  // Read-write without CREATE: a missing file is an error, and a WAL database needs its -shm writable even to
  // read. Nothing here writes to it.
  DbHandle source = open_database(options.database, SQLITE_OPEN_READWRITE, "--db");
  // The copy is written under a temporary name beside DEST and renamed when whole and checked.
  const std::filesystem::path partial =
      options.destination.string() + ".partial-" + std::to_string(static_cast<long>(::getpid()));
  std::filesystem::remove(partial);
  struct RemovePartial {
    const std::filesystem::path& path;
    bool keep = false;
    ~RemovePartial() {
      if (keep) return;
      std::error_code ec;
      for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(path.string() + suffix, ec);
    }
  } cleanup{partial};

  BackupResult result;
  {
    create_private_file(partial);  // a copy of everyone's data: owner-only, whatever the umask
    DbHandle dest = open_database(partial, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, "DEST");
    // One read transaction over the whole copy: every step reads the same snapshot. Without it each step takes a
    // fresh read lock, and a write by the server between steps restarts the backup from page 1 (under a steady
    // stream of metric points, forever).
    exec(source.get(), "BEGIN", "--db " + options.database.string());
    exec(source.get(), "SELECT count(*) FROM sqlite_schema", "--db " + options.database.string() + ": not a database");
    sqlite3_backup* backup = sqlite3_backup_init(dest.get(), "main", source.get(), "main");
    if (backup == nullptr) fail("DEST " + partial.string() + ": " + sqlite3_errmsg(dest.get()));
    int rc = SQLITE_OK;
    int busy = 0;
    while (true) {
      rc = sqlite3_backup_step(backup, options.pages_per_step);
      ++result.steps;
      if (rc == SQLITE_DONE) break;
      if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) {
        if (++busy > kMaxBusyRetries) break;
        sqlite3_sleep(10);
        continue;
      }
      if (rc != SQLITE_OK) break;
      busy = 0;
      if (options.pause_ms > 0) sqlite3_sleep(options.pause_ms);
    }
    result.pages = sqlite3_backup_pagecount(backup);
    const int finish = sqlite3_backup_finish(backup);
    exec(source.get(), "COMMIT", "--db " + options.database.string());
    if (rc != SQLITE_DONE) {
      fail("copying " + options.database.string() + " stopped at step " + std::to_string(result.steps) + ": " +
           sqlite3_errstr(rc) + (busy > kMaxBusyRetries ? " (the database stayed locked)" : ""));
    }
    if (finish != SQLITE_OK) fail("DEST " + partial.string() + ": " + sqlite3_errmsg(dest.get()));
    if (const std::string check = integrity_check(dest.get()); check != "ok") {
      fail("the copy failed PRAGMA integrity_check: " + check.substr(0, 1000));
    }
    // The copy keeps the source's WAL mode; closing its only connection checkpoints and removes its -wal file,
    // so the renamed file is the whole database.
  }
  // RENAME_NOREPLACE: a DEST that appeared meanwhile is not overwritten.
  if (::renameat2(AT_FDCWD, partial.c_str(), AT_FDCWD, options.destination.c_str(), RENAME_NOREPLACE) != 0) {
    fail("DEST " + options.destination.string() + ": cannot move the copy into place (" + std::strerror(errno) + ")");
  }
  cleanup.keep = true;
  std::error_code ec;
  result.bytes = static_cast<std::int64_t>(std::filesystem::file_size(options.destination, ec));
  return result;
}

int run_backup_command(const BackupOptions& options) {
  try {
    const BackupResult r = backup_database(options);
    std::printf("%s\n", nlohmann::ordered_json{{"event", "backup"},
                                               {"destination", options.destination.string()},
                                               {"pages", r.pages},
                                               {"steps", r.steps},
                                               {"bytes", r.bytes}}
                            .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                            .c_str());
    spdlog::info("backup of {} in {}: {} pages in {} steps", options.database.string(), options.destination.string(),
                 r.pages, r.steps);
    return 0;
  } catch (const std::exception& e) {
    spdlog::critical("{}", e.what());
    return 1;
  }
}

}  // namespace gammalab
