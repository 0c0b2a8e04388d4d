// gammalab-server: the coordinator. gRPC for the CLI and workers, HTTP for the dashboard, SQLite for state.
#include <grpcpp/grpcpp.h>
#include <spdlog/spdlog.h>

#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <filesystem>
#include <utility>
#include <vector>

#include "core/config_paths.h"
#include "core/shared_root_claim.h"
#include "core/scaling/fit.h"
#include "log/log_format.h"
#include "server/backup.h"
#include "server/coordinator_service.h"
#include "server/database_lock.h"
#include "server/grpc_auth.h"
#include "server/grpc_listener.h"
#include "server/alert_center.h"
#include "server/http_api.h"
#include "server/lease_reaper.h"
#include "server/prometheus_metrics.h"
#include "server/loopback.h"
#include "server/token_commands.h"
#include "server/refitter.h"
#include "server/tune_stage.h"
#include "server/worker_gateway_service.h"

namespace {
std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop = true; }

// Every HTTP connection, gRPC stream and the database take a file descriptor, and the usual soft limit (1,024)
// is below the HTTP server's own bound on connections (server/http_api.cpp): raised to the hard limit, which
// the administrator sets (systemd's LimitNOFILE=).
void raise_open_file_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  const rlim_t was = limit.rlim_cur;
  limit.rlim_cur = limit.rlim_max;
  if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) spdlog::warn("open-file limit stays at {}", was);
}

// The listen addresses that others than this machine's users can reach, with their flags.
std::vector<std::pair<const char*, std::string>> reachable_addresses(const gammalab::ServerOptions& options) {
  std::vector<std::pair<const char*, std::string>> reachable;
  for (const auto& [flag, address] : {std::pair<const char*, std::string>{"--listen", options.grpc_address},
                                      std::pair<const char*, std::string>{"--http", options.http_address}}) {
    if (!address.empty() && !gammalab::is_loopback_listen_address(address)) reachable.emplace_back(flag, address);
  }
  return reachable;
}

// Tokens are bearer credentials: on a plaintext listener that others can reach, anyone on the path reads them.
void warn_if_tokens_travel_in_plaintext(const gammalab::ServerOptions& options) {
  if (options.insecure_no_auth || !options.tls_cert.empty()) return;
  for (const auto& [flag, address] : reachable_addresses(options)) {
    spdlog::warn("{} {}: tokens and data travel unencrypted on an address others can reach; give --tls-cert and "
                 "--tls-key (docs/security.md), or listen on a loopback address behind a TLS proxy",
                 flag, address);
  }
}
}  // namespace

