#include "worker/worker_daemon.h"

#include <absl/strings/str_join.h>
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <streambuf>

#include "core/exit_codes.h"
#include "core/job_command.h"
#include "core/limits.h"
#include "core/metric.h"
#include "core/metric_replay.h"
#include "core/rendezvous_line.h"
#include "core/shared_root.h"
#include "core/shared_root_claim.h"
#include "core/shared_root_files.h"
#include "core/uid.h"
#include "core/utf8_text.h"
#include "worker/attempt_error.h"
#include "worker/process_usage.h"
#include "worker/program_job.h"

namespace gammalab {

namespace {

// What the lease says the coordinator stores of the job's metrics (core/metric_replay.h), checked before a
// trainer or a program's contract is told; nothing stored when the lease says nothing.
StoredMetrics leased_stored(const v1::LeaseJobResponse& lease) {
  if (!lease.has_stored()) return {};
  StoredMetrics stored{lease.stored().last_step(),
                       {lease.stored().names_at_last_step().begin(), lease.stored().names_at_last_step().end()}};
  if (const std::string error = stored_metrics_error(stored); !error.empty()) {
    throw std::runtime_error("lease: " + error);
  }
  return stored;
}

std::unique_ptr<grpc::ClientContext> context_with_deadline(std::chrono::milliseconds timeout) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + timeout);
  return context;
}

std::string this_hostname() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return utf8_valid(name);  // a proto string
}

// How much of one attempt's part of the log is read to say why it failed: its start (where the reason is)
// and its end, never the whole of a long run's log.
constexpr std::size_t kAttemptLogHeadBytes = 64 * 1024;
constexpr std::size_t kAttemptLogTailBytes = 192 * 1024;

// Why this attempt failed, in its own words (worker/attempt_error.h): its part of the log from `from`, where
// its header line starts. Read without following a link (core/shared_root_files.h); a link found there now
// is named instead.
std::string attempt_error(const shared_root::Dir& root, const std::filesystem::path& log, off_t from) {
  std::optional<shared_root::Fd> file;
  try {
    file = root.open_read(log);
  } catch (const shared_root::Refused& e) {
    return e.what();
  }
  if (!file) return "";
  const off_t size = ::lseek(file->get(), 0, SEEK_END);
  if (size < 0 || size < from) return "";
  auto read_at = [&](off_t at, std::size_t bytes) {
    std::string text(bytes, '\0');
    const ssize_t n = ::pread(file->get(), text.data(), text.size(), at);
    text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    return text;
  };
  const auto length = static_cast<std::size_t>(size - from);
  if (length <= kAttemptLogHeadBytes + kAttemptLogTailBytes) return attempt_error_excerpt(read_at(from, length));
  // The cut lines at both seams are partial: the excerpt keeps whole lines of each end where it can.
  return attempt_error_excerpt(read_at(from, kAttemptLogHeadBytes) + "\n" +
                               read_at(size - static_cast<off_t>(kAttemptLogTailBytes), kAttemptLogTailBytes));
}

// The job's log as a stream over the descriptor opened for it (O_APPEND, shared with the trainer's stderr).
// Buffered like the file stream it replaces: flushed when full, by std::endl and by flush().
class LogBuffer : public std::streambuf {
 public:
  explicit LogBuffer(int fd) : fd_(fd) { setp(buffer_, buffer_ + sizeof buffer_); }
  ~LogBuffer() override { sync(); }

 protected:
  int_type overflow(int_type c) override {
    if (sync() != 0) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override {
    for (const char* p = pbase(); p < pptr();) {
      const ssize_t n = ::write(fd_, p, static_cast<std::size_t>(pptr() - p));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return -1;
      p += n;
    }
    setp(buffer_, buffer_ + sizeof buffer_);
    return 0;
  }

 private:
  int fd_;
  char buffer_[8192];
};

// Tells the coordinator that this attempt's trainer has started (the job goes from leased to running). For a
// job on one worker one try is enough: should it be lost, the job shows as leased until its outcome is
// reported, and nothing else changes. Node 0 of a job that spans workers also says where its store is
// (`rendezvous`); the other nodes wait for that, so relay_trainer_output retries it. Returns false when the
// coordinator could not be reached (worth another try), true when it answered, whatever it said.
bool report_started(v1::WorkerGateway::Stub& stub, const std::string& worker_id, const std::string& job_id,
                    int attempt, const std::string& rendezvous = {}) {
  v1::StartJobRequest request;
  request.set_worker_id(worker_id);
  request.set_job_id(job_id);
  request.set_attempt(attempt);
  request.set_rendezvous(rendezvous);
  v1::StartJobResponse response;
  auto context = context_with_deadline(std::chrono::seconds(5));
  const grpc::Status status = stub.StartJob(context.get(), request, &response);
  if (!status.ok()) spdlog::warn("job {}: start not reported ({})", job_id, status.error_message());
  return status.error_code() != grpc::StatusCode::UNAVAILABLE &&
         status.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED;
}

// What is wrong with a lease's gang fields (nodes, node, rendezvous), or empty: they become trainer flags.
std::string gang_problem(const v1::LeaseJobResponse& lease, HostPort& rendezvous) {
  const int nodes = std::max(1, lease.nodes());
  if (nodes > limits::kMaxNodes) {
    return "lease: nodes must be in [1, " + std::to_string(limits::kMaxNodes) + "], got " + std::to_string(nodes);
  }
  if (lease.node() < 0 || lease.node() >= nodes) {
    return "lease: node must be in [0, " + std::to_string(nodes - 1) + "], got " + std::to_string(lease.node());
  }
  if (lease.node() == 0) return "";
  auto endpoint = parse_host_port(lease.rendezvous(), "lease: rendezvous");
  if (auto* why = std::get_if<std::string>(&endpoint)) return *why;
  rendezvous = std::get<HostPort>(std::move(endpoint));
  return "";
}

}  // namespace

