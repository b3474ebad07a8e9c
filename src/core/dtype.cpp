#include "core/dtype.hpp"

#include <string>

#include "core/enum_names.hpp"
#include "core/errors.hpp"

namespace readbench {

namespace {
constexpr Named<DType> kDTypeNames[] = {
    {DType::f32, "f32"}, {DType::f16, "f16"}, {DType::bf16, "bf16"}, {DType::e4m3, "fp8_e4m3"}};
constexpr Named<DType> kQueryDTypeNames[] = {
    {DType::f32, "f32"}, {DType::f16, "f16"}, {DType::bf16, "bf16"}};
}  // namespace

std::string_view to_string(DType t) {
  return name_in(kDTypeNames, t);
}

DType parse_dtype(std::string_view s, std::string_view also) {
  if (const auto t = find_named(kDTypeNames, s)) return *t;
  throw InputError("unknown dtype '" + std::string(s) + "' (expected " +
                   names_of(kDTypeNames, also) + ")");
}

DType parse_query_dtype(std::string_view s) {
  if (const auto t = find_named(kQueryDTypeNames, s)) return *t;
  if (find_named(kDTypeNames, s))
    throw InputError("dtype '" + std::string(s) +
                     "' stores K/V only (--kv-dtype); q and the output take " +
                     names_of(kQueryDTypeNames));
  throw InputError("unknown dtype '" + std::string(s) + "' (expected " +
                   names_of(kQueryDTypeNames) + ")");
}

void validate_dtypes(DType q, DType kv) {
  if (!is_query_dtype(q))
    throw InputError("dtype " + std::string(to_string(q)) + " cannot hold q and the output");
  if (kv != q && kv != DType::e4m3)
    throw InputError("K/V dtype " + std::string(to_string(kv)) + " with q in " +
                     std::string(to_string(q)) +
                     ": K/V are stored in the query's type or in fp8_e4m3");
}

}  // namespace readbench
