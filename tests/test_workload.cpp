// The workload model: shape validation, the shuffled block allocator, the host
// workload, the bytes model of §3 and the f16 / bf16 conversions.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/bytes_model.hpp"
#include "core/dtype.hpp"
#include "core/errors.hpp"
#include "core/host_workload.hpp"
#include "core/random_fill.hpp"
#include "core/shape.hpp"
#include "test_support.hpp"

using namespace readbench;
using readbench::test::error_message;

namespace {

Shape small_shape() {
  Shape s;
  s.batch = 2;
  s.q_heads = 4;
  s.kv_heads = 2;
  s.head_dim = 8;
  s.block_size = 4;
  return s;
}

std::vector<std::int32_t> drain(BlockAllocator& a) {
  std::vector<std::int32_t> out;
  while (a.remaining() > 0) out.push_back(a.allocate());
  return out;
}

float f32(std::uint32_t bits) {
  return std::bit_cast<float>(bits);
}

}  // namespace

// --- Shape::validate --------------------------------------------------------------------

TEST_CASE("the default shape is valid") {
  CHECK_NOTHROW(Shape{}.validate());
}

TEST_CASE("a zero or negative size names the option and the value") {
  struct Case {
    int Shape::*field;
    const char* option;
  };
  for (const Case c : {Case{&Shape::batch, "--batch"}, Case{&Shape::q_heads, "--q-heads"},
                       Case{&Shape::kv_heads, "--kv-heads"}, Case{&Shape::head_dim, "--head-dim"},
                       Case{&Shape::block_size, "--block-size"}}) {
    for (int bad : {0, -3}) {
      Shape s;
      s.*c.field = bad;
      CAPTURE(c.option);
      CAPTURE(bad);
      const std::string msg = error_message([&] { s.validate(); });
      CHECK(msg.find(c.option) != std::string::npos);
      CHECK(msg.find("got " + std::to_string(bad)) != std::string::npos);
    }
  }
}

TEST_CASE("query heads that are not a multiple of KV heads are rejected, naming both") {
  Shape s;
  s.q_heads = 6;
  s.kv_heads = 4;
  const std::string msg = error_message([&] { s.validate(); });
  CHECK(msg.find("--q-heads (6)") != std::string::npos);
  CHECK(msg.find("--kv-heads (4)") != std::string::npos);
}

TEST_CASE("grouped-query shapes with Hq a multiple of Hkv are valid") {
  Shape s;
  s.q_heads = 24;
  s.kv_heads = 8;
  CHECK_NOTHROW(s.validate());
  CHECK(s.group() == 3);
}

TEST_CASE("a size above its upper bound names the option, the bound and the value") {
  struct Case {
    int Shape::*field;
    const char* option;
    int bound;
  };
  for (const Case c :
       {Case{&Shape::batch, "--batch", 1 << 20}, Case{&Shape::q_heads, "--q-heads", 1 << 16},
        Case{&Shape::kv_heads, "--kv-heads", 1 << 16},
        Case{&Shape::head_dim, "--head-dim", 1 << 16},
        Case{&Shape::block_size, "--block-size", 1 << 20}}) {
    Shape s;
    s.q_heads = s.kv_heads = 1;
    s.head_dim = 1;  // so Hq x D stays under its own bound
    s.*c.field = c.bound;
    if (c.field == &Shape::kv_heads) s.q_heads = c.bound;
    CAPTURE(c.option);
    CHECK_NOTHROW(s.validate());
    s.*c.field = c.bound + 1;
    const std::string msg = error_message([&] { s.validate(); });
    CHECK(msg.find(c.option) != std::string::npos);
    CHECK(msg.find("at most " + std::to_string(c.bound)) != std::string::npos);
    CHECK(msg.find("got " + std::to_string(c.bound + 1)) != std::string::npos);
  }
}

TEST_CASE("70000 query heads exceed the bound of 65536 and the message names --q-heads") {
  Shape s;
  s.q_heads = 70000;
  s.kv_heads = 1;
  CHECK(error_message([&] { s.validate(); }) == "--q-heads must be at most 65536, got 70000");
}