WorkerDaemon::WorkerDaemon(WorkerOptions options) : options_(std::move(options)) {
  if (options_.hostname.empty()) options_.hostname = this_hostname();
  // The machine's own name, not --hostname (a display name such as "node7:slurm-123" that need not resolve).
  if (options_.advertise_address.empty()) options_.advertise_address = this_hostname();
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 200);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, static_cast<int>(limits::kWorkerMaxReconnectBackoffMs));
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 200);  // the shortest connect attempt (default 20 s): reconnect soon after a restart
  channel_ = open_channel(options_.coordinator, options_.security, args);
  stub_ = v1::WorkerGateway::NewStub(channel_);
  relay_ = std::make_unique<MetricRelay>(
      stub_, [this](const std::string& job_id, int attempt, std::int64_t step) { tell_stored(job_id, attempt, step); },
      [this](const std::string& job_id, int attempt, const std::string& why) { tell_refused(job_id, attempt, why); });
  if (!options_.gpus.empty() && options_.system_metrics_s > 0 && options_.nvml_library != "none") {
    std::string why;
    nvml_ = Nvml::open(options_.nvml_library, why);
    if (nvml_) {
      spdlog::info("reading the GPUs' use through NVML ({})", options_.nvml_library);
    } else {
      spdlog::warn("no GPU metrics (sys/gpu_util, sys/gpu_memory_bytes): {}", why);
    }
  }
}

// The relay first: its thread calls tell_stored, which reads jobs_, until it is joined.
WorkerDaemon::~WorkerDaemon() { relay_.reset(); }

void WorkerDaemon::tell_stored(const std::string& job_id, int attempt, std::int64_t step) {
  absl::MutexLock lock(&jobs_mutex_);
  for (const auto& job : jobs_) {
    if (job->job_id != job_id || job->attempt != attempt || job->node != 0) continue;
    absl::MutexLock child_lock(&job->mutex);
    // Advice only: a trainer that does not read it now keeps more lines in its next checkpoint, nothing worse.
    if (job->child) job->child->offer_line(std::to_string(step));
  }
}

void WorkerDaemon::tell_refused(const std::string& job_id, int attempt, const std::string& why) {
  absl::MutexLock lock(&jobs_mutex_);
  for (const auto& job : jobs_) {
    if (job->job_id == job_id && job->attempt == attempt && job->node == 0) lose_points(*job, why);
  }
}

void WorkerDaemon::lose_points(RunningJob& job, const std::string& why) {
  {
    absl::MutexLock lock(&job.mutex);
    if (!job.lost_points.empty()) return;
    job.lost_points = why;
  }
  spdlog::error("job {} attempt {}: stopped, its run can no longer be stored whole: {}", job.job_id, job.attempt,
                why);
  stop_child(job, false, std::chrono::milliseconds(options_.cancel_grace_ms));
}

bool WorkerDaemon::register_once() {
  v1::RegisterWorkerRequest request;
  request.set_hostname(options_.hostname);
  request.set_slots(options_.slots);
  for (const auto& g : options_.gpus) request.add_gpus(g);
  request.set_worker_id(worker_id());
  v1::RegisterWorkerResponse response;
  auto context = context_with_deadline(std::chrono::seconds(5));
  const grpc::Status status = stub_->RegisterWorker(context.get(), request, &response);
  connected_ = status.ok();
  if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED ||
      status.error_code() == grpc::StatusCode::PERMISSION_DENIED ||
      status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
    spdlog::error("registration refused: {} (a worker needs a worker token in --token-file or ${})",
                  status.error_message(), kTokenEnv);
  }
  if (!status.ok()) return false;
  // A coordinator that names no database (older than database uids) is taken at its word.
  if (!response.database_uid().empty()) {
    std::string why;
    try {
      why = shared_root::claim(shared_root::Dir::open(options_.shared_root, true), response.database_uid());
    } catch (const std::exception& e) {
      why = std::string("shared root: ") + e.what();
    }
    if (!why.empty()) {
      spdlog::critical("{}; this worker leases nothing and stops", why);
      foreign_shared_root_ = true;
      drain_ = true;
      return false;
    }
  }
  {
    absl::MutexLock lock(&id_mutex_);
    worker_id_ = response.worker_id();
  }
  heartbeat_interval_ms_ = std::max(50, response.heartbeat_interval_ms());
  spdlog::info("registered as worker {} ({} slots) with {}", response.worker_id(), options_.slots, options_.coordinator);
  return true;
}

