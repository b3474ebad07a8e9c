#pragma once
// The device's streaming-read ceiling: a read-only reduction over a large buffer.
#include <cuda_runtime_api.h>

#include <cstddef>

namespace readbench::cuda {

// Reads `bytes` (a multiple of 16) at `data` once with 16-byte loads; `sink` (one unsigned) is
// written only on an impossible sum, which keeps the loads alive.
cudaError_t launch_stream_read(const void* data, std::size_t bytes, unsigned* sink, int sm_count,
                               cudaStream_t stream);

}  // namespace readbench::cuda
