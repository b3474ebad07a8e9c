#pragma once
// Checked CUDA runtime calls, NVBench style: a failure throws BackendError carrying the file,
// the line and the text of the call, so a message from a sweep names the exact place.
#include <cuda_runtime_api.h>

#include <string>

#include "core/errors.hpp"

namespace readbench::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* call, const char* file,
                                          int line) {
  throw BackendError(std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " +
                     cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}

inline void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) throw_cuda_error(status, call, file, line);
}

}  // namespace readbench::cuda

#define RB_CUDA_CHECK(call) ::readbench::cuda::check_cuda((call), #call, __FILE__, __LINE__)
