#include "core/shape.hpp"

#include "core/errors.hpp"
#include "core/strprintf.hpp"

namespace readbench {

namespace {
void require_positive(const char* name, int value) {
  if (value <= 0)
    throw InputError(std::string(name) + " must be positive, got " + std::to_string(value));
}
}  // namespace

void Shape::validate() const {
  require_positive("--batch", batch);
  require_positive("--q-heads", q_heads);
  require_positive("--kv-heads", kv_heads);
  require_positive("--head-dim", head_dim);
  require_positive("--block-size", block_size);
  auto require_at_most = [](const char* name, int value, int limit) {
    if (value > limit)
      throw InputError(std::string(name) + " must be at most " + std::to_string(limit) + ", got " +
                       std::to_string(value));
  };
  require_at_most("--batch", batch, kMaxBatch);
  require_at_most("--q-heads", q_heads, kMaxHeads);
  require_at_most("--kv-heads", kv_heads, kMaxHeads);
  require_at_most("--head-dim", head_dim, kMaxHeadDim);
  require_at_most("--block-size", block_size, kMaxBlockSize);
  if (std::int64_t(q_heads) * head_dim > (1 << 24))
    throw InputError("--q-heads x --head-dim must be at most 16777216, got " +
                     std::to_string(std::int64_t(q_heads) * head_dim));
  if (q_heads % kv_heads != 0)
    throw InputError("--q-heads (" + std::to_string(q_heads) +
                     ") must be a multiple of --kv-heads (" + std::to_string(kv_heads) + ")");
}

std::string dtypes_label(const Workload& w) {
  std::string label(to_string(w.dtype));
  if (w.kv_dtype() == w.dtype) return label;
  label += " q, " + std::string(to_string(w.kv_dtype())) + " K/V";
  if (w.kv_scale() != 1.0f)
    label += " (scale " + strprintf("%.3g", double(w.kv_scale())) + " per tensor)";
  return label;
}

}  // namespace readbench
