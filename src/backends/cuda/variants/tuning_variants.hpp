#pragma once
// The variant build's tuning knobs (tools/h200, docs/cuda.md, "The variant build"): kernel
// variants and launch variants the plan may choose instead of the product's. Included only by
// the variant build's sources (-DREADBENCH_BENCH_VARIANTS=ON); readbench's product never sets
// Tuning::variants.
#include <string_view>

#include "backends/cuda/decode_launch.hpp"

namespace readbench::cuda {

struct TuningVariants {
  int warps = 4;                  // warps a block: 4, or 8 (two stages; for stages <= 8 KiB)
  int stages = 0;                 // cp.async depth: 0 by block shape (bf16 D=128 variants: 2, 4, 6)
  int kv_per_block = 1;           // KV heads per thread block (1, 4 or 8; bf16 D=128 variants)
  bool simt_half = false;         // bf16 D=128 through the CUDA-core kernel instead of mma
  bool flush_read = false;        // cold flush also streams a second L2-sized buffer (clean L2)
  bool merge_kernel = false;      // merge splits in a second kernel, not in the decode's last block
  bool trigger_at_start = false;  // dependent launch: the next kernel may start at once
  bool wait_first = false;        // dependent launch: wait for the previous kernel before reading
  bool trigger_at_exit = false;   // dependent launch: the next kernel may start as blocks exit
  bool trigger_after_reads = false;  // ... once each block's reads are done (the first rule)
  int trigger_after_issue = 0;       // ... once a warp of each block has issued its last copies,
                                     // before its first tile too (1; 2: a tile later)
  int merge_variant = 0;             // 2: the two-pass split merge the staged one replaced
  int fence_variant = 0;             // 1: every thread's fences (DecodeParams::fence_variant)
};

// `t`'s variants, or the defaults (the product's kernels) where it names none.
inline const TuningVariants& variants_of(const Tuning& t) {
  static const TuningVariants defaults;
  return t.variants ? *t.variants : defaults;
}

// Whether `t` selects the product's block (four warps, stages by shape, a KV head a block, the
// tensor cores for 16-bit q).
inline bool default_block(const Tuning& t) {
  const TuningVariants& v = variants_of(t);
  return v.warps == 4 && v.stages == 0 && v.kv_per_block == 1 && !v.simt_half;
}

// Applies "key=value,..." (keys: warps, stages, kv, l1, simt, waves, minsplit, graph, flushread,
// merge, mergev, pdl, shortsplit, fence, cluster, spread, fewrows, pairs) to `t`, as tools/h200
// names its variants. Throws InputError naming a bad entry.
void apply_tuning(Tuning& t, std::string_view spec);

}  // namespace readbench::cuda
