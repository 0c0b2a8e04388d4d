#pragma once
// The metric_tiles table (core/metric_tiles.h's Extremes of every tile of every level, per job and metric):
// kept up to date by metric ingest, built once from the points by the migration that made the table. Internal
// to the store.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "core/metric_tiles.h"
#include "server/sqlite.h"

namespace gammalab::store_tiles {

// Extremes of newly stored points by (name id, level, tile), for one job: what add() collects and write()
// merges into the table.
class TileDelta {
 public:
  // A point that was stored (not a resend: its extremes would be merged twice).
  void add(std::int64_t name_id, std::int64_t step, std::int64_t tokens, double value);
  // Merges every collected tile into its row. `read` and `write` are read_tile_sql() and kWriteTile
  // prepared. `stored_heads`, when given, holds each metric's highest step stored before these points (none: no
  // point): a tile that starts past it has no row yet, and is written without reading one.
  void write(std::int64_t job_id, sql::Statement& read, sql::Statement& write,
             const std::map<std::int64_t, std::int64_t>* stored_heads = nullptr) const;
  bool empty() const { return tiles_.empty(); }

 private:
  using Key = std::tuple<std::int64_t, int, std::int64_t>;  // name id, level, tile
  std::map<Key, Extremes> tiles_;
  // Per level, the tile the last point went to: points come by step, so most go to the same tile as the one
  // before them, found without a search of the map (whose nodes never move).
  std::pair<Key, Extremes*> last_[kTileLevels + 1] = {};
};

// The statements on tile rows. Their Extremes columns are listed once, in the order read_extremes
// (metric_tiles.cpp) reads them.
inline constexpr std::string_view kTileExtremes =
    "points, first_step, first_tokens, first_value, last_step, last_tokens, last_value, low_step, low_tokens, "
    "low_value, high_step, high_tokens, high_value";
// One tile of one metric.
const std::string& read_tile_sql();
// A range [first, end) of one level's tiles of one metric, ascending.
const std::string& read_tile_range_sql();
inline constexpr const char* kWriteTile =
    "INSERT OR REPLACE INTO metric_tiles(job_id, name_id, level, tile, points, first_step, first_tokens, "
    "first_value, last_step, last_tokens, last_value, low_step, low_tokens, low_value, high_step, high_tokens, "
    "high_value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

}  // namespace gammalab::store_tiles
