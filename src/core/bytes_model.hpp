#pragma once
// Bytes one call moves through memory, by the bytes model of docs/method.md ("Timing a point").
#include <cstdint>

#include "core/read_path.hpp"
#include "core/shape.hpp"

namespace readbench {

struct BytesModel {
  std::int64_t kv_read = 0;       // K and V history, read once
  std::int64_t io = 0;            // q read plus output written
  std::int64_t block_table = 0;   // block-table entries read
  std::int64_t materialized = 0;  // gather only: contiguous copy written and read back
  std::int64_t total() const { return kv_read + io + block_table + materialized; }
};

BytesModel bytes_per_call(const Workload& w, Path path);

}  // namespace readbench
