#pragma once
// Storage types of q, K/V and the output. Arithmetic is always f32 (f64 in the reference).
// e4m3 (OCP FP8 E4M3: 1 sign, 4 exponent bits with bias 7, 3 mantissa bits, no infinities,
// largest 448) stores K/V only: its values are stored/scale and read back times the scale.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "core/hd.hpp"

namespace readbench {

enum class DType : std::uint8_t { f32, f16, bf16, e4m3 };

constexpr std::size_t element_size(DType t) {
  return t == DType::f32 ? 4 : t == DType::e4m3 ? 1 : 2;
}

// Whether `t` may hold q and the output (e4m3 is a K/V storage type only).
constexpr bool is_query_dtype(DType t) {
  return t != DType::e4m3;
}

// The per-tensor scale of e4m3 K/V: the inputs are uniform in [-1, 1) (random_fill.hpp), so
// amax / 448 maps them onto the whole e4m3 range, as a calibrated serving engine would.
inline constexpr float kE4m3Scale = 1.0f / 448.0f;
inline constexpr float kE4m3Max = 448.0f;

std::string_view to_string(DType t);
// Any dtype; throws InputError naming the dtypes and `also`, a word the caller accepts too.
DType parse_dtype(std::string_view s, std::string_view also = {});
DType parse_query_dtype(std::string_view s);  // f32, f16 or bf16; throws InputError
// The pairs the kernels read: K/V in q's type, or in e4m3. Throws InputError naming the pair.
void validate_dtypes(DType q, DType kv);

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

RB_HD inline float e4m3_bits_to_float(std::uint8_t b) {
  // Exponent field e and mantissa m: (1 + m/8) 2^(e - 7), or m/8 2^-6 when e = 0; 0x7f and
  // 0xff are NaN.
  const std::uint32_t e = (b >> 3) & 0xfu, m = b & 0x7u;
  float mag;
  if ((b & 0x7fu) == 0x7fu) {
    const std::uint32_t nan = 0x7fc00000u;
    std::memcpy(&mag, &nan, 4);
  } else if (e == 0) {
    mag = float(m) * (1.0f / 512.0f);
  } else {
    const std::uint32_t u = ((e + 120u) << 23) | (m << 20);
    std::memcpy(&mag, &u, 4);
  }
  return (b & 0x80u) ? -mag : mag;
}

// Round to nearest even; finite values beyond 448 saturate to +-448 (as serving engines
// quantize); NaN stays NaN.
RB_HD inline std::uint8_t float_to_e4m3_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  const std::uint8_t sign = std::uint8_t((u >> 24) & 0x80u);
  u &= 0x7fffffffu;
  if (u > 0x7f800000u) return std::uint8_t(sign | 0x7fu);
  float a;
  std::memcpy(&a, &u, 4);
  if (a >= kE4m3Max) return std::uint8_t(sign | 0x7eu);
  if (a < 1.0f / 64.0f) {        // subnormal range: multiples of 2^-9, ties to even
    const float q = a * 512.0f;  // exact
    std::uint32_t r = std::uint32_t(q);
    const float rem = q - float(r);
    if (rem > 0.5f || (rem == 0.5f && (r & 1u))) ++r;
    return std::uint8_t(sign | r);  // r == 8 is the smallest normal, 0x08
  }
  // Normal: keep 3 of f32's 23 mantissa bits, round to nearest even, rebias 127 -> 7.
  u += 0x7ffffu + ((u >> 20) & 1u);
  const std::uint32_t r = (u >> 20) - (120u << 3);
  return std::uint8_t(sign | (r > 0x7eu ? 0x7eu : r));
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
    case DType::e4m3:
      static_cast<std::uint8_t*>(dst)[i] = float_to_e4m3_bits(x);
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
    case DType::e4m3:
      return e4m3_bits_to_float(static_cast<const std::uint8_t*>(src)[i]);
  }
  return 0.0f;
}

}  // namespace readbench
