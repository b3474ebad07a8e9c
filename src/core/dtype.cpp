#include "core/dtype.hpp"

#include <string>

#include "core/errors.hpp"
#include "core/names.hpp"

namespace readbench {

namespace {
constexpr Named<DType> kDTypeNames[] = {
    {DType::f32, "f32"}, {DType::f16, "f16"}, {DType::bf16, "bf16"}};
}  // namespace

std::string_view to_string(DType t) {
  return name_in(kDTypeNames, t);
}

DType parse_dtype(std::string_view s) {
  if (const auto t = find_named(kDTypeNames, s)) return *t;
  throw InputError("unknown dtype '" + std::string(s) + "' (expected " + names_of(kDTypeNames) +
                   ")");
}

}  // namespace readbench
