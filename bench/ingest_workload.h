#pragma once
// The metric-ingest workload the dispatch benchmarks share (dispatch_ingest.cpp, dispatch_load.cpp): one job
// per stream, each stream `messages` reports of `points` train-loss points, and its reference, the same rows
// inserted with plain batched SQLite (one transaction per report) into the same schema.
#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>

#include "core/metric_names.h"
#include "core/sweep/config_hash.h"
#include "gammalab/v1/gammalab.pb.h"
#include "server/store.h"
#include "tests/service/test_sweeps.h"

namespace gammalab::bench {

struct IngestWorkload {
  int streams = 16;
  int messages = 100;  // per stream
  int points = 100;    // per message

  std::int64_t total_points() const { return std::int64_t{streams} * messages * points; }

  // One job per stream, long enough for every step it reports (ingest refuses a step past the job's end).
  Sweep sweep(const std::string& name) const {
    Sweep out = testing::make_sweep(name, streams);
    for (auto& job : out.jobs) {
      job.config.steps = std::int64_t{messages} * points;
      job.config_hash = config_hash(job.config);
    }
    return out;
  }

  // Report `message` of the stream for `job_id`'s attempt: steps message * points + 1 .. (message + 1) * points.
  v1::ReportMetricsRequest report(const std::string& job_id, int attempt, int message) const {
    v1::ReportMetricsRequest request;
    request.set_job_id(job_id);
    request.set_attempt(attempt);
    for (int p = 0; p < points; ++p) {
      const int step = 1 + message * points + p;
      auto* point = request.add_points();
      point->set_step(step);
      point->set_tokens(step * 4096);
      point->set_name(std::string(metric_names::kTrainLoss));
      point->set_value(3.0 / step);
    }
    return request;
  }

  // Seconds to insert the same rows with plain batched SQLite, into a fresh store's schema.
  double plain_inserts_s() const {
    const auto dir = testing::temp_db("plain").parent_path();
    double seconds = 0;
    {
      Store store((dir / "gammalab.db").string());  // same schema
      store.create_sweep(sweep("plain"), "", "", false);
      store.add_metrics("1", 0, {{0, 0, std::string(metric_names::kTrainLoss), 0.0}});  // create the name id
      sqlite3* db = nullptr;
      sqlite3_open((dir / "gammalab.db").string().c_str(), &db);
      sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL", nullptr, nullptr, nullptr);
      sqlite3_stmt* insert = nullptr;
      sqlite3_prepare_v2(db, "INSERT INTO metrics(job_id, name_id, step, tokens, value) VALUES (?, 1, ?, ?, ?)", -1,
                         &insert, nullptr);
      const auto t = std::chrono::steady_clock::now();
      for (int s = 0; s < streams; ++s) {
        for (int m = 0; m < messages; ++m) {
          sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
          for (int p = 0; p < points; ++p) {
            const int step = 1 + m * points + p;
            sqlite3_bind_int64(insert, 1, s + 1);
            sqlite3_bind_int64(insert, 2, step);
            sqlite3_bind_int64(insert, 3, step * 4096);
            sqlite3_bind_double(insert, 4, 3.0 / step);
            sqlite3_step(insert);
            sqlite3_reset(insert);
          }
          sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
        }
      }
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
      sqlite3_finalize(insert);
      sqlite3_close(db);
    }
    std::filesystem::remove_all(dir);
    return seconds;
  }
};

}  // namespace gammalab::bench
