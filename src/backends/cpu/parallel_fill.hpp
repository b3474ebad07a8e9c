#pragma once
// Filling a host buffer with every thread, for the read-ceiling buffer and the cache flush.
#include <cstddef>
#include <cstdint>

namespace readbench::cpu {

// Multi-threaded fill, so pages are touched by the threads that later read them. The first
// touch of gigabytes can take seconds: a signal skips the chunks not yet filled (nothing may
// leave a parallel region by throwing), and the callers throw or drop the sample after it.
void parallel_fill(std::byte* p, std::int64_t n, int threads, unsigned char value);

}  // namespace readbench::cpu
