// What the fused kernel's access pattern alone reads at (bench/h200/NOTES.md, run 72): no
// attention, no merge, only the copies. Each warp streams tiles of 16 tokens (one page of the
// paged pool [pages, 16, Hkv, D]) through a cp.async pipeline into its own shared memory, as
// the decode kernel does, a page looked up in a shuffled block table a tile ahead; a tile is
// a page's rows of one group of `row_bytes` (one KV head's K and V rows, or two adjacent
// heads' rows read as one). The (sequence, group, tile) units are cut into equal ranges, one a
// thread block, so a grid may split a head's history or give a block the end of one head and
// the start of the next (the B=1 layouts over 128 or every SM).
//
//   row_pattern CSV     prints one line per variant, writes them to CSV too
//
// Built here, carried as .scratch/pattern (run72_device.sh runs it):
//   nvcc -O3 -std=c++17 -arch=sm_90 -cudart static -I src -o .scratch/pattern/row_pattern \
//     bench/h200/row_pattern.cu
//
// Timing: an L2-sized memset before each sample (untimed), then `calls` plain launches, each
// on its own pool; the min over samples per call; the variants interleaved sample by sample.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <numeric>
#include <random>
#include <vector>

#include "backends/cuda/cuda_check.hpp"  // RB_CUDA_CHECK: a failed call throws, naming it

namespace {

constexpr int kPage = 16;  // tokens a page and a tile

struct Params {
  const char* k;
  const char* v;
  const int* table;  // [batch, tiles]
  long tiles;        // pages a sequence
  int groups;        // row groups a token (Hkv, or Hkv / 2 for pairs)
  long units;        // batch * groups * tiles
  long token_bytes;  // Hkv * D * element size
  unsigned* sink;
};

__device__ __forceinline__ void cp_async_16(uint32_t dst, const void* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wait_group() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

template <int kWarps, int kStages, int kRowBytes>
__global__ void __launch_bounds__(kWarps * 32) pattern_kernel(const Params p) {
  constexpr int kChunks = kPage * kRowBytes / 16;  // of K (and of V) a tile
  constexpr int kStageBytes = 2 * kChunks * 16;
  static_assert(kChunks % 32 == 0, "whole warp-wide copies");
  extern __shared__ uint4 smem[];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const long first = long(blockIdx.x) * p.units / gridDim.x;
  const long last = long(blockIdx.x + 1) * p.units / gridDim.x;
  const long mine = last - first > warp ? (last - first - warp + kWarps - 1) / kWarps : 0;
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(smem)) +
                        uint32_t(warp * kStages * kStageBytes);
  auto unit_of = [&](long i) { return first + warp + i * kWarps; };
  auto page_of = [&](long u) {
    const long per_seq = long(p.groups) * p.tiles;
    const long b = u / per_seq, t = u % p.tiles;
    return __ldg(p.table + b * p.tiles + t);
  };
  int page = mine > 0 ? page_of(unit_of(0)) : 0;
  for (long it = 0; it < mine + kStages - 1; ++it) {
    if (it < mine) {
      const long u = unit_of(it);
      const int g = int(u / p.tiles % p.groups);
      const int this_page = page;
      if (it + 1 < mine) page = page_of(unit_of(it + 1));
      const uint32_t dst = base + uint32_t((it % kStages) * kStageBytes);
#pragma unroll
      for (int n = 0; n < kChunks / 32; ++n) {
        const int q = n * 32 + lane;
        const int r = q / (kRowBytes / 16), c = q % (kRowBytes / 16);
        const long off =
            (long(this_page) * kPage + r) * p.token_bytes + long(g) * kRowBytes + c * 16;
        cp_async_16(dst + uint32_t(q * 16), p.k + off);
        cp_async_16(dst + uint32_t((kChunks + q) * 16), p.v + off);
      }
    }
    commit();
    if (it >= kStages - 1) {
      wait_group<kStages - 1>();
      __syncwarp();
    }
  }
  wait_group<0>();
  __syncwarp();
  const uint4 x = smem[threadIdx.x];  // something read back, so the copies count
  if ((x.x ^ x.y ^ x.z ^ x.w) == 0x9e3779b9u) *p.sink = x.x;
}

struct Variant {
  const char* name;
  int batch, length, kv_heads, head_dim;
  bool pairs;  // a tile: two adjacent heads' rows as one
  int blocks;  // 0: the shape's rows (one block each)
  int warps, stages;
};

using Kernel = void (*)(Params);

Kernel kernel_for(const Variant& v, int row_bytes, std::size_t* smem) {
  const int stage = 2 * kPage * row_bytes;
  *smem = std::size_t(v.warps) * v.stages * stage;
  if (v.warps == 4 && v.stages == 5 && row_bytes == 128) return pattern_kernel<4, 5, 128>;
  if (v.warps == 4 && v.stages == 3 && row_bytes == 256) return pattern_kernel<4, 3, 256>;
  if (v.warps == 8 && v.stages == 3 && row_bytes == 256) return pattern_kernel<8, 3, 256>;
  if (v.warps == 8 && v.stages == 5 && row_bytes == 128) return pattern_kernel<8, 5, 128>;
  std::fprintf(stderr, "row_pattern: no kernel for %s\n", v.name);
  std::exit(1);
}

}  // namespace

