// What a chain of pure reads costs at the bytes of a B=1 fused call (bench/h200/NOTES.md, runs
// 68 and 68b): no attention, no block table, no merge, only the K/V bytes of bf16 Hkv=8 D=128
// (4096 bytes a token) streamed once per call, timed the way readbench times the fused path (an
// L2-sized memset before each sample, untimed; a sample of N calls, each on its own stretch of
// a pool, replayed from a CUDA graph captured once; the min over samples, per call). Not part
// of readbench: a bound for what a kernel of a given residency can do in readbench's chained
// samples. (Run 68 launched each call from the host, which bounded the calls to L=2048.)
//
//   read_floor CSV     prints one line per (variant, length), writes them to CSV too
//
// Built here, carried as .scratch/floor (run68_device.sh runs it):
//   nvcc -O3 -std=c++17 -arch=sm_90 -cudart static -I src -o .scratch/floor/read_floor \
//     bench/h200/read_floor.cu
//
// Variants (each thread keeps four 16-byte loads in flight, as readbench's ceiling kernel):
//   plain     the ceiling kernel's grid (every thread slot of every SM), ordinary launches
//   pdl-full  the same grid as programmatic dependents: the next call may launch once every
//             block has started its last pass of four loads (at L <= 2048, where no thread
//             makes such a pass: once it has read), and finds its SMs full until blocks leave
//             (the fused kernel's shape: a call takes every slot it can)
//   pdl-half  half the slots a call, the same trigger: the next call's blocks fit beside the
//             ones still reading (two calls overlap at most, as in the fused chain)
//   pdl-half-clean  pdl-half after a flush that leaves L2 clean (the memset, then a read of
//             another L2-sized buffer): what the memset's dirty lines cost
//   pile-up   pdl-full with the trigger at the start: the next call launches once every block
//             of this one has started (a reference only; with every slot taken, two calls are
//             resident at most, but the next one's blocks take the SMs this one leaves idle)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "backends/cuda/cuda_check.hpp"  // RB_CUDA_CHECK: a failed call throws, naming it

namespace {

constexpr int kThreads = 512;

__device__ __forceinline__ void launch_dependents() {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}
__device__ __forceinline__ void wait_for_prerequisite() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
}

// readbench's ceiling kernel; `chained`: trigger once this thread starts its last pass of four
// loads (or, `at_start`, at once; a block counts once its first thread triggers), and wait for
// the call before only at the end (the reads need nothing from it), so calls finish in order.
template <bool kChained, bool kAtStart = false>
__global__ void __launch_bounds__(kThreads)
    read_kernel(const uint4* __restrict__ data, std::size_t n, unsigned* sink) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned acc = 0;
  if (kAtStart) launch_dependents();
  for (; i + 3 * stride < n; i += 4 * stride) {
    const uint4 a = __ldcs(data + i), b = __ldcs(data + i + stride),
                c = __ldcs(data + i + 2 * stride), d = __ldcs(data + i + 3 * stride);
    if (kChained && !kAtStart && i + 7 * stride >= n) launch_dependents();
    acc += (a.x ^ b.x ^ c.x ^ d.x) + (a.y ^ b.y ^ c.y ^ d.y) + (a.z ^ b.z ^ c.z ^ d.z) +
           (a.w ^ b.w ^ c.w ^ d.w);
  }
  for (; i < n; i += stride) {
    const uint4 a = __ldcs(data + i);
    acc += a.x + a.y + a.z + a.w;
  }
  if (kChained) {
    launch_dependents();
    wait_for_prerequisite();
  }
  if (acc == 0x9e3779b9u) *sink = acc;
}

struct Variant {
  const char* name;
  bool chained;
  int blocks_per_sm;  // of 512 threads
  bool clean_flush;
  bool at_start = false;
};

void launch(const Variant& v, int sm_count, const void* data, std::size_t bytes, unsigned* sink,
            bool first, cudaStream_t s) {
  cudaLaunchConfig_t c{};
  c.gridDim = dim3(unsigned(sm_count * v.blocks_per_sm));
  c.blockDim = dim3(kThreads);
  c.stream = s;
  cudaLaunchAttribute a{};
  a.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  a.val.programmaticStreamSerializationAllowed = 1;
  // The first call of a sample is not a dependent: nothing of it starts before the start event.
  if (v.chained && !first) c.attrs = &a, c.numAttrs = 1;
  const auto* p = static_cast<const uint4*>(data);
  if (v.chained && v.at_start)
    RB_CUDA_CHECK(cudaLaunchKernelEx(&c, read_kernel<true, true>, p, bytes / 16, sink));
  else if (v.chained)
    RB_CUDA_CHECK(cudaLaunchKernelEx(&c, read_kernel<true>, p, bytes / 16, sink));
  else
    RB_CUDA_CHECK(cudaLaunchKernelEx(&c, read_kernel<false>, p, bytes / 16, sink));
}

}  // namespace

