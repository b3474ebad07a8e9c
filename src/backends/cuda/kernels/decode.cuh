#pragma once
// The decode-attention kernel both paths share. One thread block per (history split, KV head,
// head tile, sequence) serves every query head of its KV head's group (GQA), so K/V are read
// once per group. Each warp streams tiles of 16 tokens (the CUDA-core kernel: at most 4 KiB of
// K a tile, so 8 tokens of f32 D = 128) through its own cp.async pipeline: 16-byte loads, every
// load instruction covering whole 128-byte lines of K/V rows, `STAGES - 1` tiles in flight while
// one is computed, block-table entries fetched a tile ahead. Each warp keeps an online softmax
// (running max, running sum, f32 accumulator); the warps merge in shared memory and, when the
// history is split across thread blocks (flash-decoding), the last block of a split row to
// finish merges the splits, or, where the row's few splits run as one thread block cluster
// (DecodeParams::cluster), its first block merges them from its shared memory. Launched as a
// programmatic dependent of the kernel before (sm_90 on), a block walks a read-only (paged) history
// and starts its first copies before waiting for that kernel; q, the outputs and the split
// workspace wait. Each block lets the next kernel launch once a warp has its last copies in flight
// (once its reads are done where a warp's tiles all fit its pipeline's stages, so that its copies
// all go out before its first tile). A pair of KV heads (MmaMath::kPaired) counts as one KV head.
//
// Two policies make the variants:
//   Rows (rows.cuh): PagedRows walks the block table (the fused path); ContiguousRows reads the
//         gather path's materialized [B, L, Hkv, D] history. Nothing else differs between the
//         paths.
//   Math (mma_math.cuh, simt_math.cuh): MmaMath (f16, bf16) computes q·K and p·V with mma.sync
//         on the tensor cores; SimtMath (any dtype; the f32 path) on CUDA cores. Both accumulate
//         in f32, and both read K/V in q's type or in e4m3 (Math::Kv), whose scale the launch
//         folds into scale_log2 and out_scale. MmaMath::kPaired reads two adjacent KV heads of
//         D = 64 as one head of 128 (256-byte rows) serving both query groups; q and the outputs
//         keep their D (Math::kOutD).
// The kernel's pieces: vec_dtypes.cuh (storage conversions), ptx.cuh (cp.async, mma,
// movmatrix), math.cuh (warp reductions, the softmax's running max), staged_tile.cuh (the
// swizzled shared-memory tile); decode_table.cuh holds the host-side tables of instantiations.
#include <cuda_runtime.h>
#include <math_constants.h>

#include <cstddef>
#include <cstdint>

#include "backends/cuda/decode_launch.hpp"
#include "backends/cuda/kernels/math.cuh"
#include "backends/cuda/kernels/ptx.cuh"
#include "backends/cuda/kernels/vec_dtypes.cuh"

