// The cache of large buffers' mappings: a mapping released is handed out again to a request of
// about its size, and what the cache keeps plus what is in use never exceeds the most that was in
// use at once.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "core/mapping_cache.hpp"

using namespace readbench;

namespace {
constexpr std::size_t kMiB = std::size_t(1) << 20;

bool overlap(const Mapping& a, const Mapping& b) {
  const auto* pa = static_cast<const std::byte*>(a.base);
  const auto* pb = static_cast<const std::byte*>(b.base);
  return pa < pb + b.bytes && pb < pa + a.bytes;
}
}  // namespace

TEST_CASE("a released mapping serves the next request of about its size") {
  MappingCache cache;
  const Mapping a = cache.acquire(4 * kMiB);
  REQUIRE(a.base != nullptr);
  std::memset(a.base, 7, a.bytes);
  cache.release(a);
  CHECK(cache.cached_bytes() == 4 * kMiB);
  CHECK(cache.live_bytes() == 0);

  const Mapping b = cache.acquire(3 * kMiB);  // fits, and not more than twice its size
  CHECK(b.base == a.base);
  CHECK(b.bytes == 4 * kMiB);
  CHECK(cache.cached_bytes() == 0);
  CHECK(cache.live_bytes() == 4 * kMiB);
  const auto* bytes = static_cast<const unsigned char*>(b.base);
  CHECK(bytes[3 * kMiB - 1] == 7);  // the same pages
  CHECK(bytes[3 * kMiB] == 0);      // past the request, given back to the system (zero-filled)
  cache.release(b);
}

TEST_CASE("a mapping more than twice a request's size is not spent on it") {
  MappingCache cache;
  const Mapping big = cache.acquire(8 * kMiB);
  cache.release(big);
  // Fresh, and within the peak (8 MiB) only once the 8 MiB one is unmapped.
  const Mapping small = cache.acquire(1 * kMiB);
  REQUIRE(small.base != nullptr);
  CHECK(small.bytes == 1 * kMiB);
  CHECK(cache.cached_bytes() == 0);
  cache.release(small);
  CHECK(cache.cached_bytes() == 1 * kMiB);
  cache.clear();
  CHECK(cache.cached_bytes() == 0);
}

TEST_CASE("a long history's buffers and a short one's are both kept where the peak held both") {
  MappingCache cache;
  const Mapping longer = cache.acquire(8 * kMiB);
  const Mapping shorter = cache.acquire(2 * kMiB);
  cache.release(shorter);
  cache.release(longer);
  CHECK(cache.cached_bytes() == 10 * kMiB);
  const Mapping again_short = cache.acquire(2 * kMiB);
  const Mapping again_long = cache.acquire(8 * kMiB);
  CHECK(again_short.base == shorter.base);
  CHECK(again_long.base == longer.base);
  CHECK(cache.cached_bytes() == 0);
  cache.release(again_short);
  cache.release(again_long);
}

TEST_CASE("room for a new mapping is made by unmapping the fewest cached bytes") {
  MappingCache cache;
  std::vector<Mapping> small;
  for (int i = 0; i < 3; ++i) small.push_back(cache.acquire(1 * kMiB));
  const Mapping large = cache.acquire(10 * kMiB);  // the peak: 13 MiB
  for (const Mapping& m : small) cache.release(m);
  cache.release(large);
  // 4 MiB fits no cached mapping (10 is more than twice it); the peak leaves room for 9 MiB of
  // cached ones: unmapping the 10 MiB one alone makes that room, the three small ones stay.
  const Mapping fresh = cache.acquire(4 * kMiB);
  REQUIRE(fresh.base != nullptr);
  CHECK(cache.cached_bytes() == 3 * kMiB);
  const Mapping again = cache.acquire(1 * kMiB);
  CHECK(std::any_of(small.begin(), small.end(),
                    [&](const Mapping& m) { return m.base == again.base; }));
  cache.release(fresh);
  cache.release(again);
}

