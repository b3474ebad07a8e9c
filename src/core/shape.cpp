#include "core/shape.hpp"

#include "core/errors.hpp"

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
  if (q_heads % kv_heads != 0)
    throw InputError("--q-heads (" + std::to_string(q_heads) +
                     ") must be a multiple of --kv-heads (" + std::to_string(kv_heads) + ")");
}

std::string_view to_string(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
  }
  return "?";
}

DType parse_dtype(std::string_view s) {
  if (s == "f32") return DType::f32;
  if (s == "f16") return DType::f16;
  if (s == "bf16") return DType::bf16;
  throw InputError("unknown dtype '" + std::string(s) + "' (expected f32, f16 or bf16)");
}

}  // namespace readbench
