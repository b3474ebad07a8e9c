#include "core/host_workload.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <string>

#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/mapping_cache.hpp"
#include "core/random_fill.hpp"

namespace readbench {

BlockAllocator::BlockAllocator(std::int64_t num_blocks, std::uint64_t seed) {
  if (num_blocks > std::numeric_limits<std::int32_t>::max())
    throw InputError("the cache needs " + std::to_string(num_blocks) +
                     " blocks, more than a 32-bit block table can address");
  free_.resize(std::size_t(num_blocks));
  std::iota(free_.begin(), free_.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(free_.begin(), free_.end(), rng);
}

std::int32_t BlockAllocator::allocate() {
  if (free_.empty()) throw InputError("block pool exhausted");
  const std::int32_t id = free_.back();
  free_.pop_back();
  return id;
}

namespace {

// Elements [begin, end) of a tensor whose tensor_hash is `base`, stored as the element type
// (random_value's values exactly). The hash is most of a long length's preparation (2 ns an
// element on the development VM, 4 GiB of K/V at L = 1048576): GCC builds an AVX-512 clone
// (x86-64-v4, 64-bit multiplies in vectors: 0.46 ns) picked at load time where the CPU has it.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_ADDRESS__)
#define READBENCH_FILL_CLONES __attribute__((target_clones("arch=x86-64-v4", "default")))
#else
#define READBENCH_FILL_CLONES
#endif

READBENCH_FILL_CLONES void fill_f32(float* dst, std::uint64_t base, std::int64_t begin,
                                    std::int64_t end, float inverse) {
  for (std::int64_t i = begin; i < end; ++i)
    dst[i] = random_value_from(base, std::uint64_t(i)) * inverse;
}

READBENCH_FILL_CLONES void fill_f16(std::uint16_t* dst, std::uint64_t base, std::int64_t begin,
                                    std::int64_t end, float inverse) {
  for (std::int64_t i = begin; i < end; ++i)
    dst[i] = float_to_f16_bits(random_value_from(base, std::uint64_t(i)) * inverse);
}

READBENCH_FILL_CLONES void fill_bf16(std::uint16_t* dst, std::uint64_t base, std::int64_t begin,
                                     std::int64_t end, float inverse) {
  for (std::int64_t i = begin; i < end; ++i)
    dst[i] = float_to_bf16_bits(random_value_from(base, std::uint64_t(i)) * inverse);
}

READBENCH_FILL_CLONES void fill_e4m3(std::uint8_t* dst, std::uint64_t base, std::int64_t begin,
                                     std::int64_t end, float inverse) {
  for (std::int64_t i = begin; i < end; ++i)
    dst[i] = float_to_e4m3_bits(random_value_from(base, std::uint64_t(i)) * inverse);
}
#undef READBENCH_FILL_CLONES  // a unity build's next file is not to see it

// Gigabytes at the longest lengths take seconds: a signal skips the blocks not yet filled
// (nothing may leave a parallel region by throwing) and the caller throws after it. Whole blocks
// in one static loop touch the pages the way a loop over the elements would.
// A quantized type stores value / scale.
void fill(AlignedBuffer& buf, DType t, std::uint64_t seed, TensorId id, std::int64_t n,
          float scale = 1.0f) {
  constexpr std::int64_t kBlock = 1 << 16;
  const float inverse = 1.0f / scale;
  const std::uint64_t base = tensor_hash(seed, id);
  void* const dst = buf.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t b = 0; b < n; b += kBlock) {
    if (interrupt_signal() != 0) continue;
    const std::int64_t end = std::min(n, b + kBlock);
    switch (t) {
      case DType::f32:
        fill_f32(static_cast<float*>(dst), base, b, end, inverse);
        break;
      case DType::f16:
        fill_f16(static_cast<std::uint16_t*>(dst), base, b, end, inverse);
        break;
      case DType::bf16:
        fill_bf16(static_cast<std::uint16_t*>(dst), base, b, end, inverse);
        break;
      case DType::e4m3:
        fill_e4m3(static_cast<std::uint8_t*>(dst), base, b, end, inverse);
        break;
    }
  }
  throw_if_interrupted();
}

}  // namespace

std::int64_t host_workload_bytes(const Workload& w) {
  const long double bytes = 2.0L * w.pool_elements() * element_size(w.kv_dtype()) +
                            (long double)w.replicas * w.io_elements() * element_size(w.dtype) +
                            (long double)w.num_blocks() * sizeof(std::int32_t);
  return bytes > 9e18L ? std::numeric_limits<std::int64_t>::max() : std::int64_t(bytes);
}

std::int64_t host_memory_available_bytes() {
  // MemAvailable counts the page cache the kernel can drop; free memory alone would
  // understate it on any machine that has read files. The mappings readbench keeps for reuse
  // are available to it too: a new mapping unmaps as many of their bytes as it takes, or all of
  // them (mapping_cache.hpp).
  const auto cached = std::int64_t(MappingCache::process().cached_bytes());
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::int64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024 + cached;
  return std::int64_t(::sysconf(_SC_AVPHYS_PAGES)) * ::sysconf(_SC_PAGE_SIZE) + cached;
}

void check_host_memory(const Workload& w) {
  // Size the whole workload before allocating any of it, in floating point so that no
  // product can overflow, and refuse what this machine's memory cannot hold.
  const long double bytes =
      2.0L * w.replicas * w.shape.batch *
          ((w.length + w.shape.block_size - 1) / w.shape.block_size) * w.shape.block_size *
          w.shape.kv_heads * w.shape.head_dim * element_size(w.kv_dtype()) +
      2.0L * w.replicas * w.shape.batch * w.shape.q_heads * w.shape.head_dim *
          element_size(w.dtype) +
      // the f64 copies of one output that a correctness check holds (reference and result)
      2.0L * 8 * w.shape.batch * w.shape.q_heads * w.shape.head_dim;
  // Leave a fifth of the memory to everything else (flush and ceiling buffers, the system).
  const long double memory =
      0.8L * (long double)::sysconf(_SC_PHYS_PAGES) * ::sysconf(_SC_PAGE_SIZE);
  if (w.length > (1ll << 40))
    throw InputError("history length " + std::to_string(w.length) + " is beyond 2^40 tokens");
  if (bytes > memory) {
    std::ostringstream os;
    os.precision(4);
    os << "the workload needs " << double(bytes) << " bytes of host memory (B=" << w.shape.batch
       << ", L=" << w.length << ", " << w.replicas << " replicas); at most " << double(memory)
       << " can be used here";
    throw InputError(os.str());
  }
}

HostWorkload make_host_workload(const Workload& w) {
  w.shape.validate();
  if (w.length <= 0)
    throw InputError("history length must be positive, got " + std::to_string(w.length));
  if (w.replicas <= 0)
    throw InputError("replicas must be positive, got " + std::to_string(w.replicas));
  validate_dtypes(w.dtype, w.kv_dtype());

  check_host_memory(w);
  BlockAllocator alloc(w.num_blocks(), w.seed);  // refuses tables past 32 bits

  HostWorkload h;
  h.workload = w;
  const std::int64_t pool = w.pool_elements();
  const std::int64_t io = std::int64_t(w.replicas) * w.io_elements();
  const std::size_t kv_bytes = std::size_t(pool) * element_size(w.kv_dtype());
  h.q = AlignedBuffer(std::size_t(io) * element_size(w.dtype), "the query buffer");
  h.k_pool = AlignedBuffer(kv_bytes, "the K pool");
  h.v_pool = AlignedBuffer(kv_bytes, "the V pool");
  fill(h.q, w.dtype, w.seed, TensorId::query, io);
  fill(h.k_pool, w.kv_dtype(), w.seed, TensorId::key, pool, w.kv_scale());
  fill(h.v_pool, w.kv_dtype(), w.seed, TensorId::value, pool, w.kv_scale());

  h.block_table.resize(std::size_t(w.num_blocks()));
  for (auto& entry : h.block_table) entry = alloc.allocate();
  return h;
}

HostWorkload view_of(const HostWorkload& h) {
  HostWorkload v;
  v.workload = h.workload;
  v.q = AlignedBuffer::view_of(h.q);
  v.k_pool = AlignedBuffer::view_of(h.k_pool);
  v.v_pool = AlignedBuffer::view_of(h.v_pool);
  v.block_table = h.block_table;
  return v;
}

}  // namespace readbench
