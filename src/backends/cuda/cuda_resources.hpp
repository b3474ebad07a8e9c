#pragma once
// Owning handles for device memory, streams, events and graphs. Destructors never throw: a
// failure there (a sticky error after a bad launch) has already been reported by a checked call.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "backends/cuda/cuda_check.hpp"

namespace readbench::cuda {

// Text for an allocation that cannot fit: the bytes asked for and the device's free/total.
inline std::string memory_shortfall(std::size_t bytes, const std::string& what) {
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) cudaGetLastError();
  return what + " needs " + std::to_string(bytes) + " bytes of device memory, but only " +
         std::to_string(free_bytes) + " of " + std::to_string(total_bytes) + " bytes are free";
}

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // Throws BackendError naming the bytes needed (and free/total) when the allocation fails.
  DeviceBuffer(std::size_t bytes, const std::string& what) : bytes_(bytes) {
    if (bytes == 0) return;
    const cudaError_t status = cudaMalloc(&ptr_, bytes);
    if (status != cudaSuccess) {
      cudaGetLastError();  // an out-of-memory error is not sticky; clear it
      ptr_ = nullptr;
      throw BackendError(memory_shortfall(bytes, what) + " (" + cudaGetErrorString(status) + ")");
    }
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { reset(); }

  void reset() noexcept {
    if (ptr_ != nullptr) cudaFree(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
  }
  std::byte* data() const { return static_cast<std::byte*>(ptr_); }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t size() const { return bytes_; }
  explicit operator bool() const { return ptr_ != nullptr; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

class Stream {
 public:
  Stream() { RB_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() { cudaStreamDestroy(s_); }
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

class Event {
 public:
  Event() { RB_CUDA_CHECK(cudaEventCreate(&e_)); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() { cudaEventDestroy(e_); }
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

// An instantiated graph; empty until assigned.
class GraphExec {
 public:
  GraphExec() = default;
  explicit GraphExec(cudaGraphExec_t g) : g_(g) {}
  GraphExec(GraphExec&& o) noexcept : g_(std::exchange(o.g_, nullptr)) {}
  GraphExec& operator=(GraphExec&& o) noexcept {
    if (this != &o) {
      if (g_ != nullptr) cudaGraphExecDestroy(g_);
      g_ = std::exchange(o.g_, nullptr);
    }
    return *this;
  }
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;
  ~GraphExec() {
    if (g_ != nullptr) cudaGraphExecDestroy(g_);
  }
  cudaGraphExec_t get() const { return g_; }

 private:
  cudaGraphExec_t g_ = nullptr;
};

}  // namespace readbench::cuda
