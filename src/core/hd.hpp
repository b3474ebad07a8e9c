#pragma once
// Marks a function callable from host and device code when compiled by nvcc.
#if defined(__CUDACC__)
#define RB_HD __host__ __device__
#else
#define RB_HD
#endif
