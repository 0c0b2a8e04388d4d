#include "tests/integration/cluster.h"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <stdexcept>
#include <thread>

#include "core/metric.h"
#include "core/metric_names.h"

namespace gammalab::testing {

std::filesystem::path binary(const std::string& relative) {
  return std::filesystem::path(GAMMALAB_BINARY_DIR) / relative;
}

namespace {
// A /proc file whole, by read(2): nullopt when it cannot be read (the process ended meanwhile).
std::optional<std::string> read_proc_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text;
  char chunk[4096];
  ssize_t n;
  while ((n = ::read(fd, chunk, sizeof chunk)) > 0) text.append(chunk, static_cast<std::size_t>(n));
  ::close(fd);
  if (n < 0) return std::nullopt;
  return text;
}
}  // namespace

std::vector<ProcessInfo> processes() {
  std::vector<ProcessInfo> found;
  std::error_code error;
  for (std::filesystem::directory_iterator it("/proc", error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto cmdline = read_proc_file(it->path() / "cmdline");
    const auto environment = read_proc_file(it->path() / "environ");
    const auto stat = read_proc_file(it->path() / "stat");
    if (!cmdline || !stat) continue;
    ProcessInfo p;
    p.pid = std::stoi(name);
    p.cmdline = *cmdline;
    std::replace(p.cmdline.begin(), p.cmdline.end(), '\0', ' ');
    p.environment = environment.value_or("");
    p.zombie = stat->find(") Z ") != std::string::npos;
    found.push_back(std::move(p));
  }
  return found;
}

bool wait_until(const std::function<bool()>& done, double timeout_s) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return done();
}

Cluster::Cluster(const std::string& name) {
  std::random_device rd;
  dir_ = std::filesystem::temp_directory_path() / ("gammalab-test-" + name + "-" + std::to_string(rd()));
  std::filesystem::create_directories(dir_);
  std::filesystem::create_directories(data_dir());
  std::filesystem::create_directories(shared_root());
  std::ofstream(user_token_file()) << create_token("user") << "\n";
  std::ofstream(worker_token_file()) << create_token("worker") << "\n";
}

std::string Cluster::create_token(const std::string& role) {
  ChildProcess create({binary("server/gammalab-server").string(), "token", "create", "--role", role, "--name",
                       "test " + role, "--db", database()},
                      {}, (dir_ / "token.log").string());
  const auto line = create.read_line();
  if (create.wait() != 0 || !line) throw std::runtime_error("gammalab-server token create failed; see token.log");
  return *line;
}

Cluster::~Cluster() {
  workers_.clear();  // SIGKILL and reap
  server_.reset();
  if (!::testing::Test::HasFailure())
    std::filesystem::remove_all(dir_);
  else
    std::fprintf(stderr, "cluster files kept in %s\n", dir_.c_str());
}

void Cluster::start_server(std::int64_t heartbeat_ms, std::int64_t lease_timeout_ms) {
  const std::string listen = "127.0.0.1:" + std::to_string(grpc_port_);  // port 0 the first time: any free port
  std::vector<std::string> argv{binary("server/gammalab-server").string(),
                                "--listen",
                                listen,
                                "--http",
                                "127.0.0.1:0",
                                "--db",
                                database(),
                                "--shared-root",
                                shared_root().string(),
                                "--heartbeat-interval-ms",
                                std::to_string(heartbeat_ms),
                                "--lease-timeout-ms",
                                std::to_string(lease_timeout_ms)};
  argv.insert(argv.end(), server_flags.begin(), server_flags.end());
  server_ = std::make_unique<ChildProcess>(argv, std::vector<std::string>{}, (dir_ / "server.log").string());
  auto line = server_->read_line();
  if (!line) throw std::runtime_error("gammalab-server did not start; see " + (dir_ / "server.log").string());
  const auto j = nlohmann::json::parse(*line);
  grpc_port_ = j.at("grpc_port").get<int>();
  http_port_ = j.at("http_port").get<int>();
}

void Cluster::kill_server(int sig) {
  server_->signal(sig);
  server_->wait();
  server_.reset();
}

int Cluster::start_worker(int slots, const std::string& gpus) { return start_worker(WorkerSpec{slots, gpus, {}, {}, {}}); }