std::string WorkerDaemon::worker_id() const {
  absl::MutexLock lock(&id_mutex_);
  return worker_id_;
}

WorkerHealth WorkerDaemon::health() {
  WorkerHealth health;
  health.slots_total = options_.slots;
  health.connected = connected_;
  health.draining = drain_;
  absl::MutexLock lock(&jobs_mutex_);
  for (const auto& job : jobs_) health.slots_busy += static_cast<int>(job->slots.size());
  return health;
}

std::vector<std::string> WorkerDaemon::job_devices(const std::vector<int>& slots) const {
  if (options_.gpus.empty()) return {};
  // Share the devices out: with more devices than slots each slot gets a contiguous group.
  const std::size_t per_slot =
      std::max<std::size_t>(1, options_.gpus.size() / static_cast<std::size_t>(options_.slots));
  std::vector<std::string> devices;
  for (const int slot : slots) {
    for (std::size_t i = 0; i < per_slot; ++i) {
      devices.push_back(options_.gpus[(static_cast<std::size_t>(slot) * per_slot + i) % options_.gpus.size()]);
    }
  }
  return devices;
}

std::vector<std::string> WorkerDaemon::device_env(const std::vector<int>& slots) const {
  const std::vector<std::string> devices = job_devices(slots);
  if (devices.empty()) return {};
  return {"CUDA_VISIBLE_DEVICES=" + absl::StrJoin(devices, ",")};
}

std::vector<int> WorkerDaemon::free_slots() {
  absl::MutexLock lock(&jobs_mutex_);
  std::vector<bool> used(static_cast<std::size_t>(options_.slots), false);
  for (const auto& job : jobs_) {
    for (const int slot : job->slots) used[static_cast<std::size_t>(slot)] = true;
  }
  std::vector<int> free;
  for (int s = 0; s < options_.slots; ++s) {
    if (!used[static_cast<std::size_t>(s)]) free.push_back(s);
  }
  return free;
}

void WorkerDaemon::stop_child(RunningJob& job, bool hard, std::chrono::milliseconds grace) {
  absl::MutexLock lock(&job.mutex);
  if (!job.child) return;
  job.child->signal(hard ? SIGKILL : SIGTERM);
  if (!hard) job.kill_at = std::min(job.kill_at, std::chrono::steady_clock::now() + grace);
}

void WorkerDaemon::heartbeat_loop() {
  auto next = std::chrono::steady_clock::now();
  while (!stop_heartbeats_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const auto now = std::chrono::steady_clock::now();
    {
      // Escalate stops that outlived their grace period.
      absl::MutexLock lock(&jobs_mutex_);
      for (auto& job : jobs_) {
        absl::MutexLock job_lock(&job->mutex);
        if (job->child && now >= job->kill_at) job->child->signal(SIGKILL);
      }
    }
    if (now < next) continue;
    next = now + std::chrono::milliseconds(heartbeat_interval_ms_.load());

    v1::HeartbeatRequest request;
    request.set_worker_id(worker_id());
    request.set_draining(drain_);
    {
      absl::MutexLock lock(&jobs_mutex_);
      for (const auto& job : jobs_) {
        if (job->done || job->lost) continue;
        auto* r = request.add_running();
        r->set_job_id(job->job_id);
        r->set_attempt(job->attempt);
      }
    }
    v1::HeartbeatResponse response;
    auto context = context_with_deadline(std::chrono::seconds(5));
    const grpc::Status status = stub_->Heartbeat(context.get(), request, &response);
    connected_ = status.ok() && response.known();
    if (!status.ok()) {
      spdlog::warn("heartbeat failed: {}", status.error_message());
      continue;
    }
    if (!response.known()) {
      spdlog::warn("coordinator does not know this worker; registering again");
      register_once();
      next = now;  // renew the leases right away
      continue;
    }
    absl::MutexLock lock(&jobs_mutex_);
    for (auto& job : jobs_) {
      for (const auto& id : response.cancel_job_ids()) {
        if (id == job->job_id && !job->cancel.exchange(true)) {
          spdlog::info("job {}: cancelled, stopping the trainer", id);
          stop_child(*job, false, std::chrono::milliseconds(options_.cancel_grace_ms));
        }
      }
      for (const auto& id : response.lost_job_ids()) {
        if (id == job->job_id && !job->lost.exchange(true)) {
          spdlog::warn("job {}: lease lost, killing the trainer", id);
          stop_child(*job, true, {});
        }
      }
    }
  }
}

