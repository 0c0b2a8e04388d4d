// A worker trusts no path it is sent. Whatever answers as coordinator chooses job ids and checkpoint
// directories; a real worker daemon leases from a real gRPC server on loopback that answers with hostile
// ones, and must fail those jobs without running the trainer or creating anything outside its shared root.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "gammalab/v1/gammalab.grpc.pb.h"
#include "tests/service/in_process_coordinator.h"
#include "worker/worker_daemon.h"

namespace gammalab::testing {
namespace {

namespace fs = std::filesystem;

// Leases each of `leases` once, then has no work; records every FinishJob.
class HostileGateway final : public v1::WorkerGateway::Service {
 public:
  explicit HostileGateway(std::vector<v1::LeaseJobResponse> leases) : leases_(std::move(leases)) {}

  grpc::Status RegisterWorker(grpc::ServerContext*, const v1::RegisterWorkerRequest*,
                              v1::RegisterWorkerResponse* response) override {
    response->set_worker_id("1");
    response->set_heartbeat_interval_ms(100);
    response->set_lease_timeout_ms(5000);
    return grpc::Status::OK;
  }
  grpc::Status Heartbeat(grpc::ServerContext*, const v1::HeartbeatRequest*, v1::HeartbeatResponse*) override {
    return grpc::Status::OK;
  }
  grpc::Status LeaseJob(grpc::ServerContext*, const v1::LeaseJobRequest*, v1::LeaseJobResponse* response) override {
    absl::MutexLock lock(&mutex_);
    if (next_ < leases_.size()) *response = leases_[next_++];
    return grpc::Status::OK;
  }
  grpc::Status StartJob(grpc::ServerContext*, const v1::StartJobRequest*, v1::StartJobResponse*) override {
    return grpc::Status::OK;
  }
  grpc::Status FinishJob(grpc::ServerContext*, const v1::FinishJobRequest* request, v1::FinishJobResponse* response) override {
    absl::MutexLock lock(&mutex_);
    finished_.push_back(*request);
    response->set_accepted(true);
    return grpc::Status::OK;
  }
  std::vector<v1::FinishJobRequest> finished() {
    absl::MutexLock lock(&mutex_);
    return finished_;
  }

 private:
  absl::Mutex mutex_;
  std::vector<v1::LeaseJobResponse> leases_ ABSL_GUARDED_BY(mutex_);
  std::size_t next_ ABSL_GUARDED_BY(mutex_) = 0;
  std::vector<v1::FinishJobRequest> finished_ ABSL_GUARDED_BY(mutex_);
};

v1::LeaseJobResponse lease(const std::string& job_id, const std::string& ckpt_dir) {
  v1::LeaseJobResponse response;
  response.mutable_job()->set_id(job_id);
  response.mutable_job()->set_name("hostile");
  response.mutable_job()->set_config_json("{}");
  response.set_attempt(1);
  response.set_ckpt_dir(ckpt_dir);
  return response;
}

TEST(HostileCoordinator, JobIdsAndCheckpointDirectoriesThatLeaveTheSharedRootAreRefused) {
  struct Folder {
    fs::path path = temp_db("hostile-coordinator").parent_path();
    ~Folder() { fs::remove_all(path); }
  } dir;
  const fs::path shared = dir.path / "a" / "b" / "shared";
  const fs::path marker = dir.path / "trainer-ran";
  fs::create_directories(shared);
  HostileGateway gateway({lease("../../escaped", "../../escaped/ckpt"), lease("/" + (dir.path / "absolute").string(), "ckpt"),
                          lease("7", (dir.path / "elsewhere").string()), lease("8", "../jobs/8/ckpt")});
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&gateway);
  const std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_GT(port, 0);

  const fs::path trainer = dir.path / "train.sh";
  std::ofstream(trainer) << "#!/bin/sh\ntouch '" << marker.string() << "'\n";
  ::chmod(trainer.c_str(), 0755);
  WorkerOptions options;
  options.coordinator = "127.0.0.1:" + std::to_string(port);
  options.trainer = trainer;
  options.shared_root = shared;
  options.data_dir = dir.path / "data";
  options.hostname = "test-host";
  options.poll_interval_ms = 20;
  WorkerDaemon daemon(options);
  std::thread thread([&daemon] { daemon.run(); });
  for (int i = 0; i < 400 && gateway.finished().size() < 4; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  daemon.request_drain();
  thread.join();

  const auto finished = gateway.finished();
  ASSERT_EQ(finished.size(), 4u);
  for (const auto& f : finished) {
    EXPECT_EQ(f.outcome(), v1::JOB_OUTCOME_FAILED) << f.job_id();
    EXPECT_TRUE(f.error().find("no path is made from it") != std::string::npos ||
                f.error().find("is not jobs/" + f.job_id() + "/ckpt under the shared root") != std::string::npos)
        << f.job_id() << ": " << f.error();
  }
  EXPECT_FALSE(fs::exists(marker)) << "the trainer ran for a hostile lease";
  // Nothing was made outside the shared root: the only entries under the test folder are ours.
  for (const auto& entry : fs::recursive_directory_iterator(dir.path)) {
    const fs::path p = entry.path();
    const bool inside = std::mismatch(shared.begin(), shared.end(), p.begin(), p.end()).first == shared.end();
    const bool ours = p == trainer || p == dir.path / "a" || p == dir.path / "a" / "b" || p == shared;
    EXPECT_TRUE(inside || ours) << "created outside the shared root: " << p;
  }
  EXPECT_FALSE(fs::exists(shared / "jobs" / "7" / "ckpt")) << "a refused lease still made its checkpoint directory";
}

}  // namespace
}  // namespace gammalab::testing