int run(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: read_floor CSV\n");
    return 2;
  }
  int sm_count = 0, l2 = 0;
  RB_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0));
  RB_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  int per_sm = 0;
  RB_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_kernel<true>, kThreads, 0));
  std::printf("SMs %d, L2 %d bytes, %d blocks of %d threads an SM\n", sm_count, l2, per_sm,
              kThreads);
  cudaStream_t s;
  RB_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  RB_CUDA_CHECK(cudaEventCreate(&e0));
  RB_CUDA_CHECK(cudaEventCreate(&e1));
  unsigned* sink = nullptr;
  RB_CUDA_CHECK(cudaMalloc(&sink, 16));
  const std::size_t flush_bytes = std::size_t(2) * std::size_t(l2);
  void *flush = nullptr, *clean = nullptr, *pool = nullptr;
  RB_CUDA_CHECK(cudaMalloc(&flush, flush_bytes));
  RB_CUDA_CHECK(cudaMalloc(&clean, flush_bytes));
  const std::size_t pool_bytes = std::size_t(3) << 30;
  RB_CUDA_CHECK(cudaMalloc(&pool, pool_bytes));
  RB_CUDA_CHECK(cudaMemset(pool, 0x5a, pool_bytes));  // never time zeros
  RB_CUDA_CHECK(cudaMemset(clean, 0x33, flush_bytes));

  // readbench's ceiling, as it measures it: 2 GiB, warm, best of 10 after 2.
  float ms = 0, best = 1e30f;
  for (int i = 0; i < 12; ++i) {
    RB_CUDA_CHECK(cudaEventRecord(e0, s));
    launch({"plain", false, per_sm, false}, sm_count, pool, std::size_t(2) << 30, sink, true, s);
    RB_CUDA_CHECK(cudaEventRecord(e1, s));
    RB_CUDA_CHECK(cudaEventSynchronize(e1));
    RB_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    if (i >= 2) best = std::min(best, ms);
  }
  const double ceiling_gbps = double(std::size_t(2) << 30) / (best * 1e-3) / 1e9;
  std::printf("read ceiling %.0f GB/s\n", ceiling_gbps);

  const std::vector<Variant> variants = {{"plain", false, per_sm, false},
                                         {"pdl-full", true, per_sm, false},
                                         {"pdl-half", true, std::max(1, per_sm / 2), false},
                                         {"pdl-half-clean", true, std::max(1, per_sm / 2), true},
                                         {"pile-up", true, per_sm, false, true}};
  // readbench's calls a sample at bf16 B=1 (run 67b's report: about 500 us a sample).
  const std::vector<std::pair<long, int>> grid = {{1024, 120}, {2048, 91},  {4096, 67},
                                                  {8192, 42},  {16384, 25}, {32768, 14},
                                                  {65536, 8},  {131072, 4}};
  constexpr std::size_t kTokenBytes = 4096;
  constexpr int kSamples = 40;
  FILE* csv = std::fopen(argv[1], "w");
  if (csv == nullptr) {
    std::perror(argv[1]);
    return 2;
  }
  std::fprintf(csv, "variant,length,calls,samples,min_us,median_us,ceiling_gbps\n");
  for (const auto& [length, calls] : grid) {
    const std::size_t bytes = std::size_t(length) * kTokenBytes;
    std::vector<std::vector<double>> per_call(variants.size());
    if (std::size_t(calls) * bytes > pool_bytes) {
      std::fprintf(stderr, "read_floor: %d calls of %zu bytes outgrow the pool\n", calls, bytes);
      return 1;
    }
    // A sample's calls, captured once a variant: call c reads the pool's c-th stretch.
    std::vector<cudaGraphExec_t> graphs;
    for (const Variant& v : variants) {
      RB_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
      for (int c = 0; c < calls; ++c)
        launch(v, sm_count, static_cast<char*>(pool) + std::size_t(c) * bytes, bytes, sink, c == 0,
               s);
      cudaGraph_t g = nullptr;
      RB_CUDA_CHECK(cudaStreamEndCapture(s, &g));
      cudaGraphExec_t exec = nullptr;
      RB_CUDA_CHECK(cudaGraphInstantiate(&exec, g, 0));
      RB_CUDA_CHECK(cudaGraphDestroy(g));
      graphs.push_back(exec);
    }
    // The variants interleaved sample by sample, so that drift falls on all of them alike.
    for (int sample = 0; sample < kSamples + 2; ++sample)
      for (std::size_t vi = 0; vi < variants.size(); ++vi) {
        const Variant& v = variants[vi];
        RB_CUDA_CHECK(cudaMemsetAsync(flush, sample & 0xff, flush_bytes, s));
        if (v.clean_flush)
          launch({"", false, per_sm, false}, sm_count, clean, flush_bytes, sink, true, s);
        RB_CUDA_CHECK(cudaEventRecord(e0, s));
        RB_CUDA_CHECK(cudaGraphLaunch(graphs[vi], s));
        RB_CUDA_CHECK(cudaEventRecord(e1, s));
        RB_CUDA_CHECK(cudaEventSynchronize(e1));
        RB_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        if (sample >= 2) per_call[vi].push_back(double(ms) * 1e3 / calls);
      }
    for (std::size_t vi = 0; vi < variants.size(); ++vi) {
      std::vector<double>& t = per_call[vi];
      std::sort(t.begin(), t.end());
      const double med = t[t.size() / 2];
      std::printf("%-15s L=%7ld calls=%3d min=%8.2f us med=%8.2f us %.3f TB/s (%.1f%%)\n",
                  variants[vi].name, length, calls, t.front(), med, double(bytes) / t.front() / 1e6,
                  100 * double(bytes) / t.front() / 1e3 / ceiling_gbps);
      std::fprintf(csv, "%s,%ld,%d,%zu,%.4f,%.4f,%.1f\n", variants[vi].name, length, calls,
                   t.size(), t.front(), med, ceiling_gbps);
    }
    for (cudaGraphExec_t exec : graphs) RB_CUDA_CHECK(cudaGraphExecDestroy(exec));
    std::fflush(stdout);
  }
  std::fclose(csv);
  RB_CUDA_CHECK(cudaGetLastError());
  return 0;
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", "read_floor", e.what());
    return 1;
  }
}
