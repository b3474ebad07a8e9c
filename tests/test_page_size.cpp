// Buffers and the read-ceiling's halves on kernels of 4, 16 and 64 KiB pages (aarch64 kernels
// come with any of the three). The page size is read at run time; user-mode emulation runs on
// the host's pages, so other sizes are injected here.
#include <doctest/doctest.h>

#include <cstdint>

#include "backends/cpu/stream_bandwidth.hpp"
#include "core/aligned_buffer.hpp"

using namespace readbench;

TEST_CASE("the page size read at run time is a power of two of at least 4 KiB") {
  const std::size_t p = page_size();
  CHECK(p >= 4096);
  CHECK((p & (p - 1)) == 0);
}

TEST_CASE("a large buffer's mapping starts on a page and on 2 MiB whatever the page size") {
  for (std::size_t page :
       {std::size_t(4) << 10, std::size_t(16) << 10, std::size_t(64) << 10, std::size_t(4) << 20}) {
    for (std::size_t bytes : {std::size_t(64) << 10, std::size_t(100) << 10,
                              (std::size_t(2) << 20) + 1, std::size_t(3) << 30}) {
      CAPTURE(page);
      CAPTURE(bytes);
      const MappingLayout m = mapping_layout(bytes, page);
      CHECK(m.alignment % page == 0);
      CHECK(m.alignment % (std::size_t(2) << 20) == 0);
      CHECK(m.map_bytes % page == 0);
      // Wherever mmap puts it (on a page), the aligned start leaves `bytes` inside.
      CHECK(m.map_bytes >= bytes + m.alignment - page);
    }
  }
}

TEST_CASE("a size whose mapping would wrap is refused, not wrapped") {
  CHECK(mapping_layout(~std::size_t(0) - 1000, std::size_t(64) << 10).map_bytes == 0);
}

TEST_CASE("both halves of the read-ceiling buffer start on a page") {
  for (std::int64_t page :
       {std::int64_t(4) << 10, std::int64_t(16) << 10, std::int64_t(64) << 10}) {
    for (std::int64_t cache : {std::int64_t(0), std::int64_t(33) << 20,
                               (std::int64_t(96) << 20) + 12345, std::int64_t(8) << 30}) {
      CAPTURE(page);
      CAPTURE(cache);
      const std::int64_t bytes = cpu::ceiling_buffer_bytes(cache, page);
      CHECK(bytes % (2 * page) == 0);
      CHECK(bytes >= (std::int64_t(256) << 20) - 2 * page);
      CHECK(bytes <= std::int64_t(4) << 30);
    }
  }
  CHECK(cpu::ceiling_buffer_bytes((std::int64_t(96) << 20) + 12345, std::int64_t(64) << 10) ==
        std::int64_t(384) << 20);
}
