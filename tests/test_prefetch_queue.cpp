// The fused CPU read's prefetch queue (src/backends/cpu/prefetch_queue.inc): the lines it
// issues for a block ahead must cover every byte the task will read there. A missed line
// changes no result, only speed, so nothing else would catch it.
#include <doctest/doctest.h>

#include <cstdint>
#include <set>
#include <vector>

namespace prefetch_test {
#include "backends/cpu/prefetch_queue.inc"
}  // namespace prefetch_test

using prefetch_test::PrefetchQueue;

TEST_CASE("the prefetch queue's parts cover the task's span of every row, a line over at most") {
  std::vector<char> buffer(1 << 20);
  int cases = 0;
  for (int elem : {2, 4})
    for (int D : {20, 40, 64, 128})
      for (int kv_heads : {1, 2, 8})
        for (int groups : {1, 2, 8}) {
          if (kv_heads % groups != 0) continue;
          for (int rows : {1, 8, 16})
            for (int misalign : {0, 2, 8, 32})
              for (int n : {1, 3, 4, 8}) {
                const std::int64_t row_bytes = std::int64_t(kv_heads) * D * elem;
                const std::int64_t span = row_bytes / groups;
                const char* base = buffer.data() + 64 -
                                   reinterpret_cast<std::uintptr_t>(buffer.data()) % 64 + misalign;
                for (int grp = 0; grp < groups; ++grp) {
                  CAPTURE(elem);
                  CAPTURE(D);
                  CAPTURE(kv_heads);
                  CAPTURE(groups);
                  CAPTURE(grp);
                  CAPTURE(rows);
                  CAPTURE(misalign);
                  CAPTURE(n);
                  const std::int64_t offset = grp * span;
                  auto line_of = [&](std::int64_t byte) {
                    return (reinterpret_cast<std::uintptr_t>(base) + byte) / 64;
                  };
                  std::set<std::uintptr_t> needed, covered;
                  for (std::int64_t r = 0; r < rows; ++r)
                    for (std::int64_t b = 0; b < span; ++b)
                      needed.insert(line_of(r * row_bytes + offset + b));
                  std::int64_t issued = 0;
                  for (int i = 0; i < n; ++i) {
                    PrefetchQueue q =
                        PrefetchQueue::part(base, base, rows, row_bytes, offset, span, i, n);
                    while (q.lines > 0) {
                      const std::int64_t at = q.next_offset();
                      CHECK(at >= 0);
                      CHECK(at < rows * row_bytes + 64);  // never past the block by a line
                      covered.insert(line_of(at));
                      ++issued;
                    }
                  }
                  for (std::uintptr_t line : needed) CHECK(covered.count(line) == 1);
                  CHECK(issued <= std::int64_t(needed.size()) + rows);
                  ++cases;
                }
              }
        }
  CHECK(cases > 1000);
}

TEST_CASE("an aligned whole-block queue issues exactly the block's lines, spread over its steps") {
  alignas(64) static char block[16 * 2048];
  PrefetchQueue q = PrefetchQueue::part(block, block, 16, 2048, 0, 2048, 0, 1);
  CHECK(q.lines == 16 * 2048 / 64);
  CHECK(q.per_step(100) == 6);  // 512 lines over 100 steps
  for (std::int64_t i = 0; i < 512; ++i) CHECK(q.next_offset() == 64 * i);
  CHECK(q.lines == 0);
  CHECK(PrefetchQueue::part(nullptr, nullptr, 16, 2048, 0, 2048, 0, 1).lines == 0);
}