TEST_CASE("query heads times head dim above 2^24 are rejected naming both options") {
  Shape s;
  s.q_heads = 4096;
  s.kv_heads = 1;
  s.head_dim = 4096;  // 2^24 exactly: allowed
  CHECK_NOTHROW(s.validate());
  s.head_dim = 4097;
  const std::string msg = error_message([&] { s.validate(); });
  CHECK(msg.find("--q-heads") != std::string::npos);
  CHECK(msg.find("--head-dim") != std::string::npos);
  CHECK(msg.find("got " + std::to_string(4096 * 4097)) != std::string::npos);
}

// --- BlockAllocator ---------------------------------------------------------------------

TEST_CASE("the allocator hands out every block exactly once") {
  BlockAllocator a(64, 1);
  auto ids = drain(a);
  REQUIRE(ids.size() == 64);
  std::sort(ids.begin(), ids.end());
  std::vector<std::int32_t> all(64);
  std::iota(all.begin(), all.end(), 0);
  CHECK(ids == all);
}

TEST_CASE("the allocator scatters blocks instead of handing them out in order") {
  BlockAllocator a(64, 1);
  const auto ids = drain(a);
  std::vector<std::int32_t> up(64), down(64);
  std::iota(up.begin(), up.end(), 0);
  std::reverse_copy(up.begin(), up.end(), down.begin());
  CHECK(ids != up);
  CHECK(ids != down);
  // Neighbouring logical blocks are rarely neighbours in the pool.
  int adjacent = 0;
  for (std::size_t i = 1; i < ids.size(); ++i) adjacent += std::abs(ids[i] - ids[i - 1]) == 1;
  CHECK(adjacent < 16);
}

TEST_CASE("the same seed gives the same block order") {
  BlockAllocator a(100, 42), b(100, 42);
  CHECK(drain(a) == drain(b));
}

TEST_CASE("different seeds give different block orders") {
  BlockAllocator a(100, 42), b(100, 43);
  CHECK(drain(a) != drain(b));
}

TEST_CASE("an exhausted allocator raises an input error") {
  BlockAllocator a(3, 0);
  CHECK(a.remaining() == 3);
  a.allocate();
  a.allocate();
  a.allocate();
  CHECK(a.remaining() == 0);
  const std::string msg = error_message([&] { a.allocate(); });
  CHECK(msg.find("exhausted") != std::string::npos);
}

TEST_CASE("a pool larger than a 32-bit block table can address is rejected") {
  CHECK_THROWS_AS(BlockAllocator(std::int64_t(1) << 31, 0), InputError);
}

// --- make_host_workload ------------------------------------------------------------------

TEST_CASE("the host workload has the sizes its shape implies") {
  // B=2, Hq=4, Hkv=2, D=8, S=4, L=10 (ends mid-block), 3 replicas, f16:
  // 3 blocks per sequence, 3 * 2 * 3 = 18 blocks, pool 18 * 4 * 2 * 8 = 1152 elements.
  const Workload w{small_shape(), DType::f16, 10, 3, 5, std::nullopt};
  const HostWorkload h = make_host_workload(w);
  CHECK(w.blocks_per_seq() == 3);
  CHECK(w.num_blocks() == 18);
  CHECK(w.pool_elements() == 1152);
  CHECK(w.io_elements() == 64);
  CHECK(h.k_pool.size() == 1152 * 2);
  CHECK(h.v_pool.size() == 1152 * 2);
  CHECK(h.q.size() == 3 * 64 * 2);
  CHECK(h.block_table.size() == 18);
  CHECK(h.table(2) == h.block_table.data() + 2 * 2 * 3);
  CHECK(h.query(1) == h.q.data() + 64 * 2);
}

TEST_CASE("every replica and sequence owns distinct physical blocks") {
  const Workload w{small_shape(), DType::bf16, 10, 3, 5, std::nullopt};
  const HostWorkload h = make_host_workload(w);
  const std::set<std::int32_t> distinct(h.block_table.begin(), h.block_table.end());
  CHECK(distinct.size() == h.block_table.size());
  CHECK(*distinct.begin() == 0);
  CHECK(*distinct.rbegin() == w.num_blocks() - 1);
}

