#include "core/shape.hpp"

#include "core/errors.hpp"
#include "core/read_path.hpp"

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

namespace readbench {

std::string_view to_string(Path p) { return p == Path::gather ? "gather" : "fused"; }
std::string_view to_string(CacheState c) { return c == CacheState::cold ? "cold" : "hot"; }

Path parse_path(std::string_view s) {
  if (s == "gather") return Path::gather;
  if (s == "fused") return Path::fused;
  throw InputError("unknown path '" + std::string(s) + "' (expected gather, fused or all)");
}

CacheState parse_cache_state(std::string_view s) {
  if (s == "cold") return CacheState::cold;
  if (s == "hot") return CacheState::hot;
  throw InputError("unknown cache state '" + std::string(s) + "' (expected cold or hot)");
}

}  // namespace readbench