int run(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: row_pattern CSV\n");
    return 2;
  }
  int sm_count = 0, l2 = 0;
  RB_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0));
  RB_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  // bf16 (2 bytes). B=32: one block a row (the unsplit layout, two an SM); B=1: 16 splits a
  // row of eight-warp blocks (the long rows, 128 SMs) against the same units over every SM.
  const std::vector<Variant> variants = {
      {"d64-heads", 32, 16384, 8, 64, false, 0, 4, 5},
      {"d64-pairs", 32, 16384, 8, 64, true, 256, 4, 3},
      {"d64-heads-w8", 32, 16384, 8, 64, false, 128, 8, 5},
      {"d128-heads", 32, 8192, 8, 128, false, 0, 4, 3},
      {"b1-128", 1, 131072, 8, 128, false, 128, 8, 3},
      {"b1-all", 1, 131072, 8, 128, false, -1, 8, 3},
      {"b1-128-short", 1, 16384, 8, 128, false, 128, 8, 3},
      {"b1-all-short", 1, 16384, 8, 128, false, -1, 8, 3},
  };
  constexpr int kCalls = 3, kSamples = 30;
  cudaStream_t s;
  RB_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  RB_CUDA_CHECK(cudaEventCreate(&e0));
  RB_CUDA_CHECK(cudaEventCreate(&e1));
  unsigned* sink = nullptr;
  RB_CUDA_CHECK(cudaMalloc(&sink, 16));
  const std::size_t flush_bytes = std::size_t(2) * std::size_t(l2);
  void* flush = nullptr;
  RB_CUDA_CHECK(cudaMalloc(&flush, flush_bytes));

  struct Prepared {
    Params p[kCalls];
    Kernel kernel;
    std::size_t smem;
    int grid;
    double bytes;
  };
  std::vector<Prepared> prepared;
  std::mt19937 rng(12345);
  for (const Variant& v : variants) {
    Prepared x{};
    const int row_bytes = v.head_dim * 2 * (v.pairs ? 2 : 1);
    x.kernel = kernel_for(v, row_bytes, &x.smem);
    RB_CUDA_CHECK(
        cudaFuncSetAttribute(x.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(x.smem)));
    const long tiles = v.length / kPage;
    const long token_bytes = long(v.kv_heads) * v.head_dim * 2;
    const std::size_t pool = std::size_t(v.batch) * tiles * kPage * token_bytes;
    std::vector<int> table(std::size_t(v.batch) * tiles);
    std::iota(table.begin(), table.end(), 0);
    std::shuffle(table.begin(), table.end(), rng);
    const int groups = v.kv_heads / (v.pairs ? 2 : 1);
    x.grid = v.blocks > 0 ? v.blocks : v.blocks == 0 ? v.batch * groups : sm_count;
    x.bytes = 2.0 * double(pool);
    for (int c = 0; c < kCalls; ++c) {
      void *k = nullptr, *val = nullptr;
      int* t = nullptr;
      RB_CUDA_CHECK(cudaMalloc(&k, pool));
      RB_CUDA_CHECK(cudaMalloc(&val, pool));
      RB_CUDA_CHECK(cudaMemset(k, 0x3c + c, pool));  // never time zeros
      RB_CUDA_CHECK(cudaMemset(val, 0x3d + c, pool));
      RB_CUDA_CHECK(cudaMalloc(&t, table.size() * sizeof(int)));
      RB_CUDA_CHECK(
          cudaMemcpy(t, table.data(), table.size() * sizeof(int), cudaMemcpyHostToDevice));
      x.p[c] = Params{static_cast<const char*>(k),
                      static_cast<const char*>(val),
                      t,
                      tiles,
                      groups,
                      long(v.batch) * groups * tiles,
                      token_bytes,
                      sink};
    }
    int per_sm = 0;
    RB_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, x.kernel, v.warps * 32, x.smem));
    std::printf("%-14s grid %4d, %d an SM, %zu B smem, %.0f MB a call\n", v.name, x.grid, per_sm,
                x.smem, x.bytes / 1e6);
    prepared.push_back(x);
  }
  std::vector<std::vector<double>> per_call(variants.size());
  for (int sample = 0; sample < kSamples + 2; ++sample)
    for (std::size_t vi = 0; vi < variants.size(); ++vi) {
      const Prepared& x = prepared[vi];
      RB_CUDA_CHECK(cudaMemsetAsync(flush, sample & 0xff, flush_bytes, s));
      RB_CUDA_CHECK(cudaEventRecord(e0, s));
      for (int c = 0; c < kCalls; ++c)
        x.kernel<<<x.grid, variants[vi].warps * 32, x.smem, s>>>(x.p[c]);
      RB_CUDA_CHECK(cudaGetLastError());
      RB_CUDA_CHECK(cudaEventRecord(e1, s));
      RB_CUDA_CHECK(cudaEventSynchronize(e1));
      float ms = 0;
      RB_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
      if (sample >= 2) per_call[vi].push_back(double(ms) * 1e3 / kCalls);
    }
  FILE* csv = std::fopen(argv[1], "w");
  if (csv == nullptr) {
    std::perror(argv[1]);
    return 2;
  }
  std::fprintf(csv, "variant,grid,min_us,median_us,gbps_at_min\n");
  for (std::size_t vi = 0; vi < variants.size(); ++vi) {
    std::vector<double>& t = per_call[vi];
    std::sort(t.begin(), t.end());
    const double gbps = prepared[vi].bytes / (t.front() * 1e-6) / 1e9;
    std::printf("%-14s min %9.2f us  median %9.2f us  %7.1f GB/s\n", variants[vi].name, t.front(),
                t[t.size() / 2], gbps);
    std::fprintf(csv, "%s,%d,%.3f,%.3f,%.1f\n", variants[vi].name, prepared[vi].grid, t.front(),
                 t[t.size() / 2], gbps);
  }
  std::fclose(csv);
  return 0;
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", "row_pattern", e.what());
    return 1;
  }
}
