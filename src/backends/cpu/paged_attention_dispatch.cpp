// Picks the widest instruction set this processor runs for the CPU reads. The kernels in
// paged_attention.cpp are compiled twice: for x86-64-v4 with AVX512-BF16 (twice the lanes
// and registers, bf16 dot products) and for the baseline target of the build.
#include <algorithm>

#include "backends/cpu/paged_attention.hpp"

namespace readbench::cpu {

namespace {
bool use_avx512() {
#if defined(READBENCH_HAVE_AVX512_KERNELS)
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vl") &&
                          __builtin_cpu_supports("avx512dq") &&
                          __builtin_cpu_supports("avx512bf16");
  return yes;
#else
  return false;
#endif
}
}  // namespace

std::string_view instruction_set() {
  return use_avx512() ? "avx512" : "baseline";
}

namespace {
// Balanced: a multiple of the threads, or at least two per thread for the dynamic schedule
// to even out.
bool keeps_busy(std::int64_t tasks, std::int64_t threads) {
  return tasks >= 2 * threads || (tasks >= threads && tasks % threads == 0);
}
}  // namespace

WorkSplit split_work(const Workload& w, int threads) {
  const std::int64_t t = std::max(threads, 1), seqs = w.shape.batch;
  const std::int64_t blocks = std::max<std::int64_t>(1, w.blocks_per_seq());
  WorkSplit s;
  // Whole blocks first: sequences, then slices of the history long enough to stream.
  const std::int64_t long_slices = std::max<std::int64_t>(1, blocks / kMinSliceBlocks);
  while (!keeps_busy(seqs * s.history_splits, t) && s.history_splits < long_slices)
    ++s.history_splits;
  if (keeps_busy(seqs * s.history_splits, t)) return s;
  // Then groups of KV heads.
  const int kv_heads = w.shape.kv_heads;
  for (int g = 2; g <= kv_heads; ++g) {
    if (kv_heads % g != 0) continue;
    s.head_groups = g;
    if (keeps_busy(seqs * g * s.history_splits, t)) return s;
  }
  // One task per KV head still leaves threads idle: shorter slices, down to one block.
  while (!keeps_busy(seqs * kv_heads * s.history_splits, t) && s.history_splits < blocks)
    ++s.history_splits;
  return s;
}

void fused_read(const HostWorkload& h, int replica, std::byte* out, int threads) {
#if defined(READBENCH_HAVE_AVX512_KERNELS)
  if (use_avx512()) return avx512::fused_read(h, replica, out, threads);
#endif
  baseline::fused_read(h, replica, out, threads);
}

void gather_read(const HostWorkload& h, int replica, std::byte* out, GatherWorkspace ws,
                 int threads) {
#if defined(READBENCH_HAVE_AVX512_KERNELS)
  if (use_avx512()) return avx512::gather_read(h, replica, out, ws, threads);
#endif
  baseline::gather_read(h, replica, out, ws, threads);
}

}  // namespace readbench::cpu
