// Numerics of the CPU gather and fused paths against the f64 reference, over the
// dtypes, GQA ratios, head dims, block sizes and edge lengths the kernels specialise on.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.hpp"
#include "backends/cpu/paged_attention.hpp"
#include "core/aligned_buffer.hpp"
#include "core/errors.hpp"
#include "core/host_workload.hpp"
#include "core/reference.hpp"
#include "measure/verify.hpp"
#include "test_support.hpp"

using namespace readbench;
using readbench::test::make_shape;

// cpu::baseline:: kernels (paged_attention.hpp) run only where the processor lacks AVX-512,
// so they are called directly here to be tested on every machine.

namespace {

// Checks both paths on one workload; every failure names the configuration.
void check_both_paths(Backend& backend, const Shape& s, DType t, std::int64_t length,
                      std::uint64_t seed = 1, std::optional<DType> kv = std::nullopt) {
  CAPTURE(to_string(t));
  CAPTURE(to_string(kv.value_or(t)));
  CAPTURE(s.batch);
  CAPTURE(s.q_heads);
  CAPTURE(s.kv_heads);
  CAPTURE(s.head_dim);
  CAPTURE(s.block_size);
  CAPTURE(length);
  const auto checks =
      check_paths(backend, Workload{s, t, length, 1, seed, kv}, {Path::gather, Path::fused});
  REQUIRE(checks.size() == 2);
  for (const CheckResult& c : checks) {
    CAPTURE(to_string(c.path));
    CAPTURE(c.error);
    CHECK(c.tolerance == tolerance(t));
    CHECK(c.passed);
  }
}

// Every combination of GQA ratio 1, 4, 8; head dim 64, 128; block size 8, 16, 32;
// L = 1, S, S + 1; batch 1, 3.
void check_grid(DType t, std::optional<DType> kv = std::nullopt) {
  const auto backend = make_cpu_backend(2);
  for (int ratio : {1, 4, 8})
    for (int head_dim : {64, 128})
      for (int block : {8, 16, 32})
        for (int batch : {1, 3})
          for (std::int64_t length :
               {std::int64_t(1), std::int64_t(block), std::int64_t(block) + 1})
            check_both_paths(*backend, make_shape(batch, 2 * ratio, 2, head_dim, block), t, length,
                             1, kv);
}

// Delegates to the CPU backend, then spoils the output the way a buggy kernel might.
class SpoiledBackend final : public Backend {
 public:
  enum class Spoil { scale_one_element, nan_one_element };
  explicit SpoiledBackend(Spoil spoil) : inner_(make_cpu_backend(2)), spoil_(spoil) {}
  std::string_view name() const override { return "spoiled"; }
  double timer_resolution_s() const override { return inner_->timer_resolution_s(); }
  std::int64_t cache_bytes() const override { return inner_->cache_bytes(); }
  Bandwidths measure_bandwidths() override { return {}; }
  void prepare(HostWorkload&& w) override { inner_->prepare(std::move(w)); }
  std::vector<double> run_for_check(Path p) override {
    std::vector<double> out = inner_->run_for_check(p);
    if (spoil_ == Spoil::scale_one_element)
      out[out.size() / 2] = 1.0 + 2.0 * std::abs(out[out.size() / 2]);
    else
      out.back() = std::numeric_limits<double>::quiet_NaN();
    return out;
  }
  double time_calls(Path p, int calls, CacheState c) override {
    return inner_->time_calls(p, calls, c);
  }

 private:
  std::unique_ptr<Backend> inner_;
  Spoil spoil_;
};

}  // namespace

TEST_CASE(
    "both CPU paths match the reference in f32 over GQA ratios, head dims, blocks and lengths") {
  check_grid(DType::f32);
}

TEST_CASE(
    "both CPU paths match the reference in f16 over GQA ratios, head dims, blocks and lengths") {
  check_grid(DType::f16);
}

TEST_CASE(
    "both CPU paths match the reference in bf16 over GQA ratios, head dims, blocks and lengths") {
  check_grid(DType::bf16);
}

TEST_CASE(
    "both CPU paths match the reference with e4m3 K/V under f32, f16 and bf16 queries over GQA "
    "ratios, head dims, blocks and lengths") {
  for (DType t : {DType::f32, DType::f16, DType::bf16}) check_grid(t, DType::e4m3);
}

