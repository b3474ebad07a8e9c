#pragma once
// Row policies: token -> row of the K/V tensor viewed as [rows, Hkv, D]. PagedRows walks the
// block table (the fused path); ContiguousRows reads the gather path's materialized
// [B, L, Hkv, D] history. Nothing else differs between the paths.
#include <cstddef>
#include <cstdint>

#include "backends/cuda/decode_launch.hpp"

namespace readbench::cuda::kernels {

// tok / S by multiply and shift (Granlund-Montgomery; exact for tok < 2^31): a hardware
// integer division is a long dependent chain on the path of every tile's first copy.
__device__ __forceinline__ uint32_t div_block(const DecodeParams& p, int tok) {
  return uint32_t((uint64_t(uint32_t(tok)) * p.block_div_magic) >> p.block_div_shift);
}

struct PagedRows {
  // The pools and the block table hold the history, which no kernel of the stream writes: a
  // dependent launch may start reading it before the previous kernel has finished.
  static constexpr bool kHistoryIsReadOnly = true;
  // The block-table entry of `tok`, loaded a tile before `row` needs it.
  __device__ static int fetch(const DecodeParams& p, int b, int tok) {
    return __ldg(p.block_table + std::size_t(b) * p.blocks_per_seq + div_block(p, tok));
  }
  __device__ static uint32_t row(const DecodeParams& p, int /*b*/, int tok, int fetched) {
    const uint32_t offset = uint32_t(tok) - div_block(p, tok) * uint32_t(p.block_size);
    return uint32_t(fetched) * uint32_t(p.block_size) + offset;
  }
};

struct ContiguousRows {
  static constexpr bool kHistoryIsReadOnly = false;  // the gather kernel just wrote it
  __device__ static int fetch(const DecodeParams&, int, int) { return 0; }
  __device__ static uint32_t row(const DecodeParams& p, int b, int tok, int /*fetched*/) {
    return uint32_t(b) * uint32_t(p.length) + uint32_t(tok);
  }
};

}  // namespace readbench::cuda::kernels
