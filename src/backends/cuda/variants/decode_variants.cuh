#pragma once
// The variant build's table of decode kernels (tools/h200, docs/cuda.md, "The variant build"):
// the product's kernels with the bench probe (timelines, launch and merge variants), and the
// blocks TuningVariants may ask for instead of the default. Included only by the variant
// build's sources, which pass BenchTable where the product passes kernels::ProductTable.
#include <optional>

#include "backends/cuda/kernels/decode_table.cuh"
#include "backends/cuda/variants/bench_probe.cuh"
#include "backends/cuda/variants/tuning_variants.hpp"

namespace readbench::cuda::variants {

// decode_kernel with the bench probe.
template <class Math, class Rows, int kWarps, int kStages, int kKvPerBlock, bool kSplit,
          bool kCluster>
__global__ void __launch_bounds__(kWarps* kWarp)
    bench_decode_kernel(const __grid_constant__ DecodeParams p) {
  kernels::decode_block<Math, Rows, kWarps, kStages, kKvPerBlock, kSplit, kCluster, BenchProbe>(p);
}

struct BenchTable {
  template <class Math, class Rows, int kWarps, int kStages, int kKvPerBlock, bool kSplit,
            bool kCluster>
  static const void* kernel() {
    return reinterpret_cast<const void*>(
        &bench_decode_kernel<Math, Rows, kWarps, kStages, kKvPerBlock, kSplit, kCluster>);
  }
  // Eight warps of two stages (TuningVariants::warps 8), for stages of at most 8 KiB.
  template <class Math, class Rows>
  static std::optional<DecodeKernel> block(const Tuning& t) {
    if constexpr (kernels::stage_chunks<Math>() * 16 <= 8192)
      if (variants_of(t).warps == 8)
        return kernels::decode_kernel_entry<Math, Rows, 8, 2, 1, BenchTable>();
    return std::nullopt;
  }
  static bool default_block(const Tuning& t) { return cuda::default_block(t); }
};

}  // namespace readbench::cuda::variants
