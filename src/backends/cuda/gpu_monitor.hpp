#pragma once
// What else happens on a GPU while it is measured: other processes with a context on it, and
// clocks held below their maximum (power or thermal limits), read through NVML. NVML ships with
// the driver (libnvidia-ml.so.1) and is loaded at run time, so the build needs nothing from it;
// where it cannot be loaded the monitor says why and sees nothing.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace readbench::cuda {

// NVML's clock-event (throttle) reasons that hold clocks down for something other than an idle
// GPU or a clock the administrator set: power caps, thermal and hardware slowdowns.
std::vector<std::string> slowdown_reasons(std::uint64_t mask);

class GpuMonitor {
 public:
  // The device by its PCI bus id ("0000:18:00.0", from cudaDeviceGetPCIBusId).
  explicit GpuMonitor(const std::string& pci_bus_id);
  ~GpuMonitor();
  GpuMonitor(const GpuMonitor&) = delete;
  GpuMonitor& operator=(const GpuMonitor&) = delete;

  bool available() const { return device_ != nullptr; }
  const std::string& unavailable_reason() const { return why_; }
  // Reads the device's conditions, at most every 50 ms (the reads cost tens of microseconds).
  void sample();
  // One line per condition seen since the monitor started: empty when the GPU was the run's own.
  std::vector<std::string> conditions() const;

 private:
  struct Api;
  void* library_ = nullptr;
  Api* api_ = nullptr;
  void* device_ = nullptr;
  std::string why_;
  std::chrono::steady_clock::time_point last_{};
  int samples_ = 0;
  unsigned most_processes_ = 0;
  int slowed_samples_ = 0;
  std::uint64_t slowdown_mask_ = 0;
  unsigned lowest_sm_mhz_ = 0, max_sm_mhz_ = 0;
};

}  // namespace readbench::cuda
