#pragma once
// The ranks' process group: a TCPStore rendezvous and c10d's ProcessGroupGloo (CPU), or ProcessGroupNCCL for
// CUDA tensors when the LibTorch has it. The c10d types stay in the .cpp: a LibTorch without Gloo's headers
// still builds the trainer, which then refuses world sizes above 1.
#include <memory>
#include <vector>

#include <torch/torch.h>

#include "worker/trainer/parallel/rank_env.h"

namespace gammalab::trainer {

// A started collective; wait() blocks until it is done here and throws (naming the rank and the timeout) if a
// peer died or did not answer in time.
class PendingCollective {
 public:
  struct Impl;
  explicit PendingCollective(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  void wait();

 private:
  std::shared_ptr<Impl> impl_;
};

class Collectives {
 public:
  // Joins the rendezvous at spec.master_addr:master_port (rank 0 hosts it unless spec.store_hosted) and builds
  // the process group for tensors on `device`. Throws std::runtime_error when the build has no c10d backend
  // for it or the peers do not all arrive within spec.timeout.
  static std::unique_ptr<Collectives> connect(const RankSpec& spec, const at::Device& device);
  ~Collectives();

  int rank() const { return spec_.rank; }
  int size() const { return spec_.world_size; }
  // Sums `tensor` over the ranks, in place, asynchronously. The tensor must stay alive until wait().
  PendingCollective sum_async(at::Tensor& tensor);
  // Overwrites each tensor, in place, with rank 0's copy.
  void broadcast_from_rank0(std::vector<at::Tensor>& tensors);

 private:
  struct Group;
  Collectives(const RankSpec& spec, std::unique_ptr<Group> group);
  RankSpec spec_;
  std::unique_ptr<Group> group_;
};

// Whether this build can run more than one rank (c10d's Gloo backend was found at configure time).
bool collectives_available();

// The rendezvous store a launcher hosts for the ranks it starts (and, of a job of several nodes, the other
// nodes' ranks), at `port`, or a port the kernel picks when it is 0; it lives as long as the object.
class HostedStore {
 public:
  HostedStore(std::chrono::seconds timeout, std::uint16_t port);
  ~HostedStore();
  std::uint16_t port() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gammalab::trainer