TEST_CASE("e4m3 K/V read a long history correctly, with odd head dims and GQA 3") {
  const auto backend = make_cpu_backend(2);
  for (DType t : {DType::f32, DType::bf16}) {
    check_both_paths(*backend, make_shape(2, 6, 2, 40, 16), t, 1001, 3, DType::e4m3);
    check_both_paths(*backend, make_shape(1, 32, 8, 128, 16), t, 4099, 5, DType::e4m3);
  }
}

TEST_CASE("the kernels widen every e4m3 code exactly, subnormals, zeros and NaN included") {
  // All 256 codes twice, the second run shifted by one: unaligned loads and a scalar tail.
  std::vector<std::uint8_t> codes(512);
  for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = std::uint8_t(i);
  using Widen = void (*)(const std::uint8_t*, std::size_t, float*);
  for (const auto& [copy, widen] :
       {std::pair<std::string, Widen>{"baseline", cpu::baseline::widen_e4m3},
        std::pair<std::string, Widen>{"picked", cpu::widen_e4m3}})
    for (std::size_t first : {0, 1}) {
      const std::string kernel_copy = copy;  // a structured binding cannot be captured
      CAPTURE(kernel_copy);
      CAPTURE(first);
      const std::size_t n = codes.size() - first;
      std::vector<float> got(n);
      widen(codes.data() + first, n, got.data());
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint8_t code = codes[first + i];
        CAPTURE(int(code));
        const float want = e4m3_bits_to_float(code);
        if (std::isnan(want))
          CHECK(std::isnan(got[i]));
        else  // bit for bit: the sign of zero too
          CHECK(std::bit_cast<std::uint32_t>(got[i]) == std::bit_cast<std::uint32_t>(want));
      }
    }
}

TEST_CASE("the kernels widen every e4m3 code exactly to bf16 for bf16 q.k, NaN included") {
  std::vector<std::uint8_t> codes(512);
  for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = std::uint8_t(i);
  for (std::size_t first : {0, 1}) {
    CAPTURE(first);
    const std::size_t n = codes.size() - first;
    std::vector<std::uint16_t> got(n);
    cpu::widen_e4m3_to_bf16(codes.data() + first, n, got.data());
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint8_t code = codes[first + i];
      CAPTURE(int(code));
      const float want = e4m3_bits_to_float(code);
      const float x = bf16_bits_to_float(got[i]) * 256.0f;  // exact: a power of two
      if (std::isnan(want))
        CHECK(std::isnan(x));
      else
        CHECK(std::bit_cast<std::uint32_t>(x) == std::bit_cast<std::uint32_t>(want));
    }
  }
}

TEST_CASE("both CPU paths handle a head dim that is not a multiple of the vector width") {
  const auto backend = make_cpu_backend(2);
  for (DType t : {DType::f32, DType::f16, DType::bf16})
    for (int head_dim : {40, 20})
      check_both_paths(*backend, make_shape(2, 8, 2, head_dim, 16), t, 37);
}

TEST_CASE("both CPU paths handle GQA ratios that are not powers of two") {
  const auto backend = make_cpu_backend(2);
  for (DType t : {DType::f32, DType::bf16})
    for (int ratio : {3, 6, 12})
      check_both_paths(*backend, make_shape(2, 2 * ratio, 2, 64, 16), t, 50);
}

TEST_CASE("both CPU paths stay correct when the history is split across threads") {
  const Shape s = make_shape(1, 8, 1, 128, 16);
  const Workload w{s, DType::f32, 1000, 1, 1, std::nullopt};
  REQUIRE(cpu::split_work(w, 4).history_splits > 1);  // one KV head cannot keep four threads busy
  const auto backend = make_cpu_backend(4);
  for (DType t : {DType::f32, DType::f16, DType::bf16}) check_both_paths(*backend, s, t, 1000);
}

TEST_CASE("short history slices never outnumber the blocks and merge correctly") {
  // Nine blocks and one KV head: up to eight slices of one or two blocks.
  const Shape s = make_shape(1, 4, 1, 64, 16);
  for (int threads : {3, 4, 8}) {
    CAPTURE(threads);
    const Workload w{s, DType::f32, 9 * 16, 1, 1, std::nullopt};
    const int splits = cpu::split_work(w, threads).history_splits;
    CHECK(splits > 1);
    CHECK(splits <= 9);
    const auto backend = make_cpu_backend(threads);
    check_both_paths(*backend, s, DType::f32, 9 * 16);
    check_both_paths(*backend, s, DType::bf16, 9 * 16 - 5);
  }
  const Workload one_block{s, DType::f32, 3, 1, 1, std::nullopt};
  CHECK(cpu::split_work(one_block, 8).history_splits == 1);
}