TEST_CASE("a new mapping unmaps at least its own size in cached ones, even within the peak") {
  MappingCache cache;
  const Mapping a = cache.acquire(10 * kMiB), b = cache.acquire(3 * kMiB),
                c = cache.acquire(3 * kMiB);  // the peak: 16 MiB
  cache.release(a);
  cache.release(b);
  cache.release(c);
  cache.release(cache.acquire(1 * kMiB));  // fresh (3 is more than twice 1): a 3 MiB one goes
  REQUIRE(cache.cached_bytes() == 14 * kMiB);
  REQUIRE(cache.live_bytes() == 0);
  // 4 MiB fits none (10 > 8, 3 < 4). The peak alone would leave 12 MiB cached; the memory
  // bounds count cached bytes as free, so 4 MiB of them go: the 10 MiB one (the smallest that
  // alone is enough), leaving the 3 and the 1.
  const Mapping d = cache.acquire(4 * kMiB);
  REQUIRE(d.base != nullptr);
  CHECK(cache.cached_bytes() == 4 * kMiB);
  cache.release(d);
}

TEST_CASE("a mapping the system refuses is a null mapping, with nothing left cached") {
  MappingCache cache;
  cache.release(cache.acquire(2 * kMiB));
  REQUIRE(cache.cached_bytes() == 2 * kMiB);
  const Mapping refused = cache.acquire(std::size_t(1) << 62);
  CHECK(refused.base == nullptr);
  CHECK(cache.cached_bytes() == 0);
  CHECK(cache.live_bytes() == 0);
}

TEST_CASE("a cache that keeps nothing unmaps every mapping released") {
  MappingCache cache(false);
  const Mapping m = cache.acquire(2 * kMiB);
  REQUIRE(m.base != nullptr);
  cache.release(m);
  CHECK(cache.cached_bytes() == 0);
  CHECK(cache.live_bytes() == 0);
}

TEST_CASE("random requests: mappings never overlap and cached plus live stays within the peak") {
  MappingCache cache;
  std::mt19937 rng(7);
  std::vector<Mapping> live;
  std::size_t live_bytes = 0, peak = 0;
  for (int step = 0; step < 400; ++step) {
    if (live.empty() || rng() % 2 == 0) {
      const std::size_t bytes = (1 + rng() % 64) * (std::size_t(64) << 10);
      const Mapping m = cache.acquire(bytes);
      REQUIRE(m.base != nullptr);
      CHECK(m.bytes >= bytes);
      CHECK(m.bytes <= 2 * bytes);
      for (const Mapping& other : live) CHECK_FALSE(overlap(m, other));
      static_cast<unsigned char*>(m.base)[m.bytes - 1] = 1;  // writable to its end
      live.push_back(m);
      live_bytes += m.bytes;
      peak = std::max(peak, live_bytes);
    } else {
      const std::size_t i = rng() % live.size();
      cache.release(live[i]);
      live_bytes -= live[i].bytes;
      live.erase(live.begin() + std::ptrdiff_t(i));
    }
    CHECK(cache.live_bytes() == live_bytes);
    CHECK(cache.live_bytes() + cache.cached_bytes() <= peak);
  }
  for (const Mapping& m : live) cache.release(m);
  cache.clear();
  CHECK(cache.cached_bytes() == 0);
}

TEST_CASE("large buffers take their mappings from the process's cache and give them back") {
  MappingCache& cache = MappingCache::process();
  cache.clear();
  const std::size_t live_before = cache.live_bytes();
  const std::byte* first = nullptr;
  {
    AlignedBuffer b(5 * kMiB, "a test buffer");
    first = b.data();
    CHECK(cache.live_bytes() > live_before);
  }
  CHECK(cache.live_bytes() == live_before);
  if (!cache.keeps()) {
    MESSAGE("several NUMA nodes: the process's cache keeps nothing");
    CHECK(cache.cached_bytes() == 0);
    return;
  }
  CHECK(cache.cached_bytes() > 0);
  {
    // A smaller buffer in the larger mapping: the same aligned start, every byte writable.
    AlignedBuffer again(4 * kMiB, "a test buffer");
    CHECK(again.data() == first);
    std::memset(again.data(), 1, again.size());
  }
  cache.clear();
  CHECK(cache.cached_bytes() == 0);
}
