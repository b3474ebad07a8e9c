#include "backends/cpu/parallel_fill.hpp"

#include <algorithm>
#include <cstring>

#include "core/interrupt.hpp"

namespace readbench::cpu {

void parallel_fill(std::byte* p, std::int64_t n, int threads, unsigned char value) {
  const std::int64_t chunk = 1 << 20;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t off = 0; off < n; off += chunk) {
    if (interrupt_signal() != 0) continue;
    std::memset(p + off, value, std::size_t(std::min(chunk, n - off)));
  }
}

}  // namespace readbench::cpu
