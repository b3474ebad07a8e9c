#pragma once
// Storage types of the decode kernels: 16-byte chunks to f32, f32 pairs to packed storage,
// f32 results to the output dtype.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>

namespace readbench::cuda::kernels {

// An e4m3 K/V element as stored (core/dtype.hpp). The kernels widen it exactly; the scale is
// applied to the scores and the output (DecodeParams).
struct E4m3 {
  unsigned char bits;
};

// Elements of a storage type in one 16-byte chunk.
template <class T>
constexpr int chunk_elements() {
  return 16 / int(sizeof(T));
}

// Four e4m3 values (the bytes of w, byte 0 first) widened exactly to two packed f16 pairs,
// lo holding bytes 0 and 1 (e4m3's exponents and 3-bit mantissas all fit f16). sm_89 and later
// convert two at a time in one instruction; sm_80 moves each byte's exponent and mantissa bits
// under f16's wider exponent field, which reads them as the value times 2^-8, and one multiply
// by 2^8 restores it (e4m3 subnormals become f16 subnormals, which the multiply scales exactly).
__device__ __forceinline__ void widen_e4m3x4(uint32_t w, uint32_t& lo, uint32_t& hi) {
#if __CUDA_ARCH__ >= 890
  asm("{\n .reg .b16 l, h;\n mov.b32 {l, h}, %2;\n cvt.rn.f16x2.e4m3x2 %0, l;\n"
      " cvt.rn.f16x2.e4m3x2 %1, h;\n}"
      : "=r"(lo), "=r"(hi)
      : "r"(w));
#else
  const uint32_t a = __byte_perm(w, 0, 0x1404), b = __byte_perm(w, 0, 0x3424);  // x << 8 each
  const uint32_t ra = (a & 0x80008000u) | ((a >> 1) & 0x3f803f80u);
  const uint32_t rb = (b & 0x80008000u) | ((b >> 1) & 0x3f803f80u);
  const __half2 rebias = __halves2half2(__ushort_as_half(0x5c00), __ushort_as_half(0x5c00));
  const __half2 x = __hmul2(*reinterpret_cast<const __half2*>(&ra), rebias);
  const __half2 y = __hmul2(*reinterpret_cast<const __half2*>(&rb), rebias);
  lo = *reinterpret_cast<const uint32_t*>(&x);
  hi = *reinterpret_cast<const uint32_t*>(&y);
#endif
}

// One element of a storage type as f32.
__device__ __forceinline__ float to_float(float x) {
  return x;
}
__device__ __forceinline__ float to_float(__half x) {
  return __half2float(x);
}
__device__ __forceinline__ float to_float(__nv_bfloat16 x) {
  return __bfloat162float(x);
}

template <class T>
__device__ __forceinline__ void unpack_chunk(const uint4& c, float* f);

template <>
__device__ __forceinline__ void unpack_chunk<float>(const uint4& c, float* f) {
  f[0] = __uint_as_float(c.x);
  f[1] = __uint_as_float(c.y);
  f[2] = __uint_as_float(c.z);
  f[3] = __uint_as_float(c.w);
}

template <>
__device__ __forceinline__ void unpack_chunk<__nv_bfloat16>(const uint4& c, float* f) {
  const uint32_t w[4] = {c.x, c.y, c.z, c.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    f[2 * i] = __uint_as_float(w[i] << 16);
    f[2 * i + 1] = __uint_as_float(w[i] & 0xffff0000u);
  }
}

template <>
__device__ __forceinline__ void unpack_chunk<__half>(const uint4& c, float* f) {
  const uint32_t w[4] = {c.x, c.y, c.z, c.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    f[2 * i] = __half2float(__ushort_as_half(static_cast<unsigned short>(w[i] & 0xffffu)));
    f[2 * i + 1] = __half2float(__ushort_as_half(static_cast<unsigned short>(w[i] >> 16)));
  }
}

// 16 e4m3 values, exactly: four at a time to f16 pairs (widen_e4m3x4), then to f32.
template <>
__device__ __forceinline__ void unpack_chunk<E4m3>(const uint4& c, float* f) {
  const uint32_t w[4] = {c.x, c.y, c.z, c.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    uint32_t lo, hi;
    widen_e4m3x4(w[i], lo, hi);
    const float2 a = __half22float2(*reinterpret_cast<const __half2*>(&lo));
    const float2 b = __half22float2(*reinterpret_cast<const __half2*>(&hi));
    f[4 * i] = a.x;
    f[4 * i + 1] = a.y;
    f[4 * i + 2] = b.x;
    f[4 * i + 3] = b.y;
  }
}

// Two values rounded to nearest even and packed, `lo` in the low half (mma fragment order).
template <class T>
__device__ __forceinline__ uint32_t pack2(float lo, float hi);

template <>
__device__ __forceinline__ uint32_t pack2<__nv_bfloat16>(float lo, float hi) {
  return uint32_t(__bfloat16_as_ushort(__float2bfloat16_rn(lo))) |
         (uint32_t(__bfloat16_as_ushort(__float2bfloat16_rn(hi))) << 16);
}

template <>
__device__ __forceinline__ uint32_t pack2<__half>(float lo, float hi) {
  return uint32_t(__half_as_ushort(__float2half_rn(lo))) |
         (uint32_t(__half_as_ushort(__float2half_rn(hi))) << 16);
}

template <class T>
__device__ __forceinline__ float2 unpack2(uint32_t w);

template <>
__device__ __forceinline__ float2 unpack2<__nv_bfloat16>(uint32_t w) {
  return make_float2(__uint_as_float(w << 16), __uint_as_float(w & 0xffff0000u));
}

template <>
__device__ __forceinline__ float2 unpack2<__half>(uint32_t w) {
  return make_float2(__half2float(__ushort_as_half(static_cast<unsigned short>(w & 0xffffu))),
                     __half2float(__ushort_as_half(static_cast<unsigned short>(w >> 16))));
}

template <class T>
__device__ __forceinline__ void store_out(void* out, std::size_t i, float x);

template <>
__device__ __forceinline__ void store_out<float>(void* out, std::size_t i, float x) {
  static_cast<float*>(out)[i] = x;
}

template <>
__device__ __forceinline__ void store_out<__nv_bfloat16>(void* out, std::size_t i, float x) {
  static_cast<__nv_bfloat16*>(out)[i] = __float2bfloat16_rn(x);
}

template <>
__device__ __forceinline__ void store_out<__half>(void* out, std::size_t i, float x) {
  static_cast<__half*>(out)[i] = __float2half_rn(x);
}

}  // namespace readbench::cuda::kernels
