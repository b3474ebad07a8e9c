#pragma once
// Storage types of the decode kernels: 16-byte chunks to f32, f32 pairs to packed storage,
// f32 results to the output dtype.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>

namespace readbench::cuda::kernels {

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
