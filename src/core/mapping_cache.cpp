#include "core/mapping_cache.hpp"

#include <sys/mman.h>

#include <algorithm>

namespace readbench {

namespace {
void* map_fresh(std::size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
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
  } else {
    // Room for the new mapping within the peak (or the new peak it makes).
    const std::size_t total = live_bytes_ + bytes;
    trim(std::max(peak_live_bytes_, total) - total);
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

void MappingCache::release(Mapping m) {
  if (m.base == nullptr) return;
  const std::lock_guard lock(mutex_);
  // Live plus cached was within the peak before; moving `m` from one to the other keeps it so.
  live_bytes_ -= m.bytes;
  cached_.push_back(m);
  cached_bytes_ += m.bytes;
}

void MappingCache::clear() {
  const std::lock_guard lock(mutex_);
  trim(0);
}

void MappingCache::trim(std::size_t limit) {
  std::sort(cached_.begin(), cached_.end(),
            [](const Mapping& a, const Mapping& b) { return a.bytes < b.bytes; });
  auto it = cached_.begin();
  for (; it != cached_.end() && cached_bytes_ > limit; ++it) {
    ::munmap(it->base, it->bytes);
    cached_bytes_ -= it->bytes;
  }
  cached_.erase(cached_.begin(), it);
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
  static MappingCache* const cache = new MappingCache;
  return *cache;
}

}  // namespace readbench