namespace readbench::cuda::kernels {

template <class Math>
__host__ __device__ constexpr int stage_chunks() {  // 16-byte chunks of a warp's K and V tiles
  return 2 * Math::kTile * Math::kRowChunks;
}

template <class Math, int kWarps, int kStages>
__host__ __device__ constexpr std::size_t decode_smem_bytes() {
  const std::size_t pipeline = std::size_t(kWarps) * kStages * stage_chunks<Math>() * 16;
  const std::size_t epilogue = std::size_t(kWarps) * Math::kHeads * (Math::D + 2) * sizeof(float);
  return pipeline > epilogue ? pipeline : epilogue;
}

// Where a cluster's partials go in its first block's shared memory: after the pipeline's bytes.
template <class Math, int kWarps, int kStages>
__host__ __device__ constexpr std::size_t cluster_slots_offset() {
  return (decode_smem_bytes<Math, kWarps, kStages>() + 15) / 16 * 16;
}

// The kernel's probe points: where the variant build's probe (variants/bench_probe.cuh) stamps
// its timelines and takes its launch and merge variants. The product's probe does nothing, so
// its kernels are the code below alone.
struct NoProbe {
  __device__ explicit NoProbe(const DecodeParams&) {}
  __device__ void started() {}  // the block has begun
  // A warp's pass over its tiles: (it, kStages, my_tiles) after its copies of pass `it` are
  // committed, and after its math of tile `it`.
  __device__ void copies_issued(const DecodeParams&, int, int, int) {}
  __device__ void tile_computed(const DecodeParams&, int, int, int) {}
  __device__ void reads_done() {}       // every warp's reads and math are done
  __device__ void outputs_written() {}  // this block's outputs, partials or slots are written
  __device__ void before_arrival(const DecodeParams&) {}  // a split block, before its arrival
  __device__ void arrived() {}                            // ... after it
  __device__ void leaving() {}                            // a block that does not merge
  __device__ void merging(const DecodeParams&) {}         // the merging block, before its merge
  __device__ void merge_begun() {}
  static __device__ void first_partials_landed(const DecodeParams&) {}  // first partials staged
  // Merges the splits its own way instead of merge_splits (true), or leaves them (false).
  template <class T>
  __device__ bool merge(const DecodeParams&, std::size_t, int, float*) {
    return false;
  }
  __device__ void done() {}  // the merging block has written the outputs
};

// Split-history merge: out = sum_s w_s o_s with w_s = 2^(lse_s - M) / sum 2^(lse - M), each
// split's o_s already normalized. Called by all kThreads threads of a block for `heads` query
// heads starting at flat index bh0 (= b * Hq + head); thread t serves the four-float slices
// t, t + kThreads, ... (at most kItems) of the heads * D outputs. Each thread copies its
// slices' partials into `staging` (shared memory, 16-byte aligned, staging_floats long) with
// cp.async through L2 (.cg: L1 is not coherent with the other blocks' writes), as many splits
// at once as it holds, and reads back only its own: one L2 round trip a batch (one for all of
// a row's splits at the shapes measured), no registers held for loads in flight (a register
// array of them had raised every decode kernel's register count), no division in the loops;
// faster than the two-pass merge before it (docs/cuda.md, "The merge staged through shared
// memory").
template <class T, int D, int kThreads, int kItems, class Probe>
__device__ void merge_splits(const DecodeParams& p, std::size_t bh0, int heads, float* staging,
                             int staging_floats) {
  constexpr int kQuads = D / 4;
  const int batch = staging_floats / (heads * (D + 1));   // splits staged at once, >= 1
  float* part = staging;                                  // [batch, heads, D]
  float* lse = staging + std::size_t(batch) * heads * D;  // [batch, heads]
  const uint32_t part_addr = static_cast<uint32_t>(__cvta_generic_to_shared(part));
  float m[kItems], sum[kItems];
  float4 acc[kItems];
#pragma unroll
  for (int i = 0; i < kItems; ++i) m[i] = -CUDART_INF_F, sum[i] = 0.0f, acc[i] = float4{};
  for (int s0 = 0; s0 < p.splits; s0 += batch) {
    const int n = min(batch, p.splits - s0);
    if (s0 > 0) __syncthreads();  // every thread is done with the last batch's log-sum-exps
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int idx = int(threadIdx.x) + i * kThreads;
      if (idx >= heads * kQuads) continue;
      const int h = idx / kQuads, q = idx % kQuads;
      const float* src = p.partial_out + ((bh0 + h) * p.splits + s0) * D + q * 4;
      uint32_t dst = part_addr + uint32_t((h * D + q * 4) * sizeof(float));
#pragma unroll 8
      for (int s = 0; s < n; ++s, src += D, dst += uint32_t(heads * D * sizeof(float)))
        cp_async_16(dst, src, false);
      const float* lse_src = p.partial_lse + (bh0 + h) * p.splits + s0;
      for (int s = q; s < n; s += kQuads) lse[s * heads + h] = __ldcg(lse_src + s);
    }
    cp_async_commit();
    cp_async_wait<0>();
    __syncthreads();  // the log-sum-exps other threads loaded
    if (s0 == 0) Probe::first_partials_landed(p);
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int idx = int(threadIdx.x) + i * kThreads;
      if (idx >= heads * kQuads) continue;
      const int h = idx / kQuads, q = idx % kQuads;
      float m_new = m[i];  // every split holds a token: its log-sum-exp is finite
#pragma unroll 8
      for (int s = 0; s < n; ++s) m_new = fmaxf(m_new, lse[s * heads + h]);
      const float rescale = exp2f(m[i] - m_new);  // 0 on the first batch
      float l = sum[i] * rescale;
      float4 a = make_float4(acc[i].x * rescale, acc[i].y * rescale, acc[i].z * rescale,
                             acc[i].w * rescale);
      const float4* x = reinterpret_cast<const float4*>(part + h * D) + q;
#pragma unroll 8
      for (int s = 0; s < n; ++s, x += heads * kQuads) {
        const float w = exp2f(lse[s * heads + h] - m_new);
        const float4 v = *x;
        l += w;
        a.x = fmaf(w, v.x, a.x);
        a.y = fmaf(w, v.y, a.y);
        a.z = fmaf(w, v.z, a.z);
        a.w = fmaf(w, v.w, a.w);
      }
      m[i] = m_new, sum[i] = l, acc[i] = a;
    }
  }
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const int idx = int(threadIdx.x) + i * kThreads;
    if (idx >= heads * kQuads) continue;
    const int h = idx / kQuads, d = idx % kQuads * 4;
    const float inv = 1.0f / sum[i];
    const std::size_t o = (bh0 + h) * D + d;
    store_out<T>(p.out, o, acc[i].x * inv);
    store_out<T>(p.out, o + 1, acc[i].y * inv);
    store_out<T>(p.out, o + 2, acc[i].z * inv);
    store_out<T>(p.out, o + 3, acc[i].w * inv);
  }
}

