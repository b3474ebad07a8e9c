#include "core/mapping_cache.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

namespace readbench {

namespace {
void* map_fresh(std::size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

// Whether the kernel lists more than one NUMA node online ("0" on one node, "0-1" or "0,2" on
// several); no list (no NUMA support) is one node.
bool several_numa_nodes() {
  std::ifstream f("/sys/devices/system/node/online");
  std::string nodes;
  return f >> nodes && nodes.find_first_of("-,") != std::string::npos;
}
}  // namespace

MappingCache::~MappingCache() {
  clear();
}

Mapping MappingCache::acquire(std::size_t bytes) {
  const std::lock_guard lock(mutex_);
  auto best = cached_.end();
  for (auto it = cached_.begin(); it != cached_.end(); ++it)
    if (it->bytes >= bytes && it->bytes / 2 <= bytes &&
        (best == cached_.end() || it->bytes < best->bytes))
      best = it;
  Mapping m;
  if (best != cached_.end()) {
    m = *best;
    cached_.erase(best);
    cached_bytes_ -= m.bytes;
    // Pages past the request would stay resident unused while it lives: memory no one counts
    // (measure/run_memory.hpp counts what buffers ask for).
    const auto page = std::size_t(::sysconf(_SC_PAGESIZE));
    const std::size_t used = (bytes + page - 1) / page * page;
    if (m.bytes > used) ::madvise(static_cast<char*>(m.base) + used, m.bytes - used, MADV_DONTNEED);
  } else {
    // Room for the new mapping within the peak (or the new peak it makes), and at least its
    // size in cached bytes unmapped: the memory bounds count cached mappings as available
    // (host_memory_available_bytes), so a new mapping grows the process by no more than the
    // bytes it needs beyond them.
    const std::size_t total = live_bytes_ + bytes;
    trim(std::min(std::max(peak_live_bytes_, total) - total,
                  cached_bytes_ - std::min(cached_bytes_, bytes)));
    m = {map_fresh(bytes), bytes};
    if (m.base == nullptr && !cached_.empty()) {
      trim(0);
      m.base = map_fresh(bytes);
    }
    if (m.base == nullptr) return {};
  }
  live_bytes_ += m.bytes;
  peak_live_bytes_ = std::max(peak_live_bytes_, live_bytes_);
  return m;
}

void MappingCache::release(Mapping m) noexcept {
  if (m.base == nullptr) return;
  const std::lock_guard lock(mutex_);
  live_bytes_ -= m.bytes;
  // Live plus cached was within the peak before; moving `m` from one to the other keeps it so.
  if (keep_) {
    try {
      cached_.push_back(m);
      cached_bytes_ += m.bytes;
      return;
    } catch (const std::bad_alloc&) {
      // no room to remember it: unmapped below
    }
  }
  ::munmap(m.base, m.bytes);
}

void MappingCache::clear() {
  const std::lock_guard lock(mutex_);
  trim(0);
}

void MappingCache::trim(std::size_t limit) {
  while (cached_bytes_ > limit) {
    const std::size_t excess = cached_bytes_ - limit;
    auto victim =
        std::max_element(cached_.begin(), cached_.end(),
                         [](const Mapping& a, const Mapping& b) { return a.bytes < b.bytes; });
    for (auto it = cached_.begin(); it != cached_.end(); ++it)
      if (it->bytes >= excess && it->bytes < victim->bytes) victim = it;
    ::munmap(victim->base, victim->bytes);
    cached_bytes_ -= victim->bytes;
    cached_.erase(victim);
  }
}

std::size_t MappingCache::cached_bytes() const {
  const std::lock_guard lock(mutex_);
  return cached_bytes_;
}

std::size_t MappingCache::live_bytes() const {
  const std::lock_guard lock(mutex_);
  return live_bytes_;
}

MappingCache& MappingCache::process() {
  // Never destroyed: buffers with static storage may outlive any cache object.
  static MappingCache* const cache = new MappingCache(!several_numa_nodes());
  return *cache;
}

}  // namespace readbench
