#pragma once
// Host memory ceilings.
#include <cstdint>

#include "backends/backend.hpp"

namespace readbench::cpu {

// Bytes of the read-ceiling buffer for a last-level cache of `cache_bytes` on a kernel with
// `page`-byte pages: 4x the cache, at least 256 MiB, at most 4 GiB, in whole pairs of pages,
// so both halves of the copy start on a page.
std::int64_t ceiling_buffer_bytes(std::int64_t cache_bytes, std::int64_t page);

// Read ceiling: a vectorised, multi-threaded sum over a buffer of 4x the last-level cache;
// copy: memcpy between its halves (bytes read plus written). Best of several passes. Throws
// Interrupted (core/interrupt.hpp) between passes once a signal asks the run to stop.
Bandwidths measure_host_bandwidths(int threads);

}  // namespace readbench::cpu
