#include "backends/cuda/stream_read.hpp"

#include <cstdint>

namespace readbench::cuda {

namespace {

constexpr int kThreads = 512;

// Grid-stride over 16-byte chunks, four independent loads in flight per thread.
__global__ void __launch_bounds__(kThreads)
    stream_read_kernel(const uint4* __restrict__ data, std::size_t n, unsigned* sink) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned acc = 0;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const uint4 a = __ldcs(data + i), b = __ldcs(data + i + stride),
                c = __ldcs(data + i + 2 * stride), d = __ldcs(data + i + 3 * stride);
    acc += (a.x ^ b.x ^ c.x ^ d.x) + (a.y ^ b.y ^ c.y ^ d.y) + (a.z ^ b.z ^ c.z ^ d.z) +
           (a.w ^ b.w ^ c.w ^ d.w);
  }
  for (; i < n; i += stride) {
    const uint4 a = __ldcs(data + i);
    acc += a.x + a.y + a.z + a.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;
}

}  // namespace

cudaError_t launch_stream_read(const void* data, std::size_t bytes, unsigned* sink, int sm_count,
                               cudaStream_t stream) {
  int per_sm = 0;
  cudaError_t status =
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, stream_read_kernel, kThreads, 0);
  if (status != cudaSuccess) return status;
  const unsigned blocks = unsigned(sm_count * (per_sm > 0 ? per_sm : 1));
  stream_read_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const uint4*>(data), bytes / 16,
                                                      sink);
  return cudaGetLastError();
}

}  // namespace readbench::cuda
