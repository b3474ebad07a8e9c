// Which copy of the CPU kernels runs: the pick from the processor's features, and the copies a
// processor with them runs checked against the f64 reference directly, as the baseline is in
// test_cpu_paths.cpp.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "backends/cpu/paged_attention.hpp"
#include "core/aligned_buffer.hpp"
#include "core/reference.hpp"
#include "measure/verify.hpp"

using namespace readbench;

TEST_CASE("a processor with no extension runs the baseline kernels") {
  CHECK(cpu::pick_kernels({}) == "baseline");
}

TEST_CASE("AVX-512 picks the avx512 kernels where the build holds them, else the baseline") {
#if defined(__x86_64__)
  CHECK(cpu::pick_kernels({.avx512 = true, .arm_bf16 = false}) == "avx512");
#else
  CHECK(cpu::pick_kernels({.avx512 = true, .arm_bf16 = false}) == "baseline");
#endif
}

TEST_CASE("the Arm BF16 extension picks the arm-bf16 kernels where the build holds them") {
#if defined(__aarch64__)
  CHECK(cpu::pick_kernels({.avx512 = false, .arm_bf16 = true}) == "arm-bf16");
#else
  CHECK(cpu::pick_kernels({.avx512 = false, .arm_bf16 = true}) == "baseline");
#endif
}

TEST_CASE("the kernels this processor runs are the pick for its detected features") {
  CHECK(cpu::instruction_set() == cpu::pick_kernels(cpu::detect_cpu_features()));
}

#if defined(__aarch64__)
TEST_CASE("the arm-bf16 kernels match the reference on processors with the BF16 extension") {
  if (!cpu::detect_cpu_features().arm_bf16) {
    MESSAGE("this processor lacks the BF16 extension: the arm-bf16 copy cannot run here");
    return;
  }
  for (DType t : {DType::f32, DType::f16, DType::bf16})
    for (int ratio : {1, 3, 4, 8})
      for (int head_dim : {40, 64, 128})
        for (std::int64_t length : {1, 17, 100}) {
          CAPTURE(to_string(t));
          CAPTURE(ratio);
          CAPTURE(head_dim);
          CAPTURE(length);
          Shape s;
          s.batch = 2;
          s.q_heads = 2 * ratio;
          s.kv_heads = 2;
          s.head_dim = head_dim;
          s.block_size = 16;
          const HostWorkload h = make_host_workload(Workload{s, t, length, 1, 4, std::nullopt});
          const std::vector<double> ref = reference_attention(h, 0);
          const Workload& w = h.workload;
          AlignedBuffer out(std::size_t(w.io_elements()) * element_size(t)),
              k(std::size_t(w.kv_bytes_per_call() / 2)), v(std::size_t(w.kv_bytes_per_call() / 2));
          for (int path = 0; path < 2; ++path) {
            CAPTURE(path);
            for (std::int64_t i = 0; i < w.io_elements(); ++i)
              store_as(t, out.data(), std::size_t(i), std::numeric_limits<float>::quiet_NaN());
            if (path == 0)
              cpu::arm_bf16::gather_read(cpu::inputs_of(h, 0), out.data(), {k.data(), v.data()}, 2);
            else
              cpu::arm_bf16::fused_read(cpu::inputs_of(h, 0), out.data(), 2);
            std::vector<double> got(ref.size());
            for (std::size_t i = 0; i < got.size(); ++i) got[i] = load_as(t, out.data(), i);
            CHECK(relative_error(got, ref) <= tolerance(t));
          }
        }
}
#endif
