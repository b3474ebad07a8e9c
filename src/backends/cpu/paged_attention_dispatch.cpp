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

int history_splits(const Workload& w, int threads) {
  const std::int64_t seqs = w.shape.batch;
  // Two tasks per thread balance uneven progress; never more slices than blocks.
  const std::int64_t wanted = (2 * std::int64_t(threads) + seqs - 1) / seqs;
  return int(std::clamp<std::int64_t>(wanted, 1, std::max<std::int64_t>(1, w.blocks_per_seq())));
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
