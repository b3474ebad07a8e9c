#pragma once
// The decode-attention problem: B sequences, one query token each.
#include <cstdint>
#include <optional>
#include <string>

#include "core/dtype.hpp"

namespace readbench {

// Upper bounds of the shape's fields: they keep every size product within 64 bits and one
// query within reach. The command line checks its options against the same numbers.
inline constexpr int kMaxBatch = 1 << 20;
inline constexpr int kMaxHeads = 1 << 16;  // q_heads and kv_heads
inline constexpr int kMaxHeadDim = 1 << 16;
inline constexpr int kMaxBlockSize = 1 << 20;

struct Shape {
  int batch = 1;        // B
  int q_heads = 32;     // Hq
  int kv_heads = 8;     // Hkv; Hq % Hkv == 0 (GQA)
  int head_dim = 128;   // D
  int block_size = 16;  // S, tokens per cache block

  int group() const { return q_heads / kv_heads; }
  // Spelled out: the CUDA sources include this header as C++17, which has no defaulted ==.
  bool operator==(const Shape& o) const {
    return batch == o.batch && q_heads == o.q_heads && kv_heads == o.kv_heads &&
           head_dim == o.head_dim && block_size == o.block_size;
  }
  // Throws InputError naming the first bad field.
  void validate() const;
};

// One timed configuration: a shape at one history length, with `replicas` independent copies
// of the per-call inputs (block tables, queries, outputs) over one shared pool, so that a batch
// of calls after a cache flush reads data that no earlier call in the batch touched.
struct Workload {
  Shape shape;
  DType dtype = DType::bf16;  // q and the output
  std::int64_t length = 0;    // L, history tokens per sequence
  int replicas = 1;
  std::uint64_t seed = 0;
  std::optional<DType> kv_storage;  // K/V; empty: the same as dtype

  DType kv_dtype() const { return kv_storage.value_or(dtype); }
  // K/V hold value / kv_scale(): 1 unless they are quantized (one scale for each pool).
  float kv_scale() const { return kv_dtype() == DType::e4m3 ? kE4m3Scale : 1.0f; }

  std::int64_t blocks_per_seq() const { return (length + shape.block_size - 1) / shape.block_size; }
  // Physical blocks in the pool: every replica's sequences own distinct blocks.
  std::int64_t num_blocks() const {
    return std::int64_t(replicas) * shape.batch * blocks_per_seq();
  }
  // Elements of one K (or V) pool: [num_blocks, S, Hkv, D].
  std::int64_t pool_elements() const {
    return num_blocks() * shape.block_size * shape.kv_heads * shape.head_dim;
  }
  // Elements of q or the output for one replica: [B, Hq, D].
  std::int64_t io_elements() const {
    return std::int64_t(shape.batch) * shape.q_heads * shape.head_dim;
  }
  // K and V bytes one call reads: the history actually attended to, not padding.
  std::int64_t kv_bytes_per_call() const {
    return 2 * std::int64_t(shape.batch) * length * shape.kv_heads * shape.head_dim *
           std::int64_t(element_size(kv_dtype()));
  }
};

// "bf16", or "bf16 q, fp8_e4m3 K/V (scale 0.00223 per tensor)" where K/V differ.
std::string dtypes_label(const Workload& w);

}  // namespace readbench
