#pragma once
// What a job's GPUs are doing, read through NVML (the NVIDIA driver's management library, libnvidia-ml.so.1),
// loaded at run time so that a worker without a GPU, or without the driver, builds and runs the same: utilisation
// (the share of the last sample period a kernel ran, in percent) and the memory in use, of the devices the job's
// slots hold (worker --gpus). One job holds a device at a time, so a device's figures are its job's. Reported
// beside the /proc figures (process_usage.h) as ordinary metrics: sys/gpu_util, the mean over the job's
// devices, and sys/gpu_memory_bytes, their sum.
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gammalab {

struct GpuUsage {
  double utilisation_percent = 0.0;  // mean over the devices read
  double memory_bytes = 0.0;         // memory in use, summed over them
  int devices = 0;                   // how many were read
};

class Nvml {
 public:
  // Loads NVML from `library` (a file name the dynamic loader finds, or a path) and initialises it. With a GPU
  // driver installed, "libnvidia-ml.so.1". Returns nullptr, with the reason in `why`, when it cannot: no such
  // library (no driver: a CPU machine), a library without NVML's functions, or nvmlInit failing.
  static std::unique_ptr<Nvml> open(const std::string& library, std::string& why);
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  // The devices named by `ids`, as --gpus and CUDA_VISIBLE_DEVICES name them: an index ("0", "3": NVML's
  // order, the PCI bus order nvidia-smi shows, which the worker also gives CUDA) or a UUID ("GPU-..."). A device
  // NVML cannot find or read is left out; nullopt when none could be read (a MIG instance has no utilisation
  // of its own). Safe to call from several threads (NVML is).
  std::optional<GpuUsage> sample(const std::vector<std::string>& ids) const;

 private:
  struct Api;
  Nvml(void* handle, std::unique_ptr<Api> api);
  void* handle_;
  std::unique_ptr<Api> api_;
};

}  // namespace gammalab