TEST_CASE("the inputs are random, non-zero and within [-1, 1]") {
  for (DType t : {DType::f32, DType::f16, DType::bf16}) {
    CAPTURE(to_string(t));
    const Workload w{small_shape(), t, 10, 2, 9, std::nullopt};
    const HostWorkload h = make_host_workload(w);
    for (const AlignedBuffer* buf : {&h.q, &h.k_pool, &h.v_pool}) {
      const std::size_t n = buf->size() / element_size(t);
      std::set<float> values;
      int negative = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const float x = load_as(t, buf->data(), i);
        REQUIRE(x != 0.0f);
        REQUIRE(std::abs(x) <= 1.0f);
        negative += x < 0;
        values.insert(x);
      }
      CHECK(values.size() > n / 2);
      CHECK(negative > int(n) / 4);
      CHECK(negative < 3 * int(n) / 4);
    }
  }
}

TEST_CASE("every tensor holds random_value of its index, stored as its type, bit for bit") {
  // The fill's loops (an AVX-512 clone where the CPU has one) against the element-wise
  // definition the reference and the other backends rely on; 140288 elements a pool, so the
  // vector loops and their remainders both run.
  Shape big = small_shape();
  big.block_size = 16;
  for (DType kv : {DType::f32, DType::f16, DType::bf16, DType::e4m3}) {
    const DType q = kv == DType::e4m3 ? DType::bf16 : kv;
    CAPTURE(to_string(kv));
    const Workload w{big, q, 4375, 1, 21, kv};
    const HostWorkload h = make_host_workload(w);
    const auto expect = [&](const AlignedBuffer& buf, DType t, TensorId id, float scale) {
      const std::size_t n = buf.size() / element_size(t);
      std::vector<std::uint8_t> want(buf.size());
      for (std::size_t i = 0; i < n; ++i)
        store_as(t, want.data(), i, random_value(w.seed, id, i) * (1.0f / scale));
      CHECK(std::memcmp(want.data(), buf.data(), buf.size()) == 0);
    };
    expect(h.q, q, TensorId::query, 1.0f);
    expect(h.k_pool, kv, TensorId::key, w.kv_scale());
    expect(h.v_pool, kv, TensorId::value, w.kv_scale());
  }
}

TEST_CASE("the same seed reproduces the workload byte for byte") {
  const Workload w{small_shape(), DType::bf16, 10, 2, 11, std::nullopt};
  const HostWorkload a = make_host_workload(w), b = make_host_workload(w);
  CHECK(std::memcmp(a.q.data(), b.q.data(), a.q.size()) == 0);
  CHECK(std::memcmp(a.k_pool.data(), b.k_pool.data(), a.k_pool.size()) == 0);
  CHECK(std::memcmp(a.v_pool.data(), b.v_pool.data(), a.v_pool.size()) == 0);
  CHECK(a.block_table == b.block_table);
}

TEST_CASE("a different seed changes the inputs and the block table") {
  Workload w{small_shape(), DType::bf16, 10, 2, 11, std::nullopt};
  const HostWorkload a = make_host_workload(w);
  w.seed = 12;
  const HostWorkload b = make_host_workload(w);
  CHECK(std::memcmp(a.k_pool.data(), b.k_pool.data(), a.k_pool.size()) != 0);
  CHECK(a.block_table != b.block_table);
}

TEST_CASE("keys, values and queries are different tensors") {
  const Workload w{small_shape(), DType::f32, 10, 1, 3, std::nullopt};
  const HostWorkload h = make_host_workload(w);
  CHECK(std::memcmp(h.k_pool.data(), h.v_pool.data(), h.k_pool.size()) != 0);
  CHECK(std::memcmp(h.q.data(), h.k_pool.data(), h.q.size()) != 0);
}

TEST_CASE("a workload with a bad shape, length or replica count is rejected") {
  Workload w{small_shape(), DType::f32, 10, 1, 3, std::nullopt};
  w.shape.kv_heads = 3;
  CHECK_THROWS_AS(make_host_workload(w), InputError);
  w.shape = small_shape();
  w.length = 0;
  CHECK(error_message([&] { make_host_workload(w); }).find("got 0") != std::string::npos);
  w.length = 10;
  w.replicas = 0;
  CHECK(error_message([&] { make_host_workload(w); }).find("replicas") != std::string::npos);
}

TEST_CASE("a workload larger than this machine's memory is refused naming its bytes") {
  // B = 2^20, L = 2^30 in bf16: K and V alone are 2 * 2^50 * 8 * 128 * 2 bytes, about 4.6e18.
  // Refused before any allocation: allocating first would fail with bad_alloc instead.
  Workload w{Shape{}, DType::bf16, std::int64_t(1) << 30, 1, 1, std::nullopt};
  w.shape.batch = 1 << 20;
  const std::string msg = error_message([&] { make_host_workload(w); });
  CHECK(msg.find("bytes") != std::string::npos);
  CHECK(msg.find("4.612e+18") != std::string::npos);
  CHECK(msg.find("B=1048576") != std::string::npos);
  CHECK(msg.find("L=1073741824") != std::string::npos);
}

