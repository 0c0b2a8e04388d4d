#pragma once
// The coordinator's settings (command-line flags of gammalab-server).
#include <cstdint>
#include <filesystem>
#include <string>

#include "core/limits.h"

namespace gammalab {

struct ServerOptions {
  std::string grpc_address = "127.0.0.1:50051";
  std::string http_address = "127.0.0.1:8080";  // empty = no dashboard
  std::string database = "gammalab.db";
  std::filesystem::path shared_root = "gammalab-shared";  // job logs and checkpoints, shared with workers
  std::filesystem::path web_root;                         // dashboard files; empty = the source tree's web/
  std::int64_t heartbeat_interval_ms = 5000;
  std::int64_t lease_timeout_ms = 30000;
  // How long the workers of a gang (a job spanning workers) may hold their slots for it while it forms before
  // the gang is dissolved, so that two half-formed gangs never wait on each other for ever.
  std::int64_t gang_wait_ms = 120000;
  // Security (README "Security"): TLS files for gRPC and HTTP; the client CA asks workers for certificates.
  std::string tls_cert;
  std::string tls_key;
  std::string tls_client_ca;
  bool insecure_no_auth = false;  // no tokens: allowed only when every listen address is loopback
  // Live workers one worker token may have registered at once (a heartbeat within the lease timeout): a leaked
  // or buggy token cannot fill the workers table (docs/security.md). Re-registering a known worker id is never
  // refused.
  std::int64_t max_workers_per_token = 256;
  // Points in an HTTP metrics answer without max_points, over all its series (not a flag; tests lower it).
  std::size_t http_max_full_series_points = limits::kMaxFullSeriesPoints;
  // Open ReportMetrics streams from one client address: workers behind one NAT address share it.
  std::size_t max_metric_streams_per_address = limits::kMaxMetricStreamsPerClient;
  // Open ReportMetrics streams in all (not a flag: the server's thread quota is sized for the default; tests
  // lower it).
  std::size_t max_metric_streams = limits::kMaxMetricStreams;
  // A ReportMetrics stream that sends nothing for this long is ended (not a flag; tests lower it).
  std::int64_t metric_stream_idle_ms = limits::kMetricStreamIdleMs;
};

}  // namespace gammalab
