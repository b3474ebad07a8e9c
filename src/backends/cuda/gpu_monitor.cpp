#include "backends/cuda/gpu_monitor.hpp"

#include <dlfcn.h>

#include <algorithm>

namespace readbench::cuda {

namespace {

// The few NVML entry points used, by their C signatures (nvml.h): stable across drivers.
using Status = int;  // nvmlReturn_t: 0 success, 7 insufficient size
constexpr Status kSuccess = 0, kInsufficientSize = 7;
constexpr int kClockSm = 1;  // NVML_CLOCK_SM

struct Reason {
  std::uint64_t bit;
  const char* name;
};
// nvmlClocksEventReasons (formerly ClocksThrottleReasons), less GpuIdle (0x1), the
// administrator's applications clocks (0x2) and display clocks (0x100).
constexpr Reason kSlowdowns[] = {{0x4, "software power cap"},
                                 {0x8, "hardware slowdown"},
                                 {0x10, "sync boost"},
                                 {0x20, "software thermal slowdown"},
                                 {0x40, "hardware thermal slowdown"},
                                 {0x80, "hardware power brake"}};

}  // namespace

struct GpuMonitor::Api {
  Status (*init)() = nullptr;
  Status (*shutdown)() = nullptr;
  Status (*by_pci)(const char*, void**) = nullptr;
  Status (*processes)(void*, unsigned*, void*) = nullptr;
  Status (*clock)(void*, int, unsigned*) = nullptr;
  Status (*max_clock)(void*, int, unsigned*) = nullptr;
  Status (*reasons)(void*, unsigned long long*) = nullptr;
};

std::vector<std::string> slowdown_reasons(std::uint64_t mask) {
  std::vector<std::string> out;
  for (const Reason& r : kSlowdowns)
    if (mask & r.bit) out.emplace_back(r.name);
  return out;
}

GpuMonitor::GpuMonitor(const std::string& pci_bus_id) {
  library_ = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) {
    why_ = "NVML (libnvidia-ml.so.1) could not be loaded";
    return;
  }
  api_ = new Api;
  const auto find = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(library_, name));
    return fn != nullptr;
  };
  const bool found = find(api_->init, "nvmlInit_v2") && find(api_->shutdown, "nvmlShutdown") &&
                     find(api_->by_pci, "nvmlDeviceGetHandleByPciBusId_v2") &&
                     find(api_->processes, "nvmlDeviceGetComputeRunningProcesses_v3") &&
                     find(api_->clock, "nvmlDeviceGetClockInfo") &&
                     find(api_->max_clock, "nvmlDeviceGetMaxClockInfo") &&
                     (find(api_->reasons, "nvmlDeviceGetCurrentClocksEventReasons") ||
                      find(api_->reasons, "nvmlDeviceGetCurrentClocksThrottleReasons"));
  if (!found) {
    why_ = "this NVML lacks a function the monitor needs";
    return;
  }
  if (api_->init() != kSuccess) {
    why_ = "NVML did not initialise";
    return;
  }
  if (api_->by_pci(pci_bus_id.c_str(), &device_) != kSuccess) {
    device_ = nullptr;
    api_->shutdown();
    why_ = "NVML does not know the device at PCI " + pci_bus_id;
    return;
  }
  api_->max_clock(device_, kClockSm, &max_sm_mhz_);
}

GpuMonitor::~GpuMonitor() {
  if (api_ != nullptr && api_->shutdown != nullptr && device_ != nullptr) api_->shutdown();
  delete api_;
  if (library_ != nullptr) ::dlclose(library_);
}

void GpuMonitor::sample() {
  if (device_ == nullptr) return;
  const auto now = std::chrono::steady_clock::now();
  if (samples_ > 0 && now - last_ < std::chrono::milliseconds(50)) return;
  last_ = now;
  ++samples_;
  // A count of zero asks for the number of processes alone (no array, so no struct layout).
  unsigned count = 0;
  const Status s = api_->processes(device_, &count, nullptr);
  if (s == kSuccess || s == kInsufficientSize) most_processes_ = std::max(most_processes_, count);
  unsigned long long mask = 0;
  if (api_->reasons(device_, &mask) == kSuccess && !slowdown_reasons(mask).empty()) {
    ++slowed_samples_;
    slowdown_mask_ |= mask;
  }
  unsigned mhz = 0;
  if (api_->clock(device_, kClockSm, &mhz) == kSuccess && mhz > 0)
    lowest_sm_mhz_ = lowest_sm_mhz_ == 0 ? mhz : std::min(lowest_sm_mhz_, mhz);
}

std::vector<std::string> GpuMonitor::conditions() const {
  std::vector<std::string> out;
  // This process holds a context of its own: more than one means another process.
  if (most_processes_ > 1)
    out.push_back("other processes used the GPU during the sweep (" +
                  std::to_string(most_processes_) + " compute processes seen at once)");
  if (slowed_samples_ > 0) {
    std::string why;
    for (const std::string& r : slowdown_reasons(slowdown_mask_))
      why += (why.empty() ? "" : ", ") + r;
    out.push_back("the GPU's clocks were held below their maximum (" + why + ") in " +
                  std::to_string(slowed_samples_) + " of " + std::to_string(samples_) +
                  " checks; lowest SM clock seen " + std::to_string(lowest_sm_mhz_) + " of " +
                  std::to_string(max_sm_mhz_) + " MHz");
  }
  return out;
}

}  // namespace readbench::cuda