void WorkerDaemon::report_finish(RunningJob& job, v1::JobOutcome outcome, const std::string& error, int exit_code) {
  v1::FinishJobRequest request;
  request.set_job_id(job.job_id);
  request.set_attempt(job.attempt);
  request.set_outcome(outcome);
  request.set_error(utf8_head(error, limits::kMaxJobErrorBytes));  // error may quote a path or the log
  request.set_exit_code(exit_code);
  // Keep trying while the coordinator is away: the outcome must not be lost.
  for (auto backoff = std::chrono::milliseconds(200); !job.lost;
       backoff = std::min(backoff * 2, std::chrono::milliseconds(5000))) {
    request.set_worker_id(worker_id());
    v1::FinishJobResponse response;
    auto context = context_with_deadline(std::chrono::seconds(10));
    if (stub_->FinishJob(context.get(), request, &response).ok()) {
      if (!response.accepted()) spdlog::warn("job {}: outcome not accepted (lease no longer held)", job.job_id);
      return;
    }
    std::this_thread::sleep_for(backoff);
  }
}

std::vector<std::string> WorkerDaemon::trainer_argv(const RunningJob& job, const v1::LeaseJobResponse& lease,
                                                    const std::filesystem::path& config_path,
                                                    const std::filesystem::path& ckpt_dir) const {
  const v1::Job& leased = lease.job();
  // The trainer opens both beneath the shared root, following no link below it, as the worker does.
  std::vector<std::string> argv = {options_.trainer.string(), "run",        "--config",
                                   config_path.string(),      "--ckpt-dir", ckpt_dir.string(),
                                   "--shared-root",           options_.shared_root.string()};
  if (!options_.data_dir.empty()) {
    argv.push_back("--data-dir");
    argv.push_back(options_.data_dir.string());
  }
  // The job's identity: its checkpoints carry it, and a resume takes no other's (checkpoint_resume_check.h).
  // A coordinator older than uids sends none, and the trainer then checks configs alone.
  if (!leased.uid().empty()) {
    if (!is_uid(leased.uid())) {
      throw std::runtime_error("lease: job uid '" + utf8_head(leased.uid(), 64) + "' is not 32 lowercase hex characters");
    }
    argv.insert(argv.end(), {"--job-uid", leased.uid()});
  }
  // Cooldown branches (docs/branches.md): a branch's start and a run's branch points. The start's path is our
  // own layout around a job id checked as one, never a path the coordinator sends.
  if (const std::string& start = leased.branch_start_job_id(); !start.empty()) {
    if (!shared_root::is_job_id(start) || leased.branch_step() < 1) {
      throw std::runtime_error("lease: branch start job '" + utf8_head(start, 64) + "' at step " +
                               std::to_string(leased.branch_step()) + " is not a decimal job id and a positive step");
    }
    argv.insert(argv.end(), {"--start-from", (options_.shared_root / shared_root::job_ckpt_dir(start) /
                                              shared_root::checkpoint_file_name(leased.branch_step()))
                                                 .string()});
    if (const std::string& start_uid = leased.branch_start_job_uid(); !start_uid.empty()) {
      if (!is_uid(start_uid)) {
        throw std::runtime_error("lease: branch start job uid '" + utf8_head(start_uid, 64) +
                                 "' is not 32 lowercase hex characters");
      }
      argv.insert(argv.end(), {"--start-from-uid", start_uid});
    }
  }
  // What the coordinator has of the job's metrics: a resume prints only the rest (core/metric_replay.h). Node 0
  // alone prints metric lines, and hears from the relay what gets stored as the run goes on (tell_stored).
  if (job.node == 0) {
    if (lease.has_stored()) {
      const StoredMetrics stored = leased_stored(lease);
      argv.insert(argv.end(), {"--stored-through-step", std::to_string(stored.last_step)});
      for (const std::string& name : stored.names_at_last_step) argv.insert(argv.end(), {"--stored-at-step", name});
    }
    argv.push_back("--stored-steps-on-stdin");
  }
  if (leased.branch_points_size() > 0) {
    if (leased.branch_points_size() > static_cast<int>(limits::kMaxAxisValues)) {
      throw std::runtime_error("lease: " + std::to_string(leased.branch_points_size()) +
                               " branch points, more than the limit of " + std::to_string(limits::kMaxAxisValues));
    }
    argv.insert(argv.end(), {"--keep-checkpoint-at", absl::StrJoin(leased.branch_points(), ",")});
  }
  const std::size_t world_size = job.slots.size() * static_cast<std::size_t>(job.nodes);
  if (world_size > 1) {
    // The trainer starts this node's ranks; it refuses a config whose world_size says otherwise.
    argv.push_back("--world-size");
    argv.push_back(std::to_string(world_size));
  }
  if (job.nodes > 1) {
    argv.insert(argv.end(), {"--nodes", std::to_string(job.nodes), "--node-rank", std::to_string(job.node)});
    if (job.node == 0) {
      // Its ranks meet at this address too (it picks Gloo's interface); the port is the kernel's choice.
      argv.insert(argv.end(), {"--master-addr", options_.advertise_address});
    } else {
      argv.insert(argv.end(), {"--master-addr", job.rendezvous.host, "--master-port",
                               std::to_string(job.rendezvous.port)});
    }
  }
  return argv;
}

