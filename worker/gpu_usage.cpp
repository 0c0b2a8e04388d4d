#include "worker/gpu_usage.h"

#include <dlfcn.h>

#include <algorithm>
#include <string>
#include <type_traits>

namespace gammalab {

namespace {

// NVML's C interface, as nvml.h declares it (stable since the v2 entry points of CUDA 5): the handful of
// functions read here, resolved from the library at run time rather than linked, because a worker without a GPU
// has no libnvidia-ml.
using nvmlReturn_t = int;  // NVML_SUCCESS = 0
constexpr nvmlReturn_t kNvmlSuccess = 0;
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;
struct nvmlUtilization_t {
  unsigned int gpu;     // percent of the sample period a kernel ran
  unsigned int memory;  // percent of it device memory was read or written
};
struct nvmlMemory_t {
  unsigned long long total, free, used;  // bytes
};

bool is_index(const std::string& id) {
  return !id.empty() && id.size() < 6 && std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

struct Nvml::Api {
  nvmlReturn_t (*init)();
  nvmlReturn_t (*shutdown)();
  nvmlReturn_t (*by_index)(unsigned int, nvmlDevice_t*);
  nvmlReturn_t (*by_uuid)(const char*, nvmlDevice_t*);
  nvmlReturn_t (*utilisation)(nvmlDevice_t, nvmlUtilization_t*);
  nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t*);
};

std::unique_ptr<Nvml> Nvml::open(const std::string& library, std::string& why) {
  void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = ::dlerror();
    why = "cannot load " + library + (error ? std::string(": ") + error : std::string());
    return nullptr;
  }
  auto api = std::make_unique<Api>();
  bool complete = true;
  const auto resolve = [&](auto& function, const char* name) {
    function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(::dlsym(handle, name));
    if (function == nullptr && complete) {
      why = library + " has no " + name + ": not NVML";
      complete = false;
    }
  };
  resolve(api->init, "nvmlInit_v2");
  resolve(api->shutdown, "nvmlShutdown");
  resolve(api->by_index, "nvmlDeviceGetHandleByIndex_v2");
  resolve(api->by_uuid, "nvmlDeviceGetHandleByUUID");
  resolve(api->utilisation, "nvmlDeviceGetUtilizationRates");
  resolve(api->memory, "nvmlDeviceGetMemoryInfo");
  if (!complete) {
    ::dlclose(handle);
    return nullptr;
  }
  if (const nvmlReturn_t r = api->init(); r != kNvmlSuccess) {
    why = "nvmlInit failed with NVML status " + std::to_string(r) + " (is the NVIDIA driver loaded?)";
    ::dlclose(handle);
    return nullptr;
  }
  return std::unique_ptr<Nvml>(new Nvml(handle, std::move(api)));
}

Nvml::Nvml(void* handle, std::unique_ptr<Api> api) : handle_(handle), api_(std::move(api)) {}

Nvml::~Nvml() {
  api_->shutdown();
  ::dlclose(handle_);
}

std::optional<GpuUsage> Nvml::sample(const std::vector<std::string>& ids) const {
  GpuUsage usage;
  double utilisation = 0.0;
  for (const std::string& id : ids) {
    nvmlDevice_t device = nullptr;
    const nvmlReturn_t found = is_index(id) ? api_->by_index(static_cast<unsigned int>(std::stoul(id)), &device)
                                            : api_->by_uuid(id.c_str(), &device);
    nvmlUtilization_t rates{};
    nvmlMemory_t memory{};
    if (found != kNvmlSuccess || api_->utilisation(device, &rates) != kNvmlSuccess ||
        api_->memory(device, &memory) != kNvmlSuccess) {
      continue;
    }
    utilisation += rates.gpu;
    usage.memory_bytes += static_cast<double>(memory.used);
    ++usage.devices;
  }
  if (usage.devices == 0) return std::nullopt;
  usage.utilisation_percent = utilisation / usage.devices;
  return usage;
}

}  // namespace gammalab
