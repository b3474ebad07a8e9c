#pragma once
// An uninitialised, 64-byte aligned host buffer: large pools are filled once, not zeroed first.
// Buffers from 64 KiB up get their own 2 MiB-aligned mapping, asked to be backed by
// transparent huge pages: a paged cache's blocks are read in random order, and with 4 KiB
// pages nearly every block would miss the TLB; after a cold-cache flush by writing (the CPU's
// flush where it cannot evict lines) even the page tables are out of cache, and the page walks
// of a short history cost more than reading it (measured: 350 us against 110 us for the fused
// read at L = 256). A mapping of their own, not the heap, so that no earlier 4 KiB-faulted heap
// pages are reused. When the buffer goes, its mapping goes to the process's MappingCache
// (mapping_cache.hpp), and a later buffer of about its size takes it, huge pages and all. On a
// kernel with larger base pages (aarch64: 16 or 64 KiB) the mapping's start is aligned to the
// larger of the two; with 64 KiB pages 2 MiB is also the size of a contiguous-PTE run, the huge
// page the TLB sees.
// A buffer that cannot be had throws BackendError naming it and its size ("the read-ceiling
// buffer of 268435456 bytes"), so that under --backend auto that backend is recorded failed
// with the reason and the others still run.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

#include "core/errors.hpp"
#include "core/mapping_cache.hpp"

namespace readbench {

// The base page size of the running kernel, read at run time: a binary built on a 4 KiB-page
// machine runs on 64 KiB-page aarch64 kernels too.
inline std::size_t page_size() {
  static const std::size_t bytes = [] {
    const long p = ::sysconf(_SC_PAGESIZE);
    return p > 0 ? std::size_t(p) : std::size_t(4096);
  }();
  return bytes;
}

// A large buffer's own mapping on a kernel whose pages are `page` bytes: where its start is
// aligned and how much is mapped to have `bytes` from an aligned start. 0 map_bytes: a size
// whose rounding would wrap.
struct MappingLayout {
  std::size_t alignment = 0;  // a multiple of `page` and of 2 MiB
  std::size_t map_bytes = 0;  // whole alignments: the size rounded up, plus one to align in
};
inline MappingLayout mapping_layout(std::size_t bytes, std::size_t page) {
  constexpr std::size_t kHugePage = std::size_t(2) << 20;
  MappingLayout m;
  m.alignment = std::max(kHugePage, page);
  if (bytes > ~std::size_t(0) - 2 * m.alignment) return m;
  m.map_bytes = (bytes + m.alignment - 1) / m.alignment * m.alignment + m.alignment;
  return m;
}

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  // `what` names the buffer in the error when it cannot be allocated.
  explicit AlignedBuffer(std::size_t bytes, std::string_view what = "a host buffer")
      : bytes_(bytes) {
    if (bytes == 0) return;
    if (bytes < kHugeThreshold) {
      data_ = static_cast<std::byte*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64));
      if (data_ == nullptr) throw_out_of_memory(bytes, what);
      return;
    }
    // Over-map by one alignment and start at the first aligned boundary inside; a size whose
    // rounding would wrap cannot be mapped either.
    const MappingLayout layout = mapping_layout(bytes, page_size());
    if (layout.map_bytes == 0) throw_out_of_memory(bytes, what);
    const Mapping m = MappingCache::process().acquire(layout.map_bytes);
    if (m.base == nullptr) throw_out_of_memory(bytes, what);
    map_ = m.base;
    map_bytes_ = m.bytes;
    const std::size_t align = layout.alignment;
    const auto start = (reinterpret_cast<std::uintptr_t>(map_) + align - 1) / align * align;
    data_ = reinterpret_cast<std::byte*>(start);
#if defined(MADV_HUGEPAGE)
    ::madvise(data_, map_bytes_ - align, MADV_HUGEPAGE);  // a hint: failure is fine
#endif
  }
  // A buffer that reads and writes `o`'s bytes without owning them: `o` must outlive it. Two
  // readers of one workload (an ab worker's two arms) read the same pages this way.
  static AlignedBuffer view_of(const AlignedBuffer& o) {
    AlignedBuffer v;
    v.data_ = o.data_;
    v.bytes_ = o.bytes_;
    v.owns_ = false;
    return v;
  }
  AlignedBuffer(AlignedBuffer&& o) noexcept {
    swap(o);
  }
  AlignedBuffer& operator=(AlignedBuffer&& o) noexcept {
    AlignedBuffer(std::move(o)).swap(*this);
    return *this;
  }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  ~AlignedBuffer() {
    if (!owns_) return;
    if (map_ != nullptr)
      MappingCache::process().release({map_, map_bytes_});
    else
      std::free(data_);
  }

  std::byte* data() {
    return data_;
  }
  const std::byte* data() const {
    return data_;
  }
  std::size_t size() const {
    return bytes_;
  }
  template <class T>
  T* as() {
    return reinterpret_cast<T*>(data_);
  }
  template <class T>
  const T* as() const {
    return reinterpret_cast<const T*>(data_);
  }

 private:
  [[noreturn]] static void throw_out_of_memory(std::size_t bytes, std::string_view what) {
    throw BackendError("cannot allocate " + std::string(what) + " of " + std::to_string(bytes) +
                       " bytes (" + std::to_string(bytes >> 20) + " MiB): out of host memory");
  }

  static constexpr std::size_t kHugeThreshold = std::size_t(64) << 10;

  void swap(AlignedBuffer& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(bytes_, o.bytes_);
    std::swap(map_, o.map_);
    std::swap(map_bytes_, o.map_bytes_);
    std::swap(owns_, o.owns_);
  }

  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
  void* map_ = nullptr;  // the mapping of a large buffer (data_ lies inside it)
  std::size_t map_bytes_ = 0;
  bool owns_ = true;  // false for a view_of another buffer
};

}  // namespace readbench