int main(int argc, char** argv) {
  gammalab::ServerOptions options;
  CLI::App app{"gammalab-server: the gammalab coordinator"};
  app.add_option("--listen", options.grpc_address, "gRPC address (HOST:PORT)")->capture_default_str();
  app.add_option("--http", options.http_address, "dashboard address (HOST:PORT; empty = none)")->capture_default_str();
  app.add_option("--db", options.database, "SQLite database file")->capture_default_str();
  app.add_option("--shared-root", options.shared_root, "directory shared with workers (logs, checkpoints)")
      ->capture_default_str();
  app.add_option("--web-root", options.web_root, "dashboard files (default: share/gammalab/web beside an installed binary, else the source tree's web/)");
  app.add_option("--max-workers-per-token", options.max_workers_per_token,
                 "live workers one worker token may register at once; past it a new registration is refused")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 20));
  app.add_option("--max-metric-streams-per-address", options.max_metric_streams_per_address,
                 "open metric streams from one client address (workers behind one NAT address share it); each "
                 "token holds at most a fair share of the " +
                     std::to_string(gammalab::limits::kMaxMetricStreams) + " in all")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, gammalab::limits::kMaxMetricStreams));
  app.add_option("--heartbeat-interval-ms", options.heartbeat_interval_ms, "worker heartbeat interval")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--lease-timeout-ms", options.lease_timeout_ms,
                 "a job's lease expires this long after the last "
                 "heartbeat")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--gang-wait-ms", options.gang_wait_ms,
                 "how long the workers of a job that spans workers hold their slots for it while it gathers "
                 "them, before they are let go (docs/distributed.md)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  // Alerts (docs/alerts.md): the two rules with a threshold, and where else they go.
  gammalab::AlertOptions alert;
  double stall_after_s = static_cast<double>(alert.stall_after_ms) / 1000;
  app.add_option("--alert-loss-spike", alert.loss_spike_ratio,
                 "raise a loss_spike alert when train/loss rises above this many times the mean of its previous "
                 "16 points (0: never)")
      ->capture_default_str();
  app.add_option("--alert-stall-s", stall_after_s,
                 "raise a stalled alert when a running job reports no new step for this many seconds (0: never)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 365.0 * 86400));
  app.add_option("--alert-webhook", alert.webhook,
                 "POST each alert as JSON to this http:// or https:// URL (its \"text\" field is what chat webhooks "
                 "show)");
  gammalab::RefitOptions refit;
  bool no_refit = false;
  app.add_flag("--no-refit", no_refit, "do not refit scaling laws when jobs finish");
  app.add_option("--fit-bootstrap", refit.bootstrap, "bootstrap resamples of each automatic refit")
      ->capture_default_str();
  app.add_option("--fit-group-by", refit.group_by, "config field that groups runs in automatic refits")
      ->capture_default_str();
  std::string log_format = "text";
  app.add_option("--log-format", log_format, "stderr log: text, or json (one JSON object per line)")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "json"}));
  gammalab::BackupOptions backup;
  CLI::App* backup_command = app.add_subcommand("backup", "copy the database while the server runs (docs/deploy.md)");
  backup_command->fallthrough();  // --log-format may come after the subcommand too
  backup_command->add_option("DEST", backup.destination, "the copy: a new file")->required();
  backup_command->add_option("--db", backup.database, "the live database")->required();
  backup_command->add_option("--pages-per-step", backup.pages_per_step, "pages copied per step")->capture_default_str();
  backup_command->add_option("--pause-ms", backup.pause_ms, "pause between steps")->capture_default_str();
  app.add_option("--tls-cert", options.tls_cert, "TLS certificate chain (PEM) for gRPC and HTTP");
  app.add_option("--tls-key", options.tls_key, "the certificate's private key (PEM)");
  app.add_option("--tls-client-ca", options.tls_client_ca,
                 "CA (PEM) whose client certificates workers must present (mutual TLS)");
  app.add_flag("--insecure-no-auth", options.insecure_no_auth,
               "accept calls without tokens (only when every listen address is loopback)");
  gammalab::TokenCommand token_command;
  gammalab::add_token_commands(app, token_command);
  CLI11_PARSE(app, argc, argv);
  if (token_command.requested) return gammalab::run_token_command(token_command, options.database);
  refit.enabled = !no_refit;
  alert.stall_after_ms = static_cast<std::int64_t>(stall_after_s * 1000);
  if (const std::string why = gammalab::alert_options_error(alert); !why.empty()) {
    std::fprintf(stderr, "gammalab-server: %s\n", why.c_str());
    return 2;
  }
  gammalab::quiet_solver_logging();
  gammalab::install_logger("gammalab-server", *gammalab::parse_log_format(log_format));  // stdout: machine lines
  if (*backup_command) return gammalab::run_backup_command(backup);
  if (options.web_root.empty()) options.web_root = gammalab::dashboard_files_dir();

  // Before the listening line: a supervisor may send SIGTERM the moment it reads it, and the default action
  // would end the process without the orderly shutdown below.
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  try {
    if (options.insecure_no_auth) {
      for (const auto& [flag, address] : reachable_addresses(options)) {
        spdlog::critical("--insecure-no-auth: refused, {} {} is not a loopback address; anyone who can reach it "
                         "would get in without a token (create tokens: gammalab-server token create)",
                         flag, address);
        return 2;
      }
      spdlog::warn("*** --insecure-no-auth: NO AUTHENTICATION. Anyone on this machine can submit, cancel and "
                   "act as any worker. For local experiments only. ***");
    }
    raise_open_file_limit();
    warn_if_tokens_travel_in_plaintext(options);
    const gammalab::DatabaseLock database_lock(options.database);
    std::filesystem::create_directories(options.shared_root);
    gammalab::Store store(options.database);
    // Before anything is served: a root that holds another database's jobs would mix their files with ours.
    if (const std::string why = gammalab::shared_root::claim(gammalab::shared_root::Dir::open(options.shared_root),
                                                             store.database_uid());
        !why.empty()) {
      spdlog::critical("{}", why);
      return 1;
    }
    gammalab::observe_sqlite_writes(store);
    std::shared_ptr<gammalab::Tokens> tokens;
    if (!options.insecure_no_auth) tokens = std::make_shared<gammalab::Tokens>(options.database);
    gammalab::CoordinatorService coordinator(store, options);
    gammalab::AlertCenter alerts(store, alert);
    gammalab::WorkerGatewayService gateway(store, options, &alerts);
    gammalab::LeaseReaper reaper(store, options.lease_timeout_ms, options.heartbeat_interval_ms);
    gammalab::Refitter refitter(store, refit);
    gammalab::TuneStage tune_stages(store, /*background=*/true);

    int port = 0;
    std::unique_ptr<grpc::Server> server =
        gammalab::start_grpc_server("--listen", options.grpc_address, {&coordinator, &gateway}, port,
                                    gammalab::grpc_server_credentials(options, tokens));
    std::unique_ptr<gammalab::HttpApi> http;
    if (!options.http_address.empty()) http = std::make_unique<gammalab::HttpApi>(store, options, tokens.get());
    // One machine-readable line so scripts and tests can find the ports (useful with port 0).
    std::printf("{\"event\":\"listening\",\"grpc_port\":%d,\"http_port\":%d}\n", port, http ? http->port() : 0);
    std::fflush(stdout);
    spdlog::info("coordinator on {} (gRPC port {}), dashboard on port {}, database {}", options.grpc_address, port,
                 http ? http->port() : 0, options.database);

    while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    spdlog::info("shutting down");
    http.reset();
    server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  } catch (const std::exception& e) {
    spdlog::critical("{}", e.what());
    return 1;
  }
  return 0;
}
