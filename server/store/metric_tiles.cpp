// Store: the metric tiles (server/store/metric_tiles.h) and the downsampled curves read from them. A
// downsampled answer reads, per metric, a few thousand tile rows and single points at the ragged ends instead
// of every point: a million-point curve for a 1,000-pixel chart reads ~16,000 tiles of 64 steps.
#include "server/store/metric_tiles.h"

#include <cmath>
#include <limits>

#include "core/metric_downsample.h"
#include "server/store.h"
#include "server/store/rows.h"

namespace gammalab {

namespace store_tiles {

namespace {

// NULL stands for NaN, as in the metrics table.
void bind_value(sql::Statement& s, int index, double value) {
  if (std::isnan(value))
    s.bind_null(index);
  else
    s.bind(index, value);
}

double read_value(const sql::Statement& s, int column) {
  return s.optional_real(column).value_or(std::numeric_limits<double>::quiet_NaN());
}

// Extremes from a row whose columns from `first` on are points, then step, tokens and value of the first,
// last, lowest and highest point (kTileExtremes' order).
Extremes read_extremes(const sql::Statement& s, int first) {
  Extremes e;
  e.points = s.int64(first);
  int column = first + 1;
  for (KeptPoint* p : {&e.first, &e.last, &e.low, &e.high}) {
    p->step = s.int64(column);
    p->tokens = s.int64(column + 1);
    p->value = read_value(s, column + 2);
    column += 3;
  }
  return e;
}

}  // namespace

const std::string& read_tile_sql() {
  static const std::string sql = "SELECT " + std::string(kTileExtremes) +
                                 " FROM metric_tiles WHERE job_id = ? AND name_id = ? AND level = ? AND tile = ?";
  return sql;
}

const std::string& read_tile_range_sql() {
  static const std::string sql = "SELECT " + std::string(kTileExtremes) +
                                 " FROM metric_tiles WHERE job_id = ? AND name_id = ? AND level = ? AND tile >= ? "
                                 "AND tile < ? ORDER BY tile";
  return sql;
}

void TileDelta::add(std::int64_t name_id, std::int64_t step, std::int64_t tokens, double value) {
  for (int level = 1; level <= kTileLevels; ++level) {
    const Key key{name_id, level, step / tile_steps(level)};
    auto& [last_key, last_tile] = last_[level];
    if (!last_tile || last_key != key) {
      last_key = key;
      last_tile = &tiles_[key];
    }
    last_tile->add(step, tokens, value);
  }
}

void TileDelta::write(std::int64_t job_id, sql::Statement& read, sql::Statement& write,
                      const std::map<std::int64_t, std::int64_t>* stored_heads) const {
  for (const auto& [key, delta] : tiles_) {
    const auto& [name_id, level, tile] = key;
    Extremes e;
    bool may_exist = true;
    if (stored_heads) {
      const auto head = stored_heads->find(name_id);
      may_exist = head != stored_heads->end() && head->second >= tile * tile_steps(level);
    }
    if (may_exist) {
      read.bind(1, job_id).bind(2, name_id).bind(3, level).bind(4, tile);
      if (read.step()) e = read_extremes(read, 0);
      read.reset();
    }
    e.merge(delta);
    write.bind(1, job_id).bind(2, name_id).bind(3, level).bind(4, tile).bind(5, e.points);
    int column = 6;
    for (const KeptPoint* p : {&e.first, &e.last, &e.low, &e.high}) {
      write.bind(column, p->step).bind(column + 1, p->tokens);
      bind_value(write, column + 2, p->value);
      column += 3;
    }
    write.run();
  }
}

}  // namespace store_tiles

std::vector<MetricPoint> Store::downsampled_metrics(const std::string& job_id, const std::vector<std::string>& names,
                                                    std::int64_t after_step, std::int64_t to_step,
                                                    std::size_t buckets) {
  if (buckets < 1) throw std::invalid_argument("downsampled_metrics: buckets must be at least 1");
  // One snapshot for the edges, the tiles and the ragged ends.
  store_read::ReadPool::Read snapshot = readers_.read();
  sql::StatementCache& statements = snapshot.statements();
  const std::int64_t job = store_rows::parse_id(job_id);
  const std::int64_t from = std::max<std::int64_t>(0, after_step + 1);
  std::vector<MetricPoint> out;
  sql::Statement& edge_first = statements.get(
      "SELECT step FROM metrics WHERE job_id = ? AND name_id = ? AND step BETWEEN ? AND ? ORDER BY step LIMIT 1");
  sql::Statement& edge_last = statements.get(
      "SELECT step FROM metrics WHERE job_id = ? AND name_id = ? AND step BETWEEN ? AND ? ORDER BY step DESC "
      "LIMIT 1");
  sql::Statement& raw = statements.get(
      "SELECT step, tokens, value FROM metrics WHERE job_id = ? AND name_id = ? AND step BETWEEN ? AND ? "
      "ORDER BY step");
  sql::Statement& tiles = statements.get(store_tiles::read_tile_range_sql());
  for (const auto& metric : metric_names_of(statements, job, names)) {
    // (Named copies, not a structured binding: clang before 16 cannot capture one in the lambdas below.)
    const std::int64_t name_id = metric.first;
    const std::string& name = metric.second;
    auto bound = [&](sql::Statement& s) -> std::optional<std::int64_t> {
      s.bind(1, job).bind(2, name_id).bind(3, from).bind(4, to_step);
      std::optional<std::int64_t> step;
      if (s.step()) step = s.int64(0);
      s.reset();
      return step;
    };
    const std::optional<std::int64_t> first = bound(edge_first);
    if (!first) continue;
    const std::int64_t last = *bound(edge_last);
    auto read_raw = [&](std::int64_t lo, std::int64_t hi, auto&& each) {
      raw.bind(1, job).bind(2, name_id).bind(3, lo).bind(4, hi);
      while (raw.step()) each(raw.int64(0), raw.int64(1), store_tiles::read_value(raw, 2));
    };
    const DownsamplePlan plan = plan_downsample(*first, last, buckets);
    const std::int64_t first_bucket = plan.bucket(*first);
    std::vector<Extremes> kept(static_cast<std::size_t>(plan.bucket(last) - first_bucket + 1));
    std::int64_t count = 0;
    for (const TileRange& piece : tile_cover(*first, last + 1, plan.level)) {
      if (piece.level == 0) {
        read_raw(piece.first, piece.end - 1, [&](std::int64_t step, std::int64_t tokens, double value) {
          kept[static_cast<std::size_t>(plan.bucket(step) - first_bucket)].add(step, tokens, value);
          ++count;
        });
        continue;
      }
      tiles.bind(1, job).bind(2, name_id).bind(3, piece.level).bind(4, piece.first).bind(5, piece.end);
      while (tiles.step()) {
        const Extremes e = store_tiles::read_extremes(tiles, 0);
        kept[static_cast<std::size_t>(plan.bucket(e.first.step) - first_bucket)].merge(e);
        count += e.points;
      }
    }
    if (count <= static_cast<std::int64_t>(4 * buckets)) {  // drawn exactly: every point
      read_raw(*first, last, [&](std::int64_t step, std::int64_t tokens, double value) {
        out.push_back({step, tokens, name, value});
      });
      continue;
    }
    for (const Extremes& bucket : kept) {
      if (bucket.points == 0) continue;
      for (const KeptPoint& p : bucket.kept()) out.push_back({p.step, p.tokens, name, p.value});
    }
  }
  return out;
}

}  // namespace gammalab
