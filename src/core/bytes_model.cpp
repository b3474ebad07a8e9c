#include "core/bytes_model.hpp"

namespace readbench {

BytesModel bytes_per_call(const Workload& w, Path path) {
  BytesModel m;
  m.kv_read = w.kv_bytes_per_call();
  m.io = 2 * w.io_elements() * std::int64_t(element_size(w.dtype));
  m.block_table = std::int64_t(w.shape.batch) * w.blocks_per_seq() * 4;
  // The gather writes the history contiguously, then attention reads that copy back.
  if (path == Path::gather) m.materialized = 2 * m.kv_read;
  return m;
}

}  // namespace readbench