TEST_CASE("history slices are contiguous, as even as they come and never empty") {
  for (std::int64_t blocks = 1; blocks <= 140; ++blocks)
    for (int splits = 1; splits <= std::min<std::int64_t>(blocks, 17); ++splits) {
      CAPTURE(blocks);
      CAPTURE(splits);
      cpu::WorkSplit w;
      w.history_splits = splits;
      std::int64_t next = 0;
      for (int i = 0; i < splits; ++i) {
        const auto [first, end] = w.slice_blocks(blocks, i);
        CHECK(first == next);
        CHECK(end - first >= blocks / splits);
        CHECK(end - first <= blocks / splits + 1);
        next = end;
      }
      CHECK(next == blocks);
    }
  // Where the split chose whole-block slices, each keeps kMinSliceBlocks blocks.
  for (std::int64_t length : {128, 256, 1000, 4096, 16400})
    for (int threads : {2, 3, 16}) {
      const Workload w{make_shape(1, 32, 8, 128, 16), DType::bf16, length, 1, 1, std::nullopt};
      const cpu::WorkSplit s = cpu::split_work(w, threads);
      if (s.head_groups == 1 && s.history_splits > 1)
        CHECK(s.slice_blocks(w.blocks_per_seq(), s.history_splits - 1).second -
                  s.slice_blocks(w.blocks_per_seq(), s.history_splits - 1).first >=
              cpu::kMinSliceBlocks);
    }
}

TEST_CASE("the baseline kernels match the reference whatever kernels this processor picks") {
  // q's type and K/V's (plain variables, not a structured binding: CAPTURE's lambda takes them).
  for (const std::pair<DType, DType>& types :
       {std::pair{DType::f32, DType::f32}, std::pair{DType::f16, DType::f16},
        std::pair{DType::bf16, DType::bf16}, std::pair{DType::bf16, DType::e4m3},
        std::pair{DType::f16, DType::e4m3}})
    for (int ratio : {1, 3, 4, 8})
      for (int head_dim : {40, 64, 128})
        for (int batch : {1, 3})
          for (std::int64_t length : {1, 17, 100})
            for (int threads : {2, 4}) {
              const DType t = types.first, kv = types.second;
              CAPTURE(to_string(t));
              CAPTURE(to_string(kv));
              CAPTURE(ratio);
              CAPTURE(head_dim);
              CAPTURE(batch);
              CAPTURE(length);
              CAPTURE(threads);
              const HostWorkload h = make_host_workload(
                  Workload{make_shape(batch, 2 * ratio, 2, head_dim, 16), t, length, 1, 4, kv});
              const std::vector<double> ref = reference_attention(h, 0);
              const Workload& w = h.workload;
              const std::size_t out_bytes = std::size_t(w.io_elements()) * element_size(t);
              AlignedBuffer out(out_bytes), k(std::size_t(w.kv_bytes_per_call() / 2)),
                  v(std::size_t(w.kv_bytes_per_call() / 2));
              for (int path = 0; path < 2; ++path) {
                CAPTURE(path);
                for (std::int64_t i = 0; i < w.io_elements(); ++i)
                  store_as(t, out.data(), std::size_t(i), std::numeric_limits<float>::quiet_NaN());
                if (path == 0)
                  cpu::baseline::gather_read(cpu::inputs_of(h, 0), out.data(), {k.data(), v.data()},
                                             threads);
                else
                  cpu::baseline::fused_read(cpu::inputs_of(h, 0), out.data(), threads);
                std::vector<double> got(ref.size());
                for (std::size_t i = 0; i < got.size(); ++i) got[i] = load_as(t, out.data(), i);
                CHECK(relative_error(got, ref) <= tolerance(t));
              }
            }
}

