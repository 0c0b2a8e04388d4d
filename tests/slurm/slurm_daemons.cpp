#include "tests/slurm/slurm_daemons.h"

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <stdexcept>

#include "tests/integration/cluster.h"

namespace gammalab::testing {

namespace {

constexpr const char* kNodeName = "glnode";
constexpr const char* kPartition = "gltest";

// A port that was free a moment ago (Slurm's daemons take fixed ports from slurm.conf, not port 0).
int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    if (fd >= 0) close(fd);
    throw std::runtime_error("no free port on loopback");
  }
  close(fd);
  return ntohs(address.sin_port);
}

std::string this_hostname() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

SlurmDaemons::SlurmDaemons() {
  std::random_device rd;
  dir_ = std::filesystem::temp_directory_path() / ("gammalab-slurm-" + std::to_string(rd()));
  // munged wants its socket's directories searchable by all, and its key readable by its owner alone.
  using std::filesystem::perms;
  for (const char* sub : {"", "munge-socket", "state", "spool", "log"}) {
    std::filesystem::create_directories(dir_ / sub);
    std::filesystem::permissions(dir_ / sub, perms::owner_all | perms::group_read | perms::group_exec |
                                                 perms::others_read | perms::others_exec);
  }
  std::filesystem::create_directories(dir_ / "munge");
  std::filesystem::permissions(dir_ / "munge", perms::owner_all);
  const auto key = dir_ / "munge" / "munge.key";
  if (command({"/usr/sbin/mungekey", "--create", "--keyfile=" + key.string()}).exit_code != 0) {
    throw std::runtime_error("mungekey --create failed; see " + (dir_ / "commands.log").string());
  }
  const auto socket = dir_ / "munge-socket" / "munge.socket";
  munged_ = start("munged", {"/usr/sbin/munged", "--foreground", "--socket=" + socket.string(),
                             "--key-file=" + key.string(), "--pid-file=" + (dir_ / "munge" / "munged.pid").string(),
                             "--log-file=" + (dir_ / "log" / "munged.log").string(),
                             "--seed-file=" + (dir_ / "munge" / "munged.seed").string()});
  if (!wait_until([&] { return std::filesystem::exists(socket); }, 30)) {
    throw std::runtime_error("munged did not create its socket: " + read_file(dir_ / "log" / "munged.log") +
                             read_file(dir_ / "munged.stderr"));
  }
  write_config();
  slurmctld_ = start("slurmctld", {"/usr/sbin/slurmctld", "-D", "-i"});
  slurmd_ = start("slurmd", {"/usr/sbin/slurmd", "-D", "-N", kNodeName});
  if (!wait_until(
          [&] {
            const auto r = command({"sinfo", "-h", "-n", kNodeName, "-o", "%t"});
            return r.exit_code == 0 && r.out.rfind("idle", 0) == 0;
          },
          60)) {
    throw std::runtime_error("the Slurm node did not become idle; see " + (dir_ / "log").string() + ": " +
                             read_file(dir_ / "log" / "slurmctld.log").substr(0, 4000));
  }
}

void SlurmDaemons::write_config() {
  controller_port_ = free_port();
  node_port_ = free_port();
  const std::string d = dir_.string();
  std::ofstream conf(dir_ / "slurm.conf");
  conf << "# A one-node cluster on loopback for gammalab's tests.\n"
       << "ClusterName=gammalabtest\n"
       << "SlurmctldHost=localhost(127.0.0.1)\n"
       << "SlurmctldPort=" << controller_port_ << "\n"
       << "SlurmdPort=" << node_port_ << "\n"
       << "SlurmUser=root\nSlurmdUser=root\n"
       << "AuthType=auth/munge\nCredType=cred/munge\n"
       << "AuthInfo=socket=" << d << "/munge-socket/munge.socket\n"
       << "StateSaveLocation=" << d << "/state\n"
       << "SlurmdSpoolDir=" << d << "/spool\n"
       << "SlurmctldPidFile=" << d << "/slurmctld.pid\nSlurmdPidFile=" << d << "/slurmd.pid\n"
       << "SlurmctldLogFile=" << d << "/log/slurmctld.log\nSlurmdLogFile=" << d << "/log/slurmd.log\n"
       // No cgroups in a container: processes are tracked by parentage, tasks are not bound.
       << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
       << "JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n"
       << "JobCompType=jobcomp/none\nMpiDefault=none\nPropagateResourceLimits=NONE\n"
       << "SchedulerType=sched/builtin\nSelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\n"
       << "ReturnToService=2\n"
       // Between a cancel's SIGTERM and its SIGKILL: a drain must fit in it.
       << "KillWait=30\n"
       // The node has two CPUs whatever the machine has: two one-CPU array tasks run side by side.
       << "SlurmdParameters=config_overrides\n"
       << "NodeName=" << kNodeName << " NodeHostname=" << this_hostname()
       << " NodeAddr=127.0.0.1 CPUs=2 RealMemory=1000 State=UNKNOWN\n"
       << "PartitionName=" << kPartition << " Nodes=" << kNodeName
       << " Default=YES MaxTime=INFINITE State=UP\n";
}

std::unique_ptr<ChildProcess> SlurmDaemons::start(const std::string& name, std::vector<std::string> argv) {
  return std::make_unique<ChildProcess>(argv, std::vector<std::string>{env()},
                                        (dir_ / (name + ".stderr")).string());
}

CommandResult SlurmDaemons::command(std::vector<std::string> argv, const std::vector<std::string>& extra_env) {
  if (argv.front().find('/') == std::string::npos) argv.front() = "/usr/bin/" + argv.front();
  std::vector<std::string> environment = extra_env;
  environment.push_back(env());
  ChildProcess process(argv, environment, (dir_ / "commands.log").string());
  CommandResult result;
  while (auto line = process.read_line()) result.out += *line + "\n";
  result.exit_code = process.wait();
  return result;
}

std::string SlurmDaemons::queue() {
  const auto r = command({"squeue", "-h", "-o", "%i %T"});
  return r.exit_code == 0 ? r.out : "squeue failed";
}

SlurmDaemons::~SlurmDaemons() {
  // Jobs first (their workers drain and exit), then the daemons, each with SIGTERM; ChildProcess's destructor
  // kills any that does not stop.
  if (slurmctld_ && slurmd_) {
    command({"scancel", "--partition", kPartition});
    wait_until([&] { return queue().empty(); }, 90);
  }
  for (auto* daemon : {&slurmd_, &slurmctld_, &munged_}) {
    if (!*daemon) continue;
    (*daemon)->signal(SIGTERM);
    const bool stopped = wait_until(
        [&] {
          return kill((*daemon)->pid(), 0) != 0 || read_file("/proc/" + std::to_string((*daemon)->pid()) + "/stat")
                                                           .find(") Z ") != std::string::npos;
        },
        30);
    if (!stopped) (*daemon)->signal(SIGKILL);
    (*daemon)->wait();
    daemon->reset();
  }
  if (keep_files) {
    std::fprintf(stderr, "Slurm files kept in %s\n", dir_.c_str());
  } else {
    std::filesystem::remove_all(dir_);
  }
}

}  // namespace gammalab::testing