int Cluster::start_worker(const WorkerSpec& spec) {
  const int index = static_cast<int>(workers_.size());
  const auto trainer = spec.trainer.empty() ? binary("worker/trainer/gammalab-train") : spec.trainer;
  std::vector<std::string> argv{binary("worker/gammalab-worker").string(),
                                "--coordinator",
                                address(),
                                "--slots",
                                std::to_string(spec.slots),
                                "--trainer",
                                trainer.string(),
                                "--shared-root",
                                shared_root().string(),
                                "--data-dir",
                                spec.data_dir.empty() ? data_dir().string() : spec.data_dir.string(),
                                "--hostname",
                                "test-worker-" + std::to_string(index),
                                "--poll-interval-ms",
                                "200",
                                "--cancel-grace-ms",
                                "3000",
                                "--token-file",
                                worker_token_file().string()};
  if (!spec.gpus.empty()) argv.insert(argv.end(), {"--gpus", spec.gpus});
  argv.insert(argv.end(), worker_flags.begin(), worker_flags.end());
  argv.insert(argv.end(), spec.extra_args.begin(), spec.extra_args.end());
  workers_.push_back(std::make_unique<ChildProcess>(argv, std::vector<std::string>{},
                                                    (dir_ / ("worker-" + std::to_string(index) + ".log")).string()));
  return index;
}

std::optional<std::string> Cluster::worker_line(int index) {
  return workers_.at(static_cast<std::size_t>(index))->read_line();
}

void Cluster::kill_worker(int index, int sig) { workers_.at(static_cast<std::size_t>(index))->signal(sig); }

int Cluster::wait_worker(int index) { return workers_.at(static_cast<std::size_t>(index))->wait(); }

CliResult Cluster::cli(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {binary("cli/gammalab").string(), "--server", address(), "--token-file",
                                   user_token_file().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  ChildProcess process(argv, {}, (dir_ / "cli.log").string());
  CliResult result;
  while (auto line = process.read_line()) result.out += *line + "\n";
  result.exit_code = process.wait();
  return result;
}

std::filesystem::path Cluster::write_file(const std::string& name, const std::string& text) {
  const auto path = dir_ / name;
  std::ofstream(path) << text;
  return path;
}

void Cluster::prepare_data(const std::string& name, std::size_t bytes) {
  // Generated sentences over a small vocabulary: learnable structure, so the loss must fall.
  static const std::vector<std::string> subjects = {"the model", "a researcher", "the worker", "our team", "the loss"};
  static const std::vector<std::string> verbs = {"trains", "measures", "reports", "improves", "scales"};
  static const std::vector<std::string> objects = {"the scale vectors", "every layer", "the learning rate",
                                                   "a small sweep", "the norms"};
  std::mt19937 rng(7);
  std::string text;
  while (text.size() < bytes) {
    text += subjects[rng() % subjects.size()] + " " + verbs[rng() % verbs.size()] + " " +
            objects[rng() % objects.size()] + ". ";
  }
  const auto input = write_file(name + ".txt", text);
  ChildProcess prepare({binary("worker/trainer/gammalab-train").string(), "prepare", "--input", input.string(), "--out",
                        (data_dir() / name).string(), "--tokenizer", "byte", "--val-fraction", "0.05"},
                       {}, (dir_ / "prepare.log").string());
  while (prepare.read_line()) {
  }
  if (prepare.wait() != 0) throw std::runtime_error("gammalab-train prepare failed; see prepare.log");
}

std::map<std::int64_t, double> standalone_curve(Cluster& cluster, std::int64_t job_id) {
  const auto config = cluster.shared_root() / "jobs" / std::to_string(job_id) / "config.json";
  ChildProcess trainer({binary("worker/trainer/gammalab-train").string(), "run", "--config", config.string(),
                        "--data-dir", cluster.data_dir().string()},
                       {}, (cluster.dir() / ("standalone-" + std::to_string(job_id) + ".log")).string());
  return train_loss_curve(trainer);
}

std::map<std::int64_t, double> train_loss_curve(ChildProcess& child) {
  std::map<std::int64_t, double> curve;
  while (auto line = child.read_line()) {
    if (auto points = parse_metric_line(*line)) {
      for (const auto& p : *points) {
        if (p.name == metric_names::kTrainLoss) curve[p.step] = p.value;
      }
    }
  }
  EXPECT_EQ(child.wait(), 0);
  return curve;
}

std::string tiny_sweep_yaml(const std::string& name, int steps, const std::string& variants,
                            std::optional<int> ckpt_every) {
  std::string yaml = "name: " + name +
                     "\nbase:\n"
                     "  model: {preset: tiny-0.03m}\n"
                     "  optim: {lr: 0.01}\n"
                     "  data: {train: d/train.bin, val: d/val.bin}\n"
                     "  batch_tokens: 1024\n"
                     "  steps: " + std::to_string(steps) +
                     "\n  log_every: 5\n"
                     "  eval_every: 50\n";
  if (ckpt_every) yaml += "  ckpt_every: " + std::to_string(*ckpt_every) + "\n";
  return yaml + "  threads: 1\naxes:\n  grid:\n    scale.variant: " + variants + "\n";
}

}  // namespace gammalab::testing