TEST_CASE("the work is split over sequences, long history slices, KV heads, short slices") {
  auto split = [](int batch, int kv_heads, std::int64_t length, int threads) {
    const Workload w{
        make_shape(batch, 4 * kv_heads, kv_heads, 64, 16), DType::f32, length, 1, 1, std::nullopt};
    const cpu::WorkSplit s = cpu::split_work(w, threads);
    return std::pair{s.head_groups, s.history_splits};
  };
  CHECK(split(64, 8, 4096, 4) == std::pair{1, 1});  // sequences keep every thread busy
  CHECK(split(8, 8, 4096, 2) == std::pair{1, 1});
  CHECK(split(1, 1, 4096, 1) == std::pair{1, 1});
  CHECK(split(1, 8, 4096, 2) == std::pair{1, 2});  // a long history: whole-block slices
  CHECK(split(3, 2, 4096, 2) == std::pair{1, 2});  // 3 tasks on 2 threads would be uneven
  CHECK(split(1, 8, 4096, 3) == std::pair{1, 3});
  CHECK(split(1, 8, 4096, 16) == std::pair{1, 16});
  CHECK(split(1, 8, 256, 2) == std::pair{1, 2});  // 16 blocks: two slices of 8
  CHECK(split(1, 8, 128, 2) == std::pair{2, 1});  // 8 blocks: halves of the KV heads instead
  CHECK(split(3, 2, 100, 2) == std::pair{2, 1});
  CHECK(split(1, 8, 16, 3) == std::pair{8, 1});    // no grouping divides 3: two tasks each
  CHECK(split(1, 8, 256, 16) == std::pair{8, 2});  // both, 16 tasks
  CHECK(split(1, 8, 64, 16) == std::pair{8, 2});   // one task per KV head: shorter slices
  CHECK(split(1, 8, 16, 16) == std::pair{8, 1});   // never more slices than blocks
  CHECK(split(1, 2, 16, 4) == std::pair{2, 1});
}

TEST_CASE("both CPU paths stay correct when the KV heads are split across threads") {
  // Short histories, so the split groups KV heads (at 16 threads it slices them too); the
  // last shape's GQA ratio 3 runs one head per pass.
  const Shape shapes[] = {make_shape(1, 32, 8, 128, 16), make_shape(3, 12, 2, 40, 8),
                          make_shape(1, 24, 8, 64, 16)};
  const std::int64_t lengths[] = {16 * 7 + 3, 50, 16 * 5};
  for (int threads : {2, 3, 4, 16}) {
    CAPTURE(threads);
    const auto backend = make_cpu_backend(threads);
    for (int i = 0; i < 3; ++i) {
      const cpu::WorkSplit split =
          cpu::split_work(Workload{shapes[i], DType::f32, lengths[i], 1, 1, std::nullopt}, threads);
      // Three sequences already keep three threads busy.
      CHECK(split.head_groups > (i == 1 && threads == 3 ? 0 : 1));
      if (threads == 16) CHECK(split.history_splits > 1);
      for (DType t : {DType::f32, DType::f16, DType::bf16}) {
        CAPTURE(to_string(t));
        check_both_paths(*backend, shapes[i], t, lengths[i]);
      }
    }
  }
}

TEST_CASE("cold timing primes each new shape and dtype and leaves the checks correct") {
  // A cold sample runs a one-block call of the same read on buffers of its own after the
  // flush (cpu_backend.cpp); across shapes, dtypes and paths that must neither fail nor
  // disturb what the checks read.
  const auto backend = make_cpu_backend(2);
  const std::pair<Shape, DType> cases[] = {{make_shape(1, 8, 2, 40, 8), DType::f32},
                                           {make_shape(3, 32, 8, 128, 16), DType::bf16},
                                           {make_shape(2, 12, 2, 64, 32), DType::f16}};
  for (const auto& c : cases) {
    const Shape& s = c.first;
    const DType t = c.second;  // not a structured binding: CAPTURE needs clang 16 for those
    CAPTURE(to_string(t));
    backend->prepare(make_host_workload(Workload{s, t, 50, 2, 5, std::nullopt}));
    for (const Path& p : {Path::gather, Path::fused}) {
      CAPTURE(to_string(p));
      const double seconds = backend->time_calls(p, 2, CacheState::cold);
      CHECK(std::isfinite(seconds));
      CHECK(seconds > 0);
    }
    check_both_paths(*backend, s, t, 50);
  }
}

