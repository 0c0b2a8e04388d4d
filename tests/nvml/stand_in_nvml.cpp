// A stand-in for the NVIDIA driver's NVML (libnvidia-ml.so.1) on machines without a GPU: the functions
// worker/gpu_usage.cpp reads, with NVML's C signatures and fixed figures, so that the worker's path from the
// library to stored sys/gpu_* metrics runs in make test. The real library is read the same way on a GPU machine
// (scripts/gpu_check.sh). Device i (of 4: indices 0-3, or UUIDs GPU-standin-0 .. GPU-standin-3) is (i + 1) × 10%
// busy with (i + 1) GiB in use; device 3 has no utilisation of its own (NVML's answer for a MIG instance).
// STAND_IN_NVML_INIT_FAILS=1 makes nvmlInit fail as it does without a loaded driver.
#include <cstdlib>
#include <cstring>

extern "C" {

struct nvmlDevice_st {
  unsigned int index;
};
using nvmlDevice_t = nvmlDevice_st*;
struct nvmlUtilization_t {
  unsigned int gpu, memory;
};
struct nvmlMemory_t {
  unsigned long long total, free, used;
};

constexpr int kSuccess = 0, kUninitialized = 1, kInvalidArgument = 2, kNotSupported = 3, kDriverNotLoaded = 9,
              kNotFound = 6;
static nvmlDevice_st devices[4] = {{0}, {1}, {2}, {3}};
static int initialised = 0;  // nvmlInit calls not yet shut down, as NVML counts them

int nvmlInit_v2() {
  const char* fails = std::getenv("STAND_IN_NVML_INIT_FAILS");
  if (fails != nullptr && std::strcmp(fails, "1") == 0) return kDriverNotLoaded;
  ++initialised;
  return kSuccess;
}

int nvmlShutdown() {
  if (initialised == 0) return kUninitialized;
  --initialised;
  return kSuccess;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  if (!initialised) return kUninitialized;
  if (device == nullptr) return kInvalidArgument;
  if (index >= 4) return kInvalidArgument;
  *device = &devices[index];
  return kSuccess;
}

int nvmlDeviceGetHandleByUUID(const char* uuid, nvmlDevice_t* device) {
  if (!initialised) return kUninitialized;
  if (uuid == nullptr || device == nullptr) return kInvalidArgument;
  constexpr char kPrefix[] = "GPU-standin-";
  if (std::strncmp(uuid, kPrefix, sizeof kPrefix - 1) != 0 || std::strlen(uuid) != sizeof kPrefix) return kNotFound;
  const char digit = uuid[sizeof kPrefix - 1];
  if (digit < '0' || digit > '3') return kNotFound;
  *device = &devices[digit - '0'];
  return kSuccess;
}

int nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t* utilization) {
  if (!initialised) return kUninitialized;
  if (device == nullptr || utilization == nullptr) return kInvalidArgument;
  if (device->index == 3) return kNotSupported;
  utilization->gpu = (device->index + 1) * 10;
  utilization->memory = 5;
  return kSuccess;
}

int nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
  if (!initialised) return kUninitialized;
  if (device == nullptr || memory == nullptr) return kInvalidArgument;
  memory->total = 80ULL << 30;
  memory->used = (device->index + 1ULL) << 30;
  memory->free = memory->total - memory->used;
  return kSuccess;
}

}  // extern "C"
