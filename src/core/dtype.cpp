#include "core/dtype.hpp"

#include <string>

#include "core/errors.hpp"

namespace readbench {

std::string_view to_string(DType t) {
  switch (t) {
    case DType::f32:
      return "f32";
    case DType::f16:
      return "f16";
    case DType::bf16:
      return "bf16";
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