// --- bytes model ------------------------------------------------------------------------

// B=2, Hq=8, Hkv=2, D=64, S=16, L=100, bf16 (2 bytes):
//   K and V read once:   2 * B * L * Hkv * D * 2 = 2 * 2 * 100 * 2 * 64 * 2 = 102400
//   q read + out written: 2 * B * Hq * D * 2     = 2 * 2 * 8 * 64 * 2       = 4096
//   block table:         B * ceil(100 / 16) * 4  = 2 * 7 * 4                = 56
//   gather also writes the copy and reads it back: 2 * 102400              = 204800
namespace {
Workload bytes_case() {
  Shape s;
  s.batch = 2;
  s.q_heads = 8;
  s.kv_heads = 2;
  s.head_dim = 64;
  s.block_size = 16;
  return Workload{s, DType::bf16, 100, 1, 0, std::nullopt};
}
}  // namespace

TEST_CASE("the fused path moves K and V once plus q, output and block table") {
  const BytesModel m = bytes_per_call(bytes_case(), Path::fused);
  CHECK(m.kv_read == 102400);
  CHECK(m.io == 4096);
  CHECK(m.block_table == 56);
  CHECK(m.materialized == 0);
  CHECK(m.total() == 106552);
}

TEST_CASE("the gather path also moves the contiguous copy written and read back") {
  const BytesModel m = bytes_per_call(bytes_case(), Path::gather);
  CHECK(m.kv_read == 102400);
  CHECK(m.materialized == 204800);
  CHECK(m.total() == 311352);
}

TEST_CASE("bytes per call do not depend on the number of replicas but do on the dtype") {
  Workload w = bytes_case();
  w.replicas = 7;
  CHECK(bytes_per_call(w, Path::fused).total() == 106552);
  w.dtype = DType::f32;
  CHECK(bytes_per_call(w, Path::fused).total() == 2 * 102400 + 2 * 4096 + 56);
}

// --- dtype conversions ------------------------------------------------------------------

TEST_CASE("dtypes parse from their names and reject others") {
  CHECK(parse_dtype("f32") == DType::f32);
  CHECK(parse_dtype("f16") == DType::f16);
  CHECK(parse_dtype("bf16") == DType::bf16);
  CHECK(parse_dtype("fp8_e4m3") == DType::e4m3);
  CHECK(error_message([] { parse_dtype("fp8"); }).find("fp8") != std::string::npos);
  CHECK(element_size(DType::f32) == 4);
  CHECK(element_size(DType::f16) == 2);
  CHECK(element_size(DType::bf16) == 2);
  CHECK(element_size(DType::e4m3) == 1);
}

TEST_CASE("fp8_e4m3 stores K/V only: q's parser refuses it and says where it belongs") {
  CHECK(parse_query_dtype("bf16") == DType::bf16);
  const std::string m = error_message([] { parse_query_dtype("fp8_e4m3"); });
  CHECK(m.find("fp8_e4m3") != std::string::npos);
  CHECK(m.find("--kv-dtype") != std::string::npos);
  CHECK(error_message([] { parse_query_dtype("int8"); }).find("int8") != std::string::npos);
}

TEST_CASE("K/V are stored in the query's type or in e4m3, and other pairs name both types") {
  for (DType t : {DType::f32, DType::f16, DType::bf16}) {
    CHECK_NOTHROW(validate_dtypes(t, t));
    CHECK_NOTHROW(validate_dtypes(t, DType::e4m3));
  }
  const std::string m = error_message([] { validate_dtypes(DType::bf16, DType::f32); });
  CHECK(m.find("f32") != std::string::npos);
  CHECK(m.find("bf16") != std::string::npos);
  CHECK_THROWS_AS(validate_dtypes(DType::e4m3, DType::e4m3), InputError);
  Workload w{small_shape(), DType::f32, 10, 1, 3, DType::f16};
  CHECK_THROWS_AS(make_host_workload(w), InputError);
}

