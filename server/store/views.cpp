// Store: the dashboard's saved views (core/saved_view.h).
#include <stdexcept>

#include "server/store.h"
#include "server/store/rows.h"

namespace gammalab {

using store_rows::parse_id;

namespace {

SavedView read_view(const sql::Statement& s) {
  return {std::to_string(s.int64(0)), s.int64(1), s.text(2), std::to_string(s.int64(3)), s.text(4), s.int64(5)};
}

constexpr const char* kViewColumns = "id, owner, name, sweep_id, settings, updated_ms";

}  // namespace

SavedView Store::save_view(std::int64_t owner, const std::string& name, const std::string& sweep_id,
                           const std::string& settings) {
  absl::MutexLock lock(&mutex_);
  sql::Transaction tx(db_);
  sql::Statement& count = statements_.get("SELECT COUNT(*), SUM(name = ?) FROM views WHERE owner = ?");
  count.bind(1, name).bind(2, owner);
  count.step();
  const std::int64_t views = count.int64(0), same_name = count.int64(1);
  count.reset();
  if (same_name == 0 && views >= static_cast<std::int64_t>(view_limits::kViewsPerUser)) {
    throw std::invalid_argument("views: at most " + std::to_string(view_limits::kViewsPerUser) +
                                " saved views per user; delete one first");
  }
  sql::Statement& write = statements_.get(
      "INSERT INTO views(owner, name, sweep_id, settings, updated_ms) VALUES (?, ?, ?, ?, ?) "
      "ON CONFLICT(owner, name) DO UPDATE SET sweep_id = excluded.sweep_id, settings = excluded.settings, "
      "updated_ms = excluded.updated_ms");
  write.bind(1, owner).bind(2, name).bind(3, parse_id(sweep_id)).bind(4, settings).bind(5, now_ms()).run();
  sql::Statement& read = statements_.get(std::string("SELECT ") + kViewColumns + " FROM views WHERE owner = ? AND name = ?");
  read.bind(1, owner).bind(2, name);
  if (!read.step()) throw sql::Error("save_view: the view just written is not there");
  SavedView out = read_view(read);
  read.reset();
  tx.commit();
  return out;
}

std::vector<SavedView> Store::views(std::int64_t owner) {
  store_read::ReadPool::Read snapshot = readers_.read();
  sql::Statement& s =
      snapshot.statements().get(std::string("SELECT ") + kViewColumns + " FROM views WHERE owner = ? ORDER BY name");
  s.bind(1, owner);
  std::vector<SavedView> out;
  while (s.step()) out.push_back(read_view(s));
  return out;
}

std::optional<SavedView> Store::view(const std::string& id) {
  store_read::ReadPool::Read snapshot = readers_.read();
  sql::Statement& s = snapshot.statements().get(std::string("SELECT ") + kViewColumns + " FROM views WHERE id = ?");
  s.bind(1, parse_id(id));
  std::optional<SavedView> out;
  if (s.step()) out = read_view(s);
  s.reset();
  return out;
}

bool Store::delete_view(const std::string& id) {
  absl::MutexLock lock(&mutex_);
  sql::Statement& s = statements_.get("DELETE FROM views WHERE id = ?");
  s.bind(1, parse_id(id)).run();
  return db_.changes() > 0;
}

}  // namespace gammalab
