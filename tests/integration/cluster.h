#pragma once
// A real gammalab deployment for tests: gammalab-server and gammalab-worker processes on loopback, a
// temporary directory with the SQLite file, the shared root and the data, and the real CLI. It makes a user
// and a worker token with the real `gammalab-server token create` first: workers start with the worker token
// and cli() runs with the user token (each from a file, as a deployment would).
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "worker/child_process.h"

namespace gammalab::testing {

std::filesystem::path binary(const std::string& relative);  // under the build directory

// How to start a worker beyond the defaults every test wants.
struct WorkerSpec {
  int slots = 1;
  std::string gpus;
  std::filesystem::path trainer;         // default: the built gammalab-train
  std::vector<std::string> extra_args;   // e.g. {"--health", "127.0.0.1:0"}
  std::filesystem::path data_dir;        // default: the cluster's data_dir()
};

struct CliResult {
  int exit_code = -1;
  std::string out;
};

class Cluster {
 public:
  explicit Cluster(const std::string& name);
  ~Cluster();  // kills everything, removes the directory unless the test failed

  // Extra flags for every coordinator and worker started from then on (e.g. {"--log-format", "json"}).
  std::vector<std::string> server_flags;
  std::vector<std::string> worker_flags;

  // Starts (or restarts) the coordinator on the same database file and gRPC port.
  void start_server(std::int64_t heartbeat_ms = 200, std::int64_t lease_timeout_ms = 3000);
  void kill_server(int sig = 9);
  int start_worker(int slots = 1, const std::string& gpus = "");  // returns its index
  int start_worker(const WorkerSpec& spec);
  std::optional<std::string> worker_line(int index);  // the next line the worker printed on stdout
  void kill_worker(int index, int sig = 9);
  int wait_worker(int index);  // waits for a worker to exit; returns its exit code

  CliResult cli(const std::vector<std::string>& args);
  std::string address() const { return "127.0.0.1:" + std::to_string(grpc_port_); }
  std::string database() const { return (dir_ / "gammalab.db").string(); }
  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path data_dir() const { return dir_ / "data"; }
  std::filesystem::path shared_root() const { return dir_ / "shared"; }
  int http_port() const { return http_port_; }
  std::filesystem::path user_token_file() const { return dir_ / "user.token"; }
  std::filesystem::path worker_token_file() const { return dir_ / "worker.token"; }
  // A new token of `role` ("user" | "worker" | "metrics") made with `gammalab-server token create`.
  std::string create_token(const std::string& role);

  // Writes a byte-level train/val shard pair under data_dir()/NAME from generated English-like text,
  // through the real `gammalab-train prepare`.
  void prepare_data(const std::string& name, std::size_t bytes = 200000);
  // Writes a sweep file into the cluster directory and returns its path.
  std::filesystem::path write_file(const std::string& name, const std::string& text);

 private:
  std::filesystem::path dir_;
  std::unique_ptr<ChildProcess> server_;
  std::vector<std::unique_ptr<ChildProcess>> workers_;
  int grpc_port_ = 0;
  int http_port_ = 0;
};

// train/loss of the config the cluster stored for `job_id`, trained from step 0 by gammalab-train alone (no
// worker, no checkpoints): what a job's stored curve must equal, bit for bit, however it was interrupted.
std::map<std::int64_t, double> standalone_curve(Cluster& cluster, std::int64_t job_id);
// train/loss of every metric line a child prints until it exits (which must be with status 0).
std::map<std::int64_t, double> train_loss_curve(ChildProcess& child);

// A process as /proc shows it now. processes() lists every one it can read; one that ends while it is read
// (its files then fail with ESRCH) is left out rather than thrown over.
struct ProcessInfo {
  int pid = 0;
  std::string cmdline;      // its arguments, joined by spaces
  std::string environment;  // NAME=value entries, each followed by a NUL
  bool zombie = false;      // ended, not yet reaped
};
std::vector<ProcessInfo> processes();

// Waits until `done()` or the timeout (seconds); returns done().
bool wait_until(const std::function<bool()>& done, double timeout_s);

// A small sweep over the test corpus (the cluster's data dir holds d/train.bin and d/val.bin): tiny-0.03m on
// one thread, logging every 5 and evaluating every 50 steps, one job per variant of `variants` (a YAML list);
// ckpt_every as given, or the default when absent.
std::string tiny_sweep_yaml(const std::string& name, int steps, const std::string& variants = "[baseline]",
                            std::optional<int> ckpt_every = std::nullopt);

}  // namespace gammalab::testing