// One block of decode_kernel: kSplit, compiled for a split history (partials, the merge) or for
// an unsplit one (neither: the merge's code, never run there, had cost unsplit reads by how it
// changed the main loop's compiled form; docs/cuda.md, "A split kernel and an unsplit one").
// kCluster: a split row launched as one thread block cluster (DecodeParams::cluster), merged in
// its first block's shared memory; its own kernel, since the cluster's code in the split kernel
// had cost the split calls that never run as clusters (docs/cuda.md, "Split histories and their
// merge"). Probe: the product's NoProbe (decode_kernel), or the variant build's
// (variants/bench_probe.cuh).
template <class Math, class Rows, int kWarps, int kStages, int kKvPerBlock, bool kSplit,
          bool kCluster, class Probe>
__device__ __forceinline__ void decode_block(const DecodeParams& p) {
  using T = typename Math::T;
  using Tile = typename Math::Tile;
  constexpr int D = Math::D;          // of a staged row
  constexpr int kOutD = Math::kOutD;  // of q and of an output head (D / 2 for pairs of heads)
  constexpr int kTile = Math::kTile;
  constexpr int kHeads = Math::kHeads;
  constexpr int kRowChunks = Math::kRowChunks;
  constexpr int kTileChunks = kTile * kRowChunks;  // of K (and of V) per tile
  constexpr int kStageChunks = stage_chunks<Math>();
  constexpr std::size_t kRowBytes = std::size_t(kRowChunks) * 16;  // of K/V, in Math::Kv
  constexpr int kWarpsPerKv = kWarps / kKvPerBlock;
  static_assert(kTileChunks % kWarp == 0, "a tile is whole warp-wide copies");
  static_assert(kWarps % kKvPerBlock == 0, "whole warps per KV head");
  static_assert(kSplit || !kCluster, "a cluster merges splits");
  extern __shared__ uint4 smem[];

  const int lane = threadIdx.x % kWarp;
  const int warp = threadIdx.x / kWarp;
  const int kv_local = warp / kWarpsPerKv;  // this warp's KV head within the block
  const int kv_warp = warp % kWarpsPerKv;   // and its index among that head's warps
  const int split = blockIdx.x;
  // A pair of KV heads (Math::kPaired) is one head of rows twice as long whose group is both
  // heads' query heads (the launch's grid and kv_per_block count pairs).
  const int group = Math::kPaired ? 2 * p.group : p.group;
  const int kv_first = blockIdx.y / p.head_tiles * kKvPerBlock;
  const int kv_head = kv_first + kv_local;
  const int head_tile = blockIdx.y % p.head_tiles;
  const int b = blockIdx.z;
  const int begin = split * p.split_tokens;
  const int end = min(p.length, begin + p.split_tokens);
  const int tiles = (end - begin + kTile - 1) / kTile;
  const int head0 = kv_head * group + head_tile * kHeads;  // first query head served here
  const int valid_heads = min(kHeads, group - head_tile * kHeads);

  Probe probe(p);
  probe.started();
  // A split row as a cluster: this block has started; the other blocks of the cluster wait for
  // that before they write its shared memory.
  if constexpr (kCluster) cluster_arrive_relaxed();
  // Under a dependent launch (Tuning::dependent_launch) this kernel may start while the
  // previous kernel of the stream still runs: q, the outputs and the split workspace wait for
  // it; a read-only history (the paged pools) is walked and its first tiles copied before that.
  if (p.trigger_at_start) launch_dependents();
  const bool history_first = Rows::kHistoryIsReadOnly && !p.wait_first;
  if (!history_first) wait_for_prerequisite();
  Math math;

  // K/V of this KV head: row r starts at base + r * row_stride.
  const std::size_t row_stride = std::size_t(p.kv_heads / (Math::kPaired ? 2 : 1)) * kRowBytes;
  const char* k_base = static_cast<const char*>(p.k) + std::size_t(kv_head) * kRowBytes;
  const char* v_base = static_cast<const char*>(p.v) + std::size_t(kv_head) * kRowBytes;

  // Tiles w, w + W, ... of this split belong to warp w of W (per KV head): the warps of a
  // block stream neighbouring tiles at the same time.
  const int my_tiles = kv_warp < tiles ? (tiles - kv_warp + kWarpsPerKv - 1) / kWarpsPerKv : 0;
  const uint4* my_stages = smem + warp * kStages * kStageChunks;
  const uint32_t my_stages_addr = static_cast<uint32_t>(__cvta_generic_to_shared(my_stages));

  // Lane j < kTile looks up token j of a tile (tokens past the end repeat the last one; they
  // are masked later) and shuffles the row to the lanes that copy it.
  const int j = lane < kTile ? lane : kTile - 1;
  auto token_of = [&](int it) {
    return min(begin + (kv_warp + it * kWarpsPerKv) * kTile + j, end - 1);
  };
  int fetched = my_tiles > 0 ? Rows::fetch(p, b, token_of(0)) : 0;
  int issued = 0;
  // Copy n of a tile moves chunks n*32 + lane of K and of V: whole rows, so each warp-wide
  // copy covers full 128-byte lines.
  auto issue = [&](int stage) {
    const uint32_t row = Rows::row(p, b, token_of(issued), fetched);
    ++issued;
    if (issued < my_tiles) fetched = Rows::fetch(p, b, token_of(issued));  // a tile ahead
    const uint32_t k_dst = my_stages_addr + uint32_t(stage * kStageChunks * 16);
    const uint32_t v_dst = k_dst + uint32_t(kTileChunks * 16);
#pragma unroll
    for (int n = 0; n < kTileChunks / kWarp; ++n) {
      const int q = n * kWarp + lane;
      const int r = q / kRowChunks, chunk = q % kRowChunks;
      const std::size_t offset =
          std::size_t(__shfl_sync(0xffffffffu, row, r)) * row_stride + std::size_t(chunk) * 16;
      cp_async_16(k_dst + uint32_t(Tile::k_slot(r, chunk) * 16), k_base + offset,
                  p.copy_through_l1);
      cp_async_16(v_dst + uint32_t(Tile::v_slot(r, chunk) * 16), v_base + offset,
                  p.copy_through_l1);
    }
  };

  // One loop for the prologue (it < 0: copies only) and the steady state, so the copy and the
  // math are each compiled once: a smaller kernel starts faster on a cold instruction cache.
  // A warp with no tiles still passes it = 0, where q is loaded.
#pragma unroll 1
  for (int it = 1 - kStages; it < my_tiles || it <= 0; ++it) {
    __syncwarp();  // every lane is done reading the stage the next issue overwrites
    if (it + kStages - 1 < my_tiles) issue((it + kStages - 1) % kStages);
    cp_async_commit();  // empty groups keep the count uniform
    // The next kernel may launch once this warp's last copies are in flight (the first warp of
    // the block to get there decides), a memory latency before its reads are done; but not
    // where its copies all went out at once before its first tile (my_tiles <= kStages): that,
    // like a trigger at the start, piles short calls up (docs/cuda.md, "Launches and timing").
    if (p.trigger_at_last_issue && it > 0 && it + kStages == my_tiles) launch_dependents();
    probe.copies_issued(p, it, kStages, my_tiles);
    if (it < 0) continue;
    if (it == 0) {
      if (history_first) wait_for_prerequisite();
      math.init(static_cast<const T*>(p.q) + (std::size_t(b) * p.q_heads + head0) * kOutD,
                valid_heads, p.group, lane);
      if (my_tiles == 0) break;
    }
    cp_async_wait<kStages - 1>();  // this lane's copies of tile `it` have landed
    __syncwarp();                  // ... and every other lane's
    const uint4* stage = my_stages + (it % kStages) * kStageChunks;
    const int first = begin + (kv_warp + it * kWarpsPerKv) * kTile;
    math.compute(Tile{stage, stage + kTileChunks}, end - first, p.scale_log2, lane);
    probe.tile_computed(p, it, kStages, my_tiles);
  }
  // This warp's reads are done (if no warp of the block let the next kernel launch before, it
  // may launch now, into the SMs as blocks leave).
  if (!p.trigger_at_start && !p.trigger_at_exit) launch_dependents();
  math.finish(lane);
  cp_async_wait<0>();
  __syncthreads();  // the pipeline's shared memory becomes the merge area
  probe.reads_done();

  float* sm_o = reinterpret_cast<float*>(smem);  // [W, kHeads, D]
  float* sm_m = sm_o + kWarps * kHeads * D;      // [W, kHeads]
  float* sm_l = sm_m + kWarps * kHeads;          // [W, kHeads]
  math.store(sm_o + warp * kHeads * D, sm_m + warp * kHeads, sm_l + warp * kHeads, lane);
  __syncthreads();

  // Query heads served here: valid_heads of each of the block's KV heads; with several KV
  // heads per block the group fits one head tile, so they are contiguous from bh0.
  const std::size_t bh0 =
      std::size_t(b) * p.q_heads + std::size_t(kv_first) * group + head_tile * kHeads;
  const int heads_here = kKvPerBlock == 1 ? valid_heads : kKvPerBlock * group;
  constexpr int kQuads = kOutD / 4;  // four consecutive d of an output per thread
  // In a cluster, this block's partials go to its slot in the first block's shared memory:
  // [cluster][heads_here][kOutD] outputs, then [cluster][heads_here] log-sum-exps.
  constexpr std::size_t kSlotsOffset = cluster_slots_offset<Math, kWarps, kStages>();
  const unsigned rank = kCluster ? cluster_rank() : 0;
  uint32_t slots = 0;  // shared::cluster address of the first block's slots
  if constexpr (kCluster) {
    cluster_wait();  // every block of the cluster has started
    slots = map_to_rank(
        static_cast<uint32_t>(__cvta_generic_to_shared(smem)) + uint32_t(kSlotsOffset), 0);
  }
  for (int idx = threadIdx.x; idx < kKvPerBlock * valid_heads * kQuads; idx += kWarps * kWarp) {
    const int kv = idx / (valid_heads * kQuads), h = idx / kQuads % valid_heads;
    const int d = idx % kQuads * 4;
    const int d_row = Math::kPaired ? d + h / p.group * kOutD : d;  // of the staged row
    const int w0 = kv * kWarpsPerKv;
    float m_all = -CUDART_INF_F;
#pragma unroll
    for (int w = w0; w < w0 + kWarpsPerKv; ++w) m_all = fmaxf(m_all, sm_m[w * kHeads + h]);
    float sum = 0.0f;
    float4 acc = make_float4(0, 0, 0, 0);
#pragma unroll
    for (int w = w0; w < w0 + kWarpsPerKv; ++w) {
      const float mw = sm_m[w * kHeads + h];
      if (mw == -CUDART_INF_F) continue;  // a warp with no tokens
      const float weight = exp2f(mw - m_all);
      const float4 x = *reinterpret_cast<const float4*>(sm_o + (w * kHeads + h) * D + d_row);
      sum += weight * sm_l[w * kHeads + h];
      acc.x = fmaf(weight, x.x, acc.x);
      acc.y = fmaf(weight, x.y, acc.y);
      acc.z = fmaf(weight, x.z, acc.z);
      acc.w = fmaf(weight, x.w, acc.w);
    }
    const float inv = p.out_scale / sum;  // the V scale of quantized K/V, else 1
    const std::size_t bh = bh0 + std::size_t(kv) * group + h;
    if constexpr (!kSplit) {
      store_out<T>(p.out, bh * kOutD + d, acc.x * inv);
      store_out<T>(p.out, bh * kOutD + d + 1, acc.y * inv);
      store_out<T>(p.out, bh * kOutD + d + 2, acc.z * inv);
      store_out<T>(p.out, bh * kOutD + d + 3, acc.w * inv);
    } else if constexpr (kCluster) {
      const int hh = int(bh - bh0);
      store_cluster(slots + uint32_t(((int(rank) * heads_here + hh) * kOutD + d) * sizeof(float)),
                    make_float4(acc.x * inv, acc.y * inv, acc.z * inv, acc.w * inv));
      if (d == 0)
        store_cluster(
            slots + uint32_t((p.cluster * heads_here * kOutD + int(rank) * heads_here + hh) *
                             sizeof(float)),
            m_all + log2f(sum));
    } else {
      *reinterpret_cast<float4*>(p.partial_out + (bh * p.splits + split) * kOutD + d) =
          make_float4(acc.x * inv, acc.y * inv, acc.z * inv, acc.w * inv);
      if (d == 0) p.partial_lse[bh * p.splits + split] = m_all + log2f(sum);
    }
  }
  probe.outputs_written();
  if constexpr (!kSplit) {
    return;
  } else if constexpr (kCluster) {
    // A row in one cluster: its blocks leave once their partials are in the first block's
    // slots, and the first merges them into the output (no workspace, no counter).
    cluster_arrive_release();
    probe.arrived();
    if (rank != 0) {
      probe.leaving();
      return;
    }
    cluster_wait();
    probe.merge_begun();
    const float* slot =
        reinterpret_cast<const float*>(reinterpret_cast<const char*>(smem) + kSlotsOffset);
    const float* slot_lse = slot + p.cluster * heads_here * kOutD;
    for (int idx = threadIdx.x; idx < heads_here * kQuads; idx += kWarps * kWarp) {
      const int hh = idx / kQuads, d = idx % kQuads * 4;
      float m = -CUDART_INF_F;  // every split holds a token: its log-sum-exp is finite
      for (int r = 0; r < p.cluster; ++r) m = fmaxf(m, slot_lse[r * heads_here + hh]);
      float l = 0.0f;
      float4 a = make_float4(0, 0, 0, 0);
      for (int r = 0; r < p.cluster; ++r) {
        const float w = exp2f(slot_lse[r * heads_here + hh] - m);
        const float4 x = *reinterpret_cast<const float4*>(slot + (r * heads_here + hh) * kOutD + d);
        l += w;
        a.x = fmaf(w, x.x, a.x);
        a.y = fmaf(w, x.y, a.y);
        a.z = fmaf(w, x.z, a.z);
        a.w = fmaf(w, x.w, a.w);
      }
      const float inv = 1.0f / l;
      const std::size_t o = (bh0 + std::size_t(hh)) * kOutD + d;
      store_out<T>(p.out, o, a.x * inv);
      store_out<T>(p.out, o + 1, a.y * inv);
      store_out<T>(p.out, o + 2, a.z * inv);
      store_out<T>(p.out, o + 3, a.w * inv);
    }
    probe.done();
  } else {
    if (p.split_counters == nullptr) return;  // the merge_kernel variant merges afterwards

    // The last block of this (sequence, KV head, head tile) to finish merges all splits
    // (a counter of arrivals, as CUTLASS's semaphore) and re-arms the counter for the next call.
    // The block's barrier orders every thread's partials before thread 0's fence, which
    // releases them with its atomic and, in the last block, acquires the other blocks' before
    // the barrier that lets the block read them (one thread's acquire-release fence: every
    // thread's sequentially consistent one cost split calls 0.5-1.8%; docs/cuda.md).
    __shared__ int is_last;
    int* counter = p.split_counters + std::size_t(b) * gridDim.y + blockIdx.y;
    probe.before_arrival(p);
    __syncthreads();
    probe.arrived();
    if (threadIdx.x == 0) {
      fence_acq_rel_gpu();
      is_last = atomic_add_relaxed_gpu(counter, 1) == p.splits - 1;
      if (is_last) fence_acq_rel_gpu();
    }
    __syncthreads();
    if (!is_last) {
      probe.leaving();
      return;
    }
    probe.merging(p);
    probe.merge_begun();
    // Each thread merges at most kMergeItems four-float slices of the heads_here * kOutD outputs.
    constexpr int kMergeItems =
        (kKvPerBlock * kHeads * kQuads + kWarps * kWarp - 1) / (kWarps * kWarp);
    constexpr int kSmemFloats = int(decode_smem_bytes<Math, kWarps, kStages>() / sizeof(float));
    if (!probe.template merge<T>(p, bh0, heads_here, reinterpret_cast<float*>(smem)))
      merge_splits<T, kOutD, kWarps * kWarp, kMergeItems, Probe>(
          p, bh0, heads_here, reinterpret_cast<float*>(smem), kSmemFloats);
    if (threadIdx.x == 0) *counter = 0;
    probe.done();
  }
}

// The product's decode kernel: decode_block with no probe.
template <class Math, class Rows, int kWarps, int kStages, int kKvPerBlock, bool kSplit,
          bool kCluster = false>
__global__ void __launch_bounds__(kWarps* kWarp)
    decode_kernel(const __grid_constant__ DecodeParams p) {
  decode_block<Math, Rows, kWarps, kStages, kKvPerBlock, kSplit, kCluster, NoProbe>(p);
}

}  // namespace readbench::cuda::kernels