WorkerDaemon::AttemptFiles WorkerDaemon::attempt_files(const RunningJob& job) {
  // Node 0 (or the only one) writes the job's log; another node of a job that spans workers its own.
  return {job.node == 0 ? shared_root::job_log_path(job.job_id) : shared_root::job_node_log_path(job.job_id, job.node),
          job.node == 0 ? shared_root::job_config_path(job.job_id)
                        : shared_root::job_node_config_path(job.job_id, job.node),
          shared_root::job_ckpt_dir(job.job_id)};
}

void WorkerDaemon::check_lease_paths(const RunningJob& job, const v1::LeaseJobResponse& lease,
                                     const AttemptFiles& files) {
  if (!shared_root::is_job_id(job.job_id)) {
    throw std::runtime_error("lease: job id '" + utf8_head(job.job_id, 64) +
                             "' is not a decimal job id; no path is made from it");
  }
  // Our own layout, never a path the coordinator sends: the lease's directory must be the one we would use.
  if (!lease.ckpt_dir().empty() && std::filesystem::path(lease.ckpt_dir()) != files.ckpt) {
    throw std::runtime_error("lease: checkpoint directory '" + utf8_head(lease.ckpt_dir(), 256) + "' is not " +
                             files.ckpt.string() + " under the shared root");
  }
}

