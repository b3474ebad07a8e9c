#pragma once
// What readbench's own reads need to run as plugins: the plugin problem in readbench's types.
#include <cstdio>
#include <optional>

#include "core/shape.hpp"
#include "readbench/plugin.h"

namespace readbench::examples {

inline DType dtype_of(rb_dtype t) {
  switch (t) {
    case RB_DTYPE_F32:
      return DType::f32;
    case RB_DTYPE_F16:
      return DType::f16;
    case RB_DTYPE_BF16:
      return DType::bf16;
    case RB_DTYPE_FP8_E4M3:
      return DType::e4m3;
  }
  return DType::f32;
}

// The workload of a problem, or why readbench's reads cannot take it (written into err).
inline std::optional<Workload> workload_of(const rb_problem& p, char* err, std::size_t size) {
  Workload w;
  w.shape = Shape{p.batch, p.q_heads, p.kv_heads, p.head_dim, p.block_size};
  w.dtype = dtype_of(p.q_dtype);
  w.length = p.length;
  if (p.kv_dtype != p.q_dtype) w.kv_storage = dtype_of(p.kv_dtype);
  const char* why = nullptr;
  if (p.layout != RB_LAYOUT_NHD)
    why = "pools must be [blocks, S, Hkv, D]";
  else if (p.out_dtype != p.q_dtype)
    why = "the output must be in q's type";
  else if (w.kv_dtype() != w.dtype && w.kv_dtype() != DType::e4m3)
    why = "K/V must be in q's type or fp8 e4m3";
  else if (p.kv_scale != w.kv_scale())
    why = "the fp8 scale must be readbench's (1/448)";
  if (why != nullptr) {
    std::snprintf(err, size, "%s", why);
    return std::nullopt;
  }
  return w;
}

// The description of one of readbench's reads as a plugin: the dtypes and layout they take.
inline rb_plugin describe(const char* name, rb_backend backend,
                          decltype(rb_plugin::prepare) prepare, decltype(rb_plugin::run) run,
                          decltype(rb_plugin::release) release) {
  constexpr auto bit = [](unsigned v) { return std::uint32_t(1) << v; };
  const std::uint32_t io = bit(RB_DTYPE_F32) | bit(RB_DTYPE_F16) | bit(RB_DTYPE_BF16);
  return {READBENCH_PLUGIN_ABI_VERSION, name,    backend, io,     io | bit(RB_DTYPE_FP8_E4M3), io,
          bit(RB_LAYOUT_NHD),           prepare, run,     release};
}

}  // namespace readbench::examples