TEST_CASE("run_for_check writes every output element over its NaN poison") {
  const auto backend = make_cpu_backend(2);
  for (DType t : {DType::f32, DType::f16, DType::bf16}) {
    CAPTURE(to_string(t));
    const Workload w{make_shape(3, 8, 2, 40, 8), t, 17, 2, 3, std::nullopt};
    backend->prepare(make_host_workload(w));
    for (const Path& p : {Path::gather, Path::fused}) {
      CAPTURE(to_string(p));
      const std::vector<double> out = backend->run_for_check(p);
      REQUIRE(out.size() == std::size_t(w.io_elements()));
      int non_finite = 0;
      for (double x : out) non_finite += !std::isfinite(x);
      CHECK(non_finite == 0);
    }
  }
}

TEST_CASE("both CPU paths pass their checks when several replicas are prepared") {
  // Replicas share one pool with distinct blocks each; the check runs replica 0.
  const auto backend = make_cpu_backend(2);
  const Shape s = make_shape(2, 8, 2, 64, 16);
  const auto checks = check_paths(*backend, Workload{s, DType::f32, 40, 4, 9, std::nullopt},
                                  {Path::gather, Path::fused});
  for (const CheckResult& c : checks) CHECK(c.passed);
}

TEST_CASE("both CPU paths read the queries and block table of the replica they are given") {
  // Replicas 1 and 2 have their own queries and blocks, so their outputs differ from replica
  // 0's; each must match the reference of its own replica.
  for (DType t : {DType::f32, DType::bf16}) {
    CAPTURE(to_string(t));
    const HostWorkload h =
        make_host_workload(Workload{make_shape(2, 8, 2, 64, 16), t, 37, 3, 5, std::nullopt});
    const Workload& w = h.workload;
    AlignedBuffer out(std::size_t(w.io_elements()) * element_size(t)),
        k(std::size_t(w.kv_bytes_per_call() / 2)), v(std::size_t(w.kv_bytes_per_call() / 2));
    const std::vector<double> ref0 = reference_attention(h, 0);
    for (int r : {1, 2}) {
      CAPTURE(r);
      const std::vector<double> ref = reference_attention(h, r);
      REQUIRE(relative_error(ref, ref0) > 0.1);
      for (const Path& p : {Path::gather, Path::fused}) {
        CAPTURE(to_string(p));
        for (std::int64_t i = 0; i < w.io_elements(); ++i)
          store_as(t, out.data(), std::size_t(i), std::numeric_limits<float>::quiet_NaN());
        if (p == Path::gather)
          cpu::gather_read(h, r, out.data(), {k.data(), v.data()}, 2);
        else
          cpu::fused_read(h, r, out.data(), 2);
        std::vector<double> got(ref.size());
        for (std::size_t i = 0; i < got.size(); ++i) got[i] = load_as(t, out.data(), i);
        CHECK(relative_error(got, ref) <= tolerance(t));
      }
    }
  }
}

TEST_CASE("an output spoiled in one element fails its check") {
  SpoiledBackend backend(SpoiledBackend::Spoil::scale_one_element);
  const auto checks = check_paths(
      backend, Workload{make_shape(1, 4, 2, 64, 16), DType::f32, 33, 1, 1, std::nullopt},
      {Path::gather, Path::fused});
  REQUIRE(checks.size() == 2);
  for (const CheckResult& c : checks) {
    CHECK_FALSE(c.passed);
    CHECK(c.error > c.tolerance);
    CHECK(std::isfinite(c.error));
  }
}

TEST_CASE("an output with a NaN fails its check with an infinite error") {
  SpoiledBackend backend(SpoiledBackend::Spoil::nan_one_element);
  const auto checks = check_paths(
      backend, Workload{make_shape(1, 4, 2, 64, 16), DType::bf16, 33, 1, 1, std::nullopt},
      {Path::fused});
  REQUIRE(checks.size() == 1);
  CHECK_FALSE(checks[0].passed);
  CHECK(std::isinf(checks[0].error));
}

TEST_CASE("relative error is the Frobenius norm of the difference over that of the reference") {
  // ||(3, 4) - (3, 4.5)|| / ||(3, 4)|| = 0.5 / 5.
  CHECK(relative_error({3, 4.5}, {3, 4}) == doctest::Approx(0.1).epsilon(1e-15));
  CHECK(relative_error({3, 4}, {3, 4}) == 0.0);
}