namespace {
// The value of an e4m3 code by its definition, independent of the bit manipulation under test.
double e4m3_definition(unsigned code) {
  const int e = int(code >> 3) & 0xf, m = int(code) & 7;
  const double mag = e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1.0 + m / 8.0, e - 7);
  return (code & 0x80) ? -mag : mag;
}
}  // namespace

TEST_CASE("every e4m3 code decodes to its value and encodes back to itself") {
  for (unsigned code = 0; code < 256; ++code) {
    CAPTURE(code);
    const float x = e4m3_bits_to_float(std::uint8_t(code));
    if ((code & 0x7f) == 0x7f) {
      CHECK(std::isnan(x));
      continue;
    }
    CHECK(double(x) == e4m3_definition(code));
    CHECK(float_to_e4m3_bits(x) == code);
  }
  CHECK(e4m3_bits_to_float(0x7e) == 448.0f);
  CHECK(e4m3_bits_to_float(0x01) == std::ldexp(1.0f, -9));
}

TEST_CASE("e4m3 rounds to the nearest code, ties to even, and saturates at 448") {
  // Against a search over the finite codes, on random floats of both signs and every scale.
  std::uint64_t state = 12345;
  for (int i = 0; i < 200000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double mag = std::ldexp(double(state >> 11) / double(1ull << 53), int(state % 24) - 14);
    const float x = float((state >> 7) & 1 ? -mag : mag);
    int best = -1;
    double best_err = 0;
    for (unsigned code = 0; code < 256; ++code) {
      if ((code & 0x7f) == 0x7f) continue;
      const double err = std::abs(e4m3_definition(code) - double(x));
      if (best < 0 || err < best_err || (err == best_err && code % 2 == 0 && best % 2 == 1)) {
        best = int(code);
        best_err = err;
      }
    }
    CAPTURE(x);
    const double expected =
        std::abs(x) >= 448.0f ? (x < 0 ? -448.0 : 448.0) : e4m3_definition(unsigned(best));
    CHECK(double(e4m3_bits_to_float(float_to_e4m3_bits(x))) == expected);
  }
  CHECK(e4m3_bits_to_float(float_to_e4m3_bits(1.0625f)) == 1.0f);   // tie: to even mantissa
  CHECK(e4m3_bits_to_float(float_to_e4m3_bits(1.1875f)) == 1.25f);  // tie: to even mantissa
  CHECK(e4m3_bits_to_float(float_to_e4m3_bits(3.0f / 1024)) == 4.0f / 1024);  // subnormal tie
  CHECK(float_to_e4m3_bits(1e30f) == 0x7e);
  CHECK(float_to_e4m3_bits(-std::numeric_limits<float>::infinity()) == 0xfe);
  CHECK((float_to_e4m3_bits(std::numeric_limits<float>::quiet_NaN()) & 0x7f) == 0x7f);
}

TEST_CASE("e4m3 K/V hold the inputs over their scale in one byte each, and q stays in its type") {
  const Workload w{small_shape(), DType::bf16, 10, 2, 11, DType::e4m3};
  const Workload same{small_shape(), DType::bf16, 10, 2, 11, std::nullopt};
  CHECK(w.kv_dtype() == DType::e4m3);
  CHECK(same.kv_dtype() == DType::bf16);
  CHECK(w.kv_scale() == kE4m3Scale);
  CHECK(same.kv_scale() == 1.0f);
  CHECK(w.kv_bytes_per_call() * 2 == same.kv_bytes_per_call());
  const HostWorkload h = make_host_workload(w);
  CHECK(h.k_pool.size() == std::size_t(w.pool_elements()));
  CHECK(h.q.size() == std::size_t(w.replicas * w.io_elements() * 2));
  const BytesModel fp8 = bytes_per_call(w, Path::fused), bf16 = bytes_per_call(same, Path::fused);
  CHECK(fp8.kv_read * 2 == bf16.kv_read);
  CHECK(fp8.io == bf16.io);
  // Dequantized, each stored value is its input to e4m3's precision (3 mantissa bits), and
  // the inputs reach most of e4m3's range.
  float largest = 0;
  for (std::int64_t i = 0; i < w.pool_elements(); ++i) {
    const float q = load_as(DType::e4m3, h.k_pool.data(), std::size_t(i));
    const float x = random_value(w.seed, TensorId::key, std::uint64_t(i));
    largest = std::max(largest, std::abs(q));
    // Half a step of a 3-bit mantissa, or of the subnormals' 2^-9 (times the scale).
    CHECK(std::abs(q * w.kv_scale() - x) <= std::max(std::abs(x) / 16, kE4m3Scale / 1024) * 1.001f);
  }
  CHECK(largest > 400.0f);
  CHECK(largest <= 448.0f);
}

