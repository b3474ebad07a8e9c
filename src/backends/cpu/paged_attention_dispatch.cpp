// Picks the widest instruction set this processor runs for the CPU reads. The kernels in
// paged_attention.cpp are compiled twice: for the baseline target of the build and, on
// x86-64, for x86-64-v4 with AVX512-BF16 (twice the lanes and registers, bf16 dot products),
// on aarch64 for Armv8.2 with the BF16 extension (bf16 dot products).
#include <algorithm>

#if defined(__aarch64__) && defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

#include "backends/cpu/paged_attention.hpp"

namespace readbench::cpu {

CpuFeatures detect_cpu_features() {
  CpuFeatures f;
#if defined(__x86_64__)
  f.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512bf16");
#elif defined(__aarch64__) && defined(__linux__)
  // The kernel's hardware capabilities: what the processor has and the kernel lets user
  // space run. (Advanced SIMD itself is part of every aarch64 Linux ABI.)
  // The copy is built for +fp16+bf16: both, though every BF16 core also has half precision.
  f.arm_bf16 =
      (::getauxval(AT_HWCAP2) & HWCAP2_BF16) != 0 && (::getauxval(AT_HWCAP) & HWCAP_ASIMDHP) != 0;
#endif
  return f;
}

std::string_view pick_kernels([[maybe_unused]] const CpuFeatures& f) {
#if defined(READBENCH_HAVE_AVX512_KERNELS)
  if (f.avx512) return "avx512";
#endif
#if defined(READBENCH_HAVE_ARM_BF16_KERNELS)
  if (f.arm_bf16) return "arm-bf16";
#endif
  return "baseline";
}

std::string_view instruction_set() {
  static const std::string_view picked = pick_kernels(detect_cpu_features());
  return picked;
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

void fused_read(const ReadInputs& h, std::byte* out, int threads) {
#if defined(READBENCH_HAVE_AVX512_KERNELS)
  if (instruction_set() == "avx512") return avx512::fused_read(h, out, threads);
#endif
#if defined(READBENCH_HAVE_ARM_BF16_KERNELS)
  if (instruction_set() == "arm-bf16") return arm_bf16::fused_read(h, out, threads);
#endif
  baseline::fused_read(h, out, threads);
}

void gather_read(const ReadInputs& h, std::byte* out, GatherWorkspace ws, int threads) {
#if defined(READBENCH_HAVE_AVX512_KERNELS)
  if (instruction_set() == "avx512") return avx512::gather_read(h, out, ws, threads);
#endif
#if defined(READBENCH_HAVE_ARM_BF16_KERNELS)
  if (instruction_set() == "arm-bf16") return arm_bf16::gather_read(h, out, ws, threads);
#endif
  baseline::gather_read(h, out, ws, threads);
}

void widen_e4m3(const std::uint8_t* codes, std::size_t n, float* out) {
#if defined(READBENCH_HAVE_AVX512_KERNELS)
  if (instruction_set() == "avx512") return avx512::widen_e4m3(codes, n, out);
#endif
#if defined(READBENCH_HAVE_ARM_BF16_KERNELS)
  if (instruction_set() == "arm-bf16") return arm_bf16::widen_e4m3(codes, n, out);
#endif
  baseline::widen_e4m3(codes, n, out);
}

void widen_e4m3_to_bf16(const std::uint8_t* codes, std::size_t n, std::uint16_t* out) {
#if defined(READBENCH_HAVE_AVX512_KERNELS)
  if (instruction_set() == "avx512") return avx512::widen_e4m3_to_bf16(codes, n, out);
#endif
#if defined(READBENCH_HAVE_ARM_BF16_KERNELS)
  if (instruction_set() == "arm-bf16") return arm_bf16::widen_e4m3_to_bf16(codes, n, out);
#endif
  baseline::widen_e4m3_to_bf16(codes, n, out);
}

}  // namespace readbench::cpu