int WorkerDaemon::run_trainer(RunningJob& job, const v1::LeaseJobResponse& lease, const AttemptFiles& files,
                              int log_fd, std::ostream& log, const JobConfig* program, ProgramContract* contract) {
  const std::vector<std::string> devices = device_env(job.slots);
  log << "== " << lease.job().name() << ": attempt " << job.attempt << " on worker " << worker_id() << " ("
      << options_.hostname << ", " << (job.slots.size() == 1 ? "slot " : "slots ") << absl::StrJoin(job.slots, ",");
  for (const auto& variable : devices) log << ", " << variable;
  if (job.nodes > 1) log << ", node " << job.node << " of " << job.nodes;
  log << ")" << std::endl;

  std::vector<std::string> argv, env = devices;
  // PCI bus order, nvidia-smi's and NVML's, so that an index names one device to CUDA, NVML and the admin.
  if (!devices.empty()) env.emplace_back("CUDA_DEVICE_ORDER=PCI_BUS_ID");
  if (program != nullptr) {
    const std::string& uid = lease.job().uid();
    if (!uid.empty() && !is_uid(uid)) {
      throw std::runtime_error("lease: job uid '" + utf8_head(uid, 64) + "' is not 32 lowercase hex characters");
    }
    const char* path = std::getenv("PATH");
    ProgramLaunch launch = program_launch(
        *program,
        {job.job_id, uid, job.attempt, options_.shared_root / files.config, options_.shared_root / files.ckpt,
         options_.shared_root, options_.data_dir, contract->stored_through_step()},
        path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
    argv = std::move(launch.argv);
    env.insert(env.end(), launch.env.begin(), launch.env.end());
    log << "gammalab-worker: running the job's own program: " << absl::StrJoin(argv, " ");
    if (job.slots.size() > 1) {
      // Its ranks, one per slot, as torchrun would start them (gammalab-train ranks: worker/trainer/parallel/
      // command_ranks.h); the launcher sets each rank's RANK, LOCAL_RANK, WORLD_SIZE and MASTER_PORT.
      const std::string ranks = std::to_string(job.slots.size());
      argv.insert(argv.begin(), {options_.trainer.string(), std::string("ranks"), std::string("--world-size"), ranks,
                                std::string("--")});
      log << " (as " << ranks << " ranks)";
    }
    log << std::endl;
  } else {
    argv = trainer_argv(job, lease, options_.shared_root / files.config, options_.shared_root / files.ckpt);
    // The job's ranks come from its config alone: a launcher's variables in the worker's own environment (the
    // worker itself may run under one) must not make the trainer think it is one rank of another job.
    for (const char* variable : {"RANK=", "WORLD_SIZE=", "LOCAL_RANK=", "MASTER_ADDR=", "MASTER_PORT="}) {
      env.emplace_back(variable);
    }
  }
  // Only this thread creates and resets the child, so it may use it through `child` without the lock;
  // the lock is for the other threads that signal it.
  ChildProcess* child = nullptr;
  {
    absl::MutexLock lock(&job.mutex);
    // Node 0's trainer hears on its stdin what the relay stored (tell_stored); a program of the user's own
    // hears nothing there (its contract has no such channel).
    const bool hears = job.node == 0 && program == nullptr;
    // A program's stderr comes through the reader too, so that what it writes to the log is bounded.
    job.child = std::make_unique<ChildProcess>(argv, env, program != nullptr ? kStderrToStdout : log_fd,
                                               hears ? ChildStdin::kPipe : ChildStdin::kNull);
    child = job.child.get();
  }
  relay_trainer_output(job, *child, log, contract,
                       contract != nullptr ? contract->stored_through_step() : leased_stored(lease).last_step);
  log.flush();
  return child->wait();
}

void WorkerDaemon::relay_trainer_output(RunningJob& job, ChildProcess& child, std::ostream& log,
                                        ProgramContract* contract, std::int64_t stored_last_step) {
  // Node 0 of a gang reports its start once its store is up and it knows the port (the rendezvous line).
  const bool hosts_gang = job.nodes > 1 && job.node == 0;
  if (!hosts_gang) report_started(*stub_, worker_id(), job.job_id, job.attempt);
  bool start_reported = false;  // node 0 of a gang: with its rendezvous
  drain_starting_job(job);
  std::string rendezvous;
  std::int64_t logged = 0;  // bytes of a program's output written to the log in this attempt
  // Node 0 reports what the job's processes use, with its metric lines (the job's processes on other nodes are
  // not counted).
  std::optional<UsageSampler> usage;
  if (job.node == 0 && options_.system_metrics_s > 0) {
    usage.emplace(child.pid(), std::chrono::milliseconds(static_cast<std::int64_t>(options_.system_metrics_s * 1000)),
                  stored_last_step, UsageSampler::Clock::now(), nvml_.get(), job_devices(job.slots));
  }
  // The line's points to the relay, with the job's usage at its step when a sample is due.
  const auto relay = [&](std::vector<MetricPoint> points) {
    if (points.empty()) return;
    if (usage) {
      std::vector<MetricPoint> used = usage->at(points.front().step, points.front().tokens, UsageSampler::Clock::now());
      points.insert(points.end(), used.begin(), used.end());
    }
    relay_->add(job.job_id, job.attempt, std::move(points));
  };
  while (auto line = child.read_line()) {
    // A cut line (longer than kMaxChildLineBytes) goes to the log in part: the log is read by people.
    const std::string text = child.line_was_cut() ? utf8_head(*line, 4096) + " [line cut]" : *line;
    if (contract == nullptr || logged + std::int64_t(text.size()) < options_.max_program_log_bytes) {
      // Each line reaches the file as it comes: `gammalab logs -f` shows it at once, and a worker killed
      // outright loses none of what its job printed (one write per line; lines come a few per second).
      log << text << std::endl;
    } else if (logged < options_.max_program_log_bytes) {
      log << "gammalab-worker: the program wrote more than " << options_.max_program_log_bytes
          << " bytes to its log in this attempt (--max-program-log-bytes); the rest of its output is not kept (its "
             "metric lines are still stored)"
          << std::endl;
      logged = options_.max_program_log_bytes;
    }
    if (contract != nullptr && logged < options_.max_program_log_bytes) logged += std::int64_t(text.size()) + 1;
    if (hosts_gang && rendezvous.empty()) {
      if (const auto port = parse_rendezvous_line(*line)) {
        rendezvous = host_port_text({options_.advertise_address, *port});
        log << "gammalab-worker: rendezvous at " << rendezvous << " for the other nodes" << std::endl;
      }
    }
    // The other nodes wait for this report: it is retried while the coordinator is away.
    for (auto backoff = std::chrono::milliseconds(200); hosts_gang && !rendezvous.empty() && !start_reported &&
                                                        !job.lost && !job.cancel;
         backoff = std::min(backoff * 2, std::chrono::milliseconds(5000))) {
      start_reported = report_started(*stub_, worker_id(), job.job_id, job.attempt, rendezvous);
      if (!start_reported) std::this_thread::sleep_for(backoff);
    }
    if (job.node > 0) continue;  // node 0 relays the job's metrics (its other ranks print none)
    if (contract != nullptr) {
      const bool kept = contract->breach().empty();
      relay(contract->admit(*line, child.line_was_cut()));
      if (kept && !contract->breach().empty()) {
        log << "gammalab-worker: the program broke its contract, so it is stopped: " << contract->breach() << std::endl;
        stop_child(job, false, std::chrono::milliseconds(options_.cancel_grace_ms));
      }
      continue;
    }
    try {
      if (auto points = parse_metric_line(*line)) relay(std::move(*points));
    } catch (const std::exception& e) {
      const std::string why = std::string("a metric line the worker cannot read: ") + e.what();
      log << "gammalab-worker: " << why << "; the trainer is stopped" << std::endl;
      lose_points(job, why);
    }
  }
}

v1::JobOutcome WorkerDaemon::attempt_outcome(const RunningJob& job, int exit_code) const {
  if (job.cancel) return v1::JOB_OUTCOME_CANCELLED;
  if (exit_code == 0) return v1::JOB_OUTCOME_SUCCEEDED;
  // Stopped after a checkpoint because this worker drains, or (a job spanning workers) another one does.
  if (exit_code == exit_codes::kStopped && (drain_ || job.nodes > 1)) return v1::JOB_OUTCOME_HANDED_BACK;
  if (exit_codes::may_be_the_workers_fault(exit_code)) return v1::JOB_OUTCOME_WORKER_FAULT;
  return exit_codes::is_permanent_failure(exit_code) ? v1::JOB_OUTCOME_FAILED_PERMANENTLY : v1::JOB_OUTCOME_FAILED;
}

void WorkerDaemon::run_job(RunningJob& job, v1::LeaseJobResponse lease) {
  // The job's files, relative to the shared root; each is opened from the root's descriptor without following
  // a link anywhere below it (core/shared_root_files.h).
  const AttemptFiles files = attempt_files(job);
  std::optional<shared_root::Dir> root;
  off_t attempt_log_start = 0;  // where this attempt's part of the log begins
  int exit_code = -1;
  std::string error;
  std::optional<JobConfig> program;        // a command job's config
  std::optional<ProgramContract> contract;  // what its program's lines are held to
  try {
    check_lease_paths(job, lease, files);
    // The root as configured may be a link; below it, a link at jobs/<id> or at ckpt/ is refused (the attempt
    // fails, naming it).
    root = shared_root::Dir::open(options_.shared_root, true);
    root->make_dir(files.ckpt);
    // The config is replaced atomically (a temp file in the job's directory, renamed over the name): a link
    // planted at config.json is replaced, never written through. Replaced rather than refused because it is
    // the worker's own file, rewritten whole on every attempt.
    root->write_atomic(files.config, lease.job().config_json() + "\n");
    // The log is appended to by every attempt, so it cannot be replaced: a link there is refused.
    const shared_root::Fd log_fd = root->open_append(files.log);
    attempt_log_start = std::max<off_t>(0, ::lseek(log_fd.get(), 0, SEEK_END));
    LogBuffer log_buffer(log_fd.get());
    std::ostream log(&log_buffer);
    // A command job (docs/own-program.md) runs the program its config names, held to the contract.
    const nlohmann::json config_json = nlohmann::json::parse(lease.job().config_json(), nullptr, false);
    if (config_json.is_object() && config_json.contains("command")) {
      program.emplace(job_config_from_json(config_json));
      validate(*program);
      contract.emplace(leased_stored(lease), program->steps, program->log_every);
    }
    exit_code = run_trainer(job, lease, files, log_fd.get(), log, program ? &*program : nullptr,
                            contract ? &*contract : nullptr);
  } catch (const std::exception& e) {
    error = e.what();
  }
  {
    absl::MutexLock lock(&job.mutex);
    job.child.reset();
  }
  if (job.lost) {
    spdlog::warn("job {}: dropped (lease lost)", job.job_id);
  } else {
    relay_->flush(job.job_id);  // every point is stored before the outcome is reported
    v1::JobOutcome outcome = attempt_outcome(job, exit_code);
    // A program that broke its contract, or exited 0 before its last step, has not shown its run whole.
    std::string broken;
    if (contract && !job.cancel) {
      broken = contract->breach();
      if (broken.empty() && outcome == v1::JOB_OUTCOME_SUCCEEDED) broken = contract->unfinished();
      if (!broken.empty()) {
        outcome = v1::JOB_OUTCOME_FAILED_PERMANENTLY;
        error = "the program broke its contract (docs/own-program.md): " + broken;
      }
    }
    // Nor has an attempt whose points were refused: whatever its exit code, its stored run has a hole that no
    // later attempt fills (the checkpoints it resumes from are past it), so it fails and is not tried again.
    std::string lost_points;
    {
      absl::MutexLock lock(&job.mutex);
      lost_points = job.lost_points;
    }
    if (!lost_points.empty() && !job.cancel && broken.empty()) {
      outcome = v1::JOB_OUTCOME_FAILED_PERMANENTLY;
      error = "metric points of this attempt were not stored, so its run is not whole: " + lost_points;
    }
    const bool failed = outcome == v1::JOB_OUTCOME_FAILED || outcome == v1::JOB_OUTCOME_FAILED_PERMANENTLY ||
                        outcome == v1::JOB_OUTCOME_WORKER_FAULT;
    if (failed && error.empty()) {
      const std::string_view meaning = exit_codes::meaning(exit_code);
      error = (program ? "the program (" + utf8_head(program->command->front(), 128) + ")" : std::string("gammalab-train")) +
              " exited with code " + std::to_string(exit_code) +
              (meaning.empty() ? "" : " (" + std::string(meaning) + ")") + (drain_ ? drain_kill_note(exit_code) : "") +
              ": " + (root ? attempt_error(*root, files.log, attempt_log_start) : "");
    }
    spdlog::info("job {}: {} (exit code {})", job.job_id, v1::JobOutcome_Name(outcome), exit_code);
    report_finish(job, outcome, error, exit_code);
  }
  job.done = true;
}

int WorkerDaemon::run() {
  for (auto backoff = std::chrono::milliseconds(200); !register_once();
       backoff = std::min(backoff * 2, std::chrono::milliseconds(5000))) {
    if (foreign_shared_root_) return 2;
    if (drain_) return 0;
    spdlog::warn("coordinator {} not reachable; retrying", options_.coordinator);
    std::this_thread::sleep_for(backoff);
  }
  std::thread heartbeats([this] { heartbeat_loop(); });
  bool drain_signalled = false, kill_signalled = false;
  auto idle_backoff = std::chrono::milliseconds(options_.poll_interval_ms);
  while (true) {
    {
      // Reap finished jobs.
      absl::MutexLock lock(&jobs_mutex_);
      for (auto it = jobs_.begin(); it != jobs_.end();) {
        if ((*it)->done) {
          (*it)->thread.join();
          it = jobs_.erase(it);
        } else {
          ++it;
        }
      }
      if (drain_ && !drain_signalled) {
        drain_running_jobs();
        drain_signalled = true;
      }
      if (stop_now_ && !kill_signalled) {
        kill_running_jobs();
        kill_signalled = true;
      }
      if (drain_ && jobs_.empty()) break;
    }
    const std::vector<int> free = drain_ ? std::vector<int>{} : free_slots();
    if (free.empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    v1::LeaseJobRequest request;
    request.set_worker_id(worker_id());
    request.set_free_slots(static_cast<int>(free.size()));
    v1::LeaseJobResponse response;
    auto context = context_with_deadline(std::chrono::seconds(5));
    const grpc::Status status = stub_->LeaseJob(context.get(), request, &response);
    if (!status.ok() || !response.has_job()) {
      if (!status.ok()) spdlog::warn("lease request failed: {}", status.error_message());
      // Sleep in small steps so a drain is noticed quickly.
      for (auto slept = std::chrono::milliseconds(0); slept < idle_backoff && !drain_;
           slept += std::chrono::milliseconds(50)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      continue;
    }
    auto job = std::make_unique<RunningJob>();
    job->job_id = response.job().id();
    job->attempt = response.attempt();
    if (drain_) {
      hand_back_unstarted(*job);  // leased as the drain began
      continue;
    }
    // A coordinator from before multi-slot jobs sends no size: one slot.
    const std::size_t size = static_cast<std::size_t>(std::max(1, response.job().slots_per_node()));
    if (size > free.size()) {
      // Never from a coordinator that honours free_slots; the job is not started on too few slots.
      report_finish(*job, v1::JOB_OUTCOME_FAILED,
                    "lease: the job needs " + std::to_string(size) + " slots but worker " + worker_id() + " offered " +
                        std::to_string(free.size()) + " free",
                    -1);
      continue;
    }
    if (const std::string problem = gang_problem(response, job->rendezvous); !problem.empty()) {
      report_finish(*job, v1::JOB_OUTCOME_FAILED, problem, -1);  // nothing is started from a bad lease
      continue;
    }
    job->nodes = std::max(1, response.nodes());
    job->node = response.node();
    job->slots.assign(free.begin(), free.begin() + static_cast<std::ptrdiff_t>(size));
    spdlog::info("job {} ({}): attempt {} in slot(s) {}{}", job->job_id, response.job().name(), job->attempt,
                 absl::StrJoin(job->slots, ","),
                 job->nodes > 1 ? ", node " + std::to_string(job->node) + " of " + std::to_string(job->nodes) : "");
    RunningJob& ref = *job;
    {
      absl::MutexLock lock(&jobs_mutex_);
      jobs_.push_back(std::move(job));
    }
    ref.thread =
        std::thread([this, &ref, response = std::move(response)]() mutable { run_job(ref, std::move(response)); });
  }
  stop_heartbeats_ = true;
  heartbeats.join();
  spdlog::info("drained; exiting");
  return foreign_shared_root_ ? 2 : 0;
}

}  // namespace gammalab