TEST_CASE("bf16 converts known values to their bit patterns and back") {
  CHECK(float_to_bf16_bits(1.0f) == 0x3f80);
  CHECK(float_to_bf16_bits(-2.0f) == 0xc000);
  CHECK(float_to_bf16_bits(0.0f) == 0x0000);
  CHECK(float_to_bf16_bits(-0.0f) == 0x8000);
  CHECK(bf16_bits_to_float(0x3f80) == 1.0f);
  CHECK(bf16_bits_to_float(0xc000) == -2.0f);
  CHECK(bf16_bits_to_float(0x4049) == 3.140625f);
}

TEST_CASE("bf16 rounds to nearest, ties to even") {
  CHECK(float_to_bf16_bits(f32(0x3f808000)) == 0x3f80);  // tie, 0x3f80 is even
  CHECK(float_to_bf16_bits(f32(0x3f818000)) == 0x3f82);  // tie, 0x3f82 is even
  CHECK(float_to_bf16_bits(f32(0x3f808001)) == 0x3f81);  // just above the tie
  CHECK(float_to_bf16_bits(f32(0x3f807fff)) == 0x3f80);  // just below the tie
  CHECK(float_to_bf16_bits(f32(0x7f7fffff)) == 0x7f80);  // largest float rounds to inf
}

TEST_CASE("bf16 keeps infinities, subnormals and NaN") {
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(float_to_bf16_bits(inf) == 0x7f80);
  CHECK(float_to_bf16_bits(-inf) == 0xff80);
  CHECK(std::isinf(bf16_bits_to_float(0x7f80)));
  CHECK(float_to_bf16_bits(f32(0x00010000)) == 0x0001);  // smallest bf16 subnormal
  CHECK(bf16_bits_to_float(0x0001) == f32(0x00010000));
  CHECK(std::isnan(bf16_bits_to_float(float_to_bf16_bits(std::nanf("")))));
  // A NaN whose payload lies only in the low 16 bits must not truncate to infinity.
  CHECK(std::isnan(bf16_bits_to_float(float_to_bf16_bits(f32(0x7f800001)))));
  CHECK(std::isnan(bf16_bits_to_float(float_to_bf16_bits(f32(0xff800001)))));
}

TEST_CASE("every bf16 bit pattern round-trips through float") {
  int mismatches = 0;
  for (std::uint32_t b = 0; b <= 0xffff; ++b) {
    const float f = bf16_bits_to_float(std::uint16_t(b));
    if (std::isnan(f)) {
      mismatches += !std::isnan(bf16_bits_to_float(float_to_bf16_bits(f)));
      continue;
    }
    mismatches += float_to_bf16_bits(f) != b;
  }
  CHECK(mismatches == 0);
}

TEST_CASE("f16 converts known values to their bit patterns and back") {
  CHECK(float_to_f16_bits(1.0f) == 0x3c00);
  CHECK(float_to_f16_bits(-2.0f) == 0xc000);
  CHECK(float_to_f16_bits(0.5f) == 0x3800);
  CHECK(float_to_f16_bits(65504.0f) == 0x7bff);  // largest finite f16
  CHECK(float_to_f16_bits(-0.0f) == 0x8000);
  CHECK(f16_bits_to_float(0x3c00) == 1.0f);
  CHECK(f16_bits_to_float(0x7bff) == 65504.0f);
  CHECK(f16_bits_to_float(0x3555) == 0.333251953125f);
}

TEST_CASE("f16 rounds to nearest, ties to even") {
  CHECK(float_to_f16_bits(1.0f + 0x1p-11f) == 0x3c00);      // tie, 0x3c00 is even
  CHECK(float_to_f16_bits(1.0f + 3 * 0x1p-11f) == 0x3c02);  // tie, 0x3c02 is even
  CHECK(float_to_f16_bits(std::nextafter(1.0f + 0x1p-11f, 2.0f)) == 0x3c01);
  CHECK(float_to_f16_bits(65519.0f) == 0x7bff);  // below the tie with 65536
  CHECK(float_to_f16_bits(65520.0f) == 0x7c00);  // the tie rounds to even: infinity
}

