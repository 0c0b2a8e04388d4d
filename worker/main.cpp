// gammalab-worker: leases jobs from the coordinator and runs each as a gammalab-train child process.
#include <absl/strings/str_split.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "log/log_format.h"
#include "worker/health_server.h"
#include "worker/stop_signals.h"
#include "worker/worker_daemon.h"

namespace {

// gammalab-train next to this executable (an install), or in trainer/ beside it (the build tree).
std::filesystem::path default_trainer() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "gammalab-train";
  for (const auto& candidate :
       {self.parent_path() / "gammalab-train", self.parent_path() / "trainer" / "gammalab-train"}) {
    if (std::filesystem::exists(candidate)) return candidate;
  }
  return self.parent_path() / "gammalab-train";
}
}  // namespace

int main(int argc, char** argv) {
  gammalab::WorkerOptions options;
  std::string gpus;
  CLI::App app{"gammalab-worker: runs gammalab jobs leased from the coordinator"};
  app.add_option("--coordinator", options.coordinator, "coordinator address (HOST:PORT)")->capture_default_str();
  app.add_option("--slots", options.slots, "jobs to run at once")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--gpus", gpus, "comma-separated device ids shared out among slots (CUDA_VISIBLE_DEVICES)");
  app.add_option("--trainer", options.trainer,
                 "gammalab-train executable (default: next to this one, or in trainer/ beside it)");
  app.add_option("--shared-root", options.shared_root, "directory shared with the coordinator (logs, checkpoints)")
      ->capture_default_str();
  app.add_option("--data-dir", options.data_dir, "the directory every job's data paths are under (default: $GAMMALAB_DATA_DIR, else the current directory)");
  app.add_option("--hostname", options.hostname, "name shown for this worker");
  app.add_option("--advertise-address", options.advertise_address,
                 "host or address where the other workers of a job spanning workers reach this one's rendezvous "
                 "store (default: this machine's host name)");
  app.add_option("--cancel-grace-ms", options.cancel_grace_ms, "SIGTERM, then SIGKILL after this long")
      ->capture_default_str();
  app.add_option("--max-program-log-bytes", options.max_program_log_bytes,
                 "the most a command job's program writes to its job's log in one attempt (stdout and stderr); "
                 "the rest is dropped, its metric lines still stored")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{4096}, std::int64_t{1} << 40));
  app.add_option("--drain-grace-ms", options.drain_grace_ms,
                 "on SIGTERM, how long each trainer may take to checkpoint and exit before it is killed")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--health", options.health_address,
                 "serve /healthz and /readyz on HOST:PORT (port 0: any free port, printed on stdout); off if unset");
  app.add_option("--poll-interval-ms", options.poll_interval_ms, "how often an idle slot asks for work")
      ->capture_default_str();
  app.add_option("--nvml-library", options.nvml_library,
                 "NVML, for each job's sys/gpu_util and sys/gpu_memory_bytes with --gpus: the driver's library or a "
                 "path; none: no GPU metrics")
      ->capture_default_str();
  app.add_option("--system-metrics-s", options.system_metrics_s,
                 "report each job's CPU (sys/cpu_cores) and resident memory (sys/memory_bytes) at most this often, "
                 "at the step of its metric lines (0: never)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 86400.0));
  std::string log_format = "text";
  app.add_option("--log-format", log_format, "stderr log: text, or json (one JSON object per line)")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "json"}));
  std::string token_file, tls_ca, tls_cert, tls_key;
  app.add_option("--token-file", token_file, "file holding a worker token (default: $GAMMALAB_TOKEN)");
  app.add_option("--tls-ca", tls_ca, "connect with TLS, trusting this CA certificate (PEM)");
  app.add_option("--tls-cert", tls_cert, "client certificate (PEM) for a coordinator that asks for one");
  app.add_option("--tls-key", tls_key, "the client certificate's private key (PEM)");
  CLI11_PARSE(app, argc, argv);
  gammalab::install_logger("gammalab-worker", *gammalab::parse_log_format(log_format));  // stdout: machine lines
  try {
    options.security = gammalab::client_security(token_file, tls_ca, tls_cert, tls_key);
  } catch (const std::exception& e) {
    spdlog::critical("{}", e.what());
    return 2;
  }
  // Read once, kept in memory: trainers (every job's code and data loaders) inherit this environment, and none
  // of them needs the worker's credential.
  ::unsetenv(gammalab::kTokenEnv);
  if (options.security.token.empty()) {
    spdlog::warn("no token (--token-file or ${}): only a coordinator started with --insecure-no-auth accepts this "
                 "worker",
                 gammalab::kTokenEnv);
  }
  options.gpus = absl::StrSplit(gpus, ',', absl::SkipEmpty());
  if (options.trainer.empty()) options.trainer = default_trainer();
  if (!std::filesystem::exists(options.trainer)) {
    spdlog::critical("--trainer: {} does not exist", options.trainer.string());
    return 2;
  }
  options.trainer = std::filesystem::absolute(options.trainer);
  options.shared_root = std::filesystem::absolute(options.shared_root);
  // Every job's data paths are confined to a data directory (core/data_path.h), so there always is one.
  if (options.data_dir.empty()) {
    const char* env = std::getenv("GAMMALAB_DATA_DIR");
    options.data_dir = env != nullptr && *env != '\0' ? std::filesystem::path(env) : std::filesystem::current_path();
  }
  options.data_dir = std::filesystem::absolute(options.data_dir);

  gammalab::WorkerDaemon daemon(options);
  gammalab::install_stop_signals(daemon);
  std::signal(SIGPIPE, SIG_IGN);
  std::unique_ptr<gammalab::HealthServer> health;
  if (!options.health_address.empty()) {
    try {
      health = std::make_unique<gammalab::HealthServer>(options.health_address, [&daemon] { return daemon.health(); });
    } catch (const std::exception& e) {
      spdlog::critical("{}", e.what());
      return 2;
    }
    // One machine-readable line so scripts and tests can find the port (useful with port 0).
    std::printf("{\"event\":\"health\",\"health_port\":%d}\n", health->port());
    std::fflush(stdout);
    spdlog::info("health endpoints on {} (port {})", options.health_address, health->port());
  }
  return daemon.run();
}
