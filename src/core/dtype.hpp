#pragma once
// Storage types of q, K/V and the output. Arithmetic is always f32 (f64 in the reference).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "core/hd.hpp"

namespace readbench {

enum class DType : std::uint8_t { f32, f16, bf16 };

constexpr std::size_t element_size(DType t) {
  return t == DType::f32 ? 4 : 2;
}

std::string_view to_string(DType t);
DType parse_dtype(std::string_view s);  // throws InputError

// Bit-exact conversions, usable on host and device. Round to nearest even on narrowing.
RB_HD inline float bf16_bits_to_float(std::uint16_t b) {
  std::uint32_t u = std::uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

RB_HD inline std::uint16_t float_to_bf16_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return std::uint16_t((u >> 16) | 0x40);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return std::uint16_t(u >> 16);
}

RB_HD inline float f16_bits_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t mant = h & 0x3ffu;
  std::uint32_t u;
  if (exp == 0x1f) {
    u = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    u = sign | ((exp + 112u) << 23) | (mant << 13);
  } else if (mant == 0) {
    u = sign;
  } else {  // subnormal: normalise
    exp = 113;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --exp;
    }
    u = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

RB_HD inline std::uint16_t float_to_f16_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  const std::uint16_t sign = std::uint16_t((u >> 16) & 0x8000u);
  u &= 0x7fffffffu;
  if (u > 0x7f800000u) return sign | 0x7e00u;   // NaN
  if (u >= 0x477ff000u) return sign | 0x7c00u;  // overflow (incl. inf) after rounding
  if (u < 0x38800000u) {                        // subnormal or zero in f16
    if (u < 0x33000000u) return sign;           // below half the smallest subnormal
    const std::uint32_t mant = (u & 0x7fffffu) | 0x800000u;
    const int shift = 126 - int(u >> 23);  // 14..24
    const std::uint32_t half = 1u << (shift - 1);
    const std::uint32_t rem = mant & ((1u << shift) - 1);
    std::uint32_t r = mant >> shift;
    if (rem > half || (rem == half && (r & 1u))) ++r;
    return std::uint16_t(sign | r);
  }
  u += 0xfffu + ((u >> 13) & 1u) - (112u << 23);
  return std::uint16_t(sign | (u >> 13));
}

// Stores x in the given storage type at dst (element index i).
inline void store_as(DType t, void* dst, std::size_t i, float x) {
  switch (t) {
    case DType::f32:
      static_cast<float*>(dst)[i] = x;
      break;
    case DType::f16:
      static_cast<std::uint16_t*>(dst)[i] = float_to_f16_bits(x);
      break;
    case DType::bf16:
      static_cast<std::uint16_t*>(dst)[i] = float_to_bf16_bits(x);
      break;
  }
}

inline float load_as(DType t, const void* src, std::size_t i) {
  switch (t) {
    case DType::f32:
      return static_cast<const float*>(src)[i];
    case DType::f16:
      return f16_bits_to_float(static_cast<const std::uint16_t*>(src)[i]);
    case DType::bf16:
      return bf16_bits_to_float(static_cast<const std::uint16_t*>(src)[i]);
  }
  return 0.0f;
}

}  // namespace readbench