TEST_CASE("f16 subnormals convert exactly and round ties to even") {
  CHECK(f16_bits_to_float(0x0001) == 0x1p-24f);         // smallest subnormal
  CHECK(f16_bits_to_float(0x03ff) == 1023 * 0x1p-24f);  // largest subnormal
  CHECK(f16_bits_to_float(0x0400) == 0x1p-14f);         // smallest normal
  CHECK(float_to_f16_bits(0x1p-24f) == 0x0001);
  CHECK(float_to_f16_bits(0x1p-25f) == 0x0000);         // tie with 0: even is 0
  CHECK(float_to_f16_bits(1.5f * 0x1p-25f) == 0x0001);  // above the tie
  CHECK(float_to_f16_bits(3 * 0x1p-25f) == 0x0002);     // tie between 1 and 2: 2
  CHECK(float_to_f16_bits(5 * 0x1p-25f) == 0x0002);     // tie between 2 and 3: 2
  CHECK(float_to_f16_bits(0x1p-26f) == 0x0000);         // underflows to zero
  CHECK(float_to_f16_bits(-0x1p-24f) == 0x8001);
  CHECK(float_to_f16_bits(std::nextafter(0x1p-14f, 0.0f)) == 0x0400);  // rounds up to normal
}

TEST_CASE("f16 keeps infinities and NaN and overflows to infinity") {
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(float_to_f16_bits(inf) == 0x7c00);
  CHECK(float_to_f16_bits(-inf) == 0xfc00);
  CHECK(float_to_f16_bits(1e6f) == 0x7c00);
  CHECK(std::isinf(f16_bits_to_float(0x7c00)));
  CHECK(std::isnan(f16_bits_to_float(float_to_f16_bits(std::nanf("")))));
  CHECK(std::isnan(f16_bits_to_float(0x7c01)));
}

TEST_CASE("every f16 bit pattern round-trips through float") {
  int mismatches = 0;
  for (std::uint32_t b = 0; b <= 0xffff; ++b) {
    const float f = f16_bits_to_float(std::uint16_t(b));
    if (std::isnan(f)) {
      mismatches += !std::isnan(f16_bits_to_float(float_to_f16_bits(f)));
      continue;
    }
    mismatches += float_to_f16_bits(f) != b;
  }
  CHECK(mismatches == 0);
}

TEST_CASE("f16 and bf16 rounding agrees with a wide-integer reference on random floats") {
  // Reference: round the float's exact value to the target grid with integer arithmetic.
  // f16 normal range only: exponents -14..15, 10 mantissa bits.
  std::uint64_t x = 0x243f6a8885a308d3ull;
  int mismatches = 0;
  for (int i = 0; i < 20000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const int e = int(x % 30) - 14;  // unbiased exponent
    const std::uint32_t mant = std::uint32_t(x >> 20) & 0x7fffffu;
    const std::uint32_t u = (std::uint32_t(e + 127) << 23) | mant;
    // f16: keep 10 of 23 mantissa bits, round 13 away, ties to even; carry may bump exponent.
    std::uint32_t q = (std::uint32_t(e + 15) << 10) | (mant >> 13);
    const std::uint32_t rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (q & 1u))) ++q;
    const std::uint16_t want16 = q >= 0x7c00u ? 0x7c00 : std::uint16_t(q);
    mismatches += float_to_f16_bits(f32(u)) != want16;
    // bf16: keep 7 mantissa bits, round 16 away.
    std::uint32_t r = u >> 16;
    const std::uint32_t rem16 = u & 0xffffu;
    if (rem16 > 0x8000u || (rem16 == 0x8000u && (r & 1u))) ++r;
    mismatches += float_to_bf16_bits(f32(u)) != r;
  }
  CHECK(mismatches == 0);
}

TEST_CASE("store_as and load_as round-trip a representable value in every dtype") {
  for (DType t : {DType::f32, DType::f16, DType::bf16, DType::e4m3}) {
    CAPTURE(to_string(t));
    std::uint32_t buf[4] = {};
    store_as(t, buf, 2, -0.375f);  // exact in all three
    CHECK(load_as(t, buf, 2) == -0.375f);
    CHECK(load_as(t, buf, 1) == 0.0f);
    CHECK(load_as(t, buf, 3) == 0.0f);
  }
}
