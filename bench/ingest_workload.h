#pragma once
// The metric-ingest workload the dispatch benchmarks share (dispatch_ingest.cpp, dispatch_load.cpp): one job
// per stream, each stream `messages` reports of `points` train-loss points, and its reference, the same rows
// inserted with plain batched SQLite (one transaction per report) into the same schema.
#include <grpcpp/grpcpp.h>
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "core/metric_names.h"
#include "core/sweep/config_hash.h"
#include "gammalab/v1/gammalab.grpc.pb.h"
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

  // A worker holds every stream's job, leased and started (ingest is fenced by attempt): job id -> attempt.
  // Empty (said on stderr) when a lease failed.
  std::map<std::string, int> hold_jobs(Store& store, const std::string& worker) const {
    std::map<std::string, int> attempts;
    for (int s = 0; s < streams; ++s) {
      auto lease = store.lease(worker, 600'000);
      if (!lease) {
        std::fprintf(stderr, "lease %d of %d failed\n", s + 1, streams);
        return {};
      }
      store.start(worker, lease->job.id, lease->attempt);
      attempts[lease->job.id] = lease->attempt;
    }
    return attempts;
  }

  // Every stream's reports at once, stream s over `channel(s)` to job s + 1; the seconds until every stream was
  // answered, or -1 (said on stderr) when not every point was stored: a rate of refused points measures nothing.
  template <typename Channel>
  double report_all_s(Channel channel, const std::map<std::string, int>& attempts) const {
    std::vector<std::thread> threads;
    std::atomic<std::int64_t> stored{0};
    const auto t = std::chrono::steady_clock::now();
    for (int s = 0; s < streams; ++s) {
      threads.emplace_back([&, s] {
        auto stub = v1::WorkerGateway::NewStub(channel(s));
        grpc::ClientContext context;
        v1::ReportMetricsResponse response;
        auto writer = stub->ReportMetrics(&context, &response);
        const std::string job = std::to_string(s + 1);
        for (int m = 0; m < messages; ++m) writer->Write(report(job, attempts.at(job), m));
        writer->WritesDone();
        const grpc::Status status = writer->Finish();
        if (!status.ok()) std::fprintf(stderr, "stream %d refused: %s\n", s, status.error_message().c_str());
        stored += response.points_stored();
      });
    }
    for (auto& th : threads) th.join();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    if (stored == total_points()) return seconds;
    std::fprintf(stderr, "only %lld of %lld points were stored\n", static_cast<long long>(stored.load()),
                 static_cast<long long>(total_points()));
    return -1;
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
