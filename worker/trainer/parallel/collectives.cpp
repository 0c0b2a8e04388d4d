#include "worker/trainer/parallel/collectives.h"

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "worker/trainer/torch_compat.h"

#ifdef GAMMALAB_HAVE_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#endif
#ifdef GAMMALAB_HAVE_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

namespace gammalab::trainer {

#ifdef GAMMALAB_HAVE_GLOO

struct PendingCollective::Impl {
  c10::intrusive_ptr<c10d::Work> work;
  int rank = 0;
  std::chrono::seconds timeout{0};
};

void PendingCollective::wait() {
  try {
    impl_->work->wait();
  } catch (const std::exception& e) {
    throw std::runtime_error("rank " + std::to_string(impl_->rank) +
                             ": a collective failed (a peer rank stopped, or did not answer within " +
                             std::to_string(impl_->timeout.count()) + " s): " + e.what());
  }
}

struct Collectives::Group {
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<CollectiveBackend> backend;
};

namespace {

bool is_loopback(const std::string& addr) { return addr == "localhost" || addr.rfind("127.", 0) == 0; }

std::shared_ptr<::gloo::transport::Device> gloo_device(const RankSpec& spec) {
  // As PyTorch's own launcher: GLOO_SOCKET_IFNAME picks the interface; ranks on one machine talk over loopback.
  if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname != nullptr && *ifname != '\0') {
    return c10d::ProcessGroupGloo::createDeviceForInterface(ifname);
  }
  if (is_loopback(spec.master_addr)) return c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
  return c10d::ProcessGroupGloo::createDefaultDevice();
}

std::string rendezvous_failed(const RankSpec& spec, const std::string& why) {
  return "rank " + std::to_string(spec.rank) + " of " + std::to_string(spec.world_size) + ": rendezvous at " +
         spec.master_addr + ":" + std::to_string(spec.master_port) + " failed (timeout " +
         std::to_string(spec.timeout.count()) + " s): " + why;
}

}  // namespace

std::unique_ptr<Collectives> Collectives::connect(const RankSpec& spec, const at::Device& device) {
  auto group = std::make_unique<Group>();
  c10d::TCPStoreOptions so;
  so.port = spec.master_port;
  so.isServer = !spec.store_hosted && spec.rank == 0;
  so.waitWorkers = false;  // the process group's own rendezvous waits for every rank, under the same timeout
  so.timeout = spec.timeout;
  try {
    group->store = c10::make_intrusive<c10d::TCPStore>(spec.master_addr, so);
    if (device.is_cuda()) {
#ifdef GAMMALAB_HAVE_NCCL
      auto options = c10d::ProcessGroupNCCL::Options::create();
      options->timeout = spec.timeout;
      group->backend = c10::make_intrusive<c10d::ProcessGroupNCCL>(group->store, spec.rank, spec.world_size, options);
#else
      throw std::runtime_error("this LibTorch has no NCCL: a distributed CUDA job needs a CUDA build of PyTorch's LibTorch");
#endif
    } else {
      auto options = c10d::ProcessGroupGloo::Options::create(spec.timeout);
      options->devices.push_back(gloo_device(spec));
      group->backend = c10::make_intrusive<c10d::ProcessGroupGloo>(group->store, spec.rank, spec.world_size, options);
    }
  } catch (const c10::Error& e) {
    throw std::runtime_error(rendezvous_failed(spec, e.what_without_backtrace()));
  } catch (const std::exception& e) {
    throw std::runtime_error(rendezvous_failed(spec, e.what()));
  }
  return std::unique_ptr<Collectives>(new Collectives(spec, std::move(group)));
}

PendingCollective Collectives::sum_async(at::Tensor& tensor) {
  std::vector<at::Tensor> tensors{tensor};
  c10d::AllreduceOptions opts;
  opts.reduceOp = c10d::ReduceOp::SUM;
  auto impl = std::make_shared<PendingCollective::Impl>();
  impl->rank = spec_.rank;
  impl->timeout = spec_.timeout;
  try {
    impl->work = group_->backend->allreduce(tensors, opts);
  } catch (const std::exception& e) {
    throw std::runtime_error("rank " + std::to_string(spec_.rank) + ": could not start an all-reduce: " + e.what());
  }
  return PendingCollective(std::move(impl));
}

void Collectives::broadcast_from_rank0(std::vector<at::Tensor>& tensors) {
  c10d::BroadcastOptions opts;
  opts.rootRank = 0;
  for (at::Tensor& t : tensors) {
    std::vector<at::Tensor> one{t};
    auto impl = std::make_shared<PendingCollective::Impl>();
    impl->rank = spec_.rank;
    impl->timeout = spec_.timeout;
    impl->work = group_->backend->broadcast(one, opts);
    PendingCollective(std::move(impl)).wait();
  }
}

bool collectives_available() { return true; }

struct HostedStore::Impl {
  c10::intrusive_ptr<c10d::TCPStore> store;
};

HostedStore::HostedStore(std::chrono::seconds timeout, std::uint16_t port) : impl_(std::make_unique<Impl>()) {
  c10d::TCPStoreOptions so;
  so.port = port;  // 0: the kernel picks a free port, so no race with other jobs on the machine
  so.isServer = true;
  so.waitWorkers = false;
  so.timeout = timeout;
  impl_->store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", so);
}

std::uint16_t HostedStore::port() const { return impl_->store->getPort(); }

#else  // no Gloo headers at configure time

struct PendingCollective::Impl {};
void PendingCollective::wait() {}
struct Collectives::Group {};
std::unique_ptr<Collectives> Collectives::connect(const RankSpec&, const at::Device&) {
  throw std::runtime_error("this build of gammalab-train has no c10d backend (Gloo headers were not found): "
                           "world sizes above 1 need them");
}
PendingCollective Collectives::sum_async(at::Tensor&) { return PendingCollective(nullptr); }
void Collectives::broadcast_from_rank0(std::vector<at::Tensor>&) {}
bool collectives_available() { return false; }
struct HostedStore::Impl {};
HostedStore::HostedStore(std::chrono::seconds, std::uint16_t) {
  throw std::runtime_error("this build of gammalab-train has no c10d backend: world sizes above 1 need Gloo");
}
std::uint16_t HostedStore::port() const { return 0; }

#endif

Collectives::Collectives(const RankSpec& spec, std::unique_ptr<Group> group) : spec_(spec), group_(std::move(group)) {}
Collectives::~Collectives() = default;
HostedStore::~HostedStore() = default;

}  // namespace gammalab::trainer