TEST_CASE("a perturbation of one part in 1e4 exceeds the f32 tolerance but not the bf16 one") {
  std::vector<double> ref(100, 1.0), out = ref;
  for (double& x : out) x *= 1.0 + 1e-4;
  const double e = relative_error(out, ref);
  CHECK(e == doctest::Approx(1e-4).epsilon(1e-9));
  CHECK(e > tolerance(DType::f32));
  CHECK(e < tolerance(DType::f16));
  CHECK(e < tolerance(DType::bf16));
}

TEST_CASE("relative error of a NaN or infinite output is infinite") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(std::isinf(relative_error({1, nan}, {1, 2})));
  CHECK(std::isinf(relative_error({inf, 2}, {1, 2})));
  CHECK(std::isinf(relative_error({-inf, 2}, {1, 2})));
}

TEST_CASE("relative error of outputs of different sizes is an error") {
  CHECK_THROWS_AS(relative_error({1, 2}, {1, 2, 3}), InputError);
}

TEST_CASE("the tolerances are those") {
  CHECK(tolerance(DType::f32) == 1e-5);
  CHECK(tolerance(DType::f16) == 2e-3);
  CHECK(tolerance(DType::bf16) == 1e-2);
  // f32's grows with the square root of the tokens summed, past L = 7,000.
  CHECK(tolerance(DType::f32, 1000) == 1e-5);
  CHECK(tolerance(DType::f32, std::int64_t(1) << 22) == std::ldexp(2048.0, -23));
  CHECK(tolerance(DType::f16, std::int64_t(1) << 22) == 2e-3);
  CHECK(tolerance(DType::bf16, std::int64_t(1) << 22) == 1e-2);
}

TEST_CASE("an f32 read of a million tokens passes its check: the tolerance grows with the sums") {
  // One thread, one query head of dimension 4: the longest running sums the CPU read keeps
  // (their rounding measured 2.1e-5 here, over the fixed 1e-5 this check once had).
  const auto backend = make_cpu_backend(1);
  const std::int64_t length = std::int64_t(1) << 20;
  const auto checks = check_paths(
      *backend, Workload{make_shape(1, 1, 1, 4, 16), DType::f32, length, 1, 42, std::nullopt},
      {Path::gather, Path::fused});
  REQUIRE(checks.size() == 2);
  for (const CheckResult& c : checks) {
    CAPTURE(c.error);
    CHECK(c.tolerance == tolerance(DType::f32, length));
    CHECK(c.passed);
  }
}

TEST_CASE("a backend that keeps no output buffer says so when asked to read one back") {
  const auto backend = make_cpu_backend(1);
  CHECK_THROWS_WITH_AS(backend->read_output(0), "the cpu backend cannot read its outputs back",
                       BackendError);
}

// An ab worker's two arms of one binary read one workload: each backend over a view of it.
TEST_CASE("backends over views of one host workload read its pages, and no view frees them") {
  const Workload w{make_shape(2, 8, 2, 64, 16), DType::bf16, 1000, 1, 7, std::nullopt};
  const HostWorkload host = make_host_workload(w);
  REQUIRE(host.k_pool.size() >= std::size_t(64) << 10);  // a mapping of its own, not the heap
  const std::vector<std::byte> before(host.k_pool.data(), host.k_pool.data() + host.k_pool.size());
  std::vector<double> outs[2], gathered[2];
  std::unique_ptr<Backend> backends[2];
  for (int i = 0; i < 2; ++i) {
    HostWorkload v = view_of(host);
    CHECK(v.k_pool.data() == host.k_pool.data());
    CHECK(v.v_pool.data() == host.v_pool.data());
    CHECK(v.q.data() == host.q.data());
    CHECK(v.block_table == host.block_table);
    backends[i] = make_cpu_backend(2);
    backends[i]->prepare(std::move(v));
    outs[i] = backends[i]->run_for_check(Path::fused);
    gathered[i] = backends[i]->run_for_check(Path::gather);  // into the one gather copy they share
  }
  CHECK(outs[0] == outs[1]);
  CHECK(gathered[0] == gathered[1]);
  CHECK(backends[0]->run_for_check(Path::gather) == gathered[0]);
  backends[0].reset();
  backends[1].reset();
  // A view that handed the pool's mapping back would have it taken by a buffer of its size.
  AlignedBuffer other(host.k_pool.size());
  std::memset(other.data(), 0xab, other.size());
  CHECK(other.data() != host.k_pool.data());
  CHECK(std::memcmp(before.data(), host.k_pool.data(), before.size()) == 0);
}
