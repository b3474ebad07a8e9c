// The CUDA plan's rule for batches whose rows fill their last wave of block slots in part
// (backends/cuda/wave_fill.hpp): plain arithmetic, checked on every build.
#include <doctest/doctest.h>

#include "backends/cuda/wave_fill.hpp"

using readbench::cuda::wave_fill;

namespace {

using readbench::cuda::kv_row_bytes;

// The H200's row of the plan's thresholds (plan_thresholds.hpp), where the rule was measured.
constexpr const readbench::cuda::PlanThresholds& kH200 = readbench::cuda::plan_table::kH200;

constexpr std::int64_t wave_filling_splits(std::int64_t rows, std::int64_t wave,
                                           std::int64_t one_wave, std::int64_t max_splits,
                                           std::int64_t length, std::int64_t row_bytes) {
  return readbench::cuda::wave_filling_splits(kH200, rows, wave, one_wave, max_splits, length,
                                              row_bytes);
}

// The rule for rows of one KV head of bf16 K/V, head dim 128 (2 MiB a row at L=4096), as the
// runs measured.
constexpr std::int64_t splits_of(std::int64_t rows, std::int64_t wave, std::int64_t one_wave,
                                 std::int64_t max_splits, std::int64_t length) {
  constexpr std::int64_t head_dim = 128, bf16_bytes = 2;
  return wave_filling_splits(rows, wave, one_wave, max_splits, length,
                             kv_row_bytes(length, head_dim, bf16_bytes, 1));
}

}  // namespace

TEST_CASE("a grid's wave fill is its share of its waves' slots") {
  CHECK(wave_fill(264, 264) == doctest::Approx(1.0));
  CHECK(wave_fill(528, 264) == doctest::Approx(1.0));
  CHECK(wave_fill(160, 264) == doctest::Approx(160.0 / 264));
  CHECK(wave_fill(480, 264) == doctest::Approx(480.0 / 528));
  CHECK(wave_fill(265, 264) == doctest::Approx(265.0 / 528));
  CHECK(wave_fill(0, 264) == 0);
  CHECK(wave_fill(10, 0) == 0);
}

TEST_CASE("rows that fill their one wave in part split into waves that fill the last") {
  // Hkv=8 rows of four-warp blocks on 132 SMs' 264 slots (the H200), as measured for docs/cuda.md.
  constexpr std::int64_t wave = 264, many = 64, length = 16384;
  CHECK(splits_of(8 * 20, wave, 1, many, length) == 3);  // 61% -> 480 blocks, 91%
  CHECK(splits_of(8 * 17, wave, 1, many, length) == 7);  // 52% -> 952 blocks, 90%
  CHECK(splits_of(8 * 21, wave, 1, many, length) == 3);  // 64% -> 504 blocks, 95%
  // rows of a block an SM (pairs' slots): 80 of 132 (61%) -> 240 blocks, 91%
  CHECK(splits_of(80, 132, 1, many, length) == 3);
}

TEST_CASE("a wave filled to 65% or more stays one wave") {
  constexpr std::int64_t wave = 264, many = 64, length = 16384;
  CHECK(splits_of(8 * 22, wave, 1, many, length) == 1);   // 67%
  CHECK(splits_of(8 * 12, wave, 2, many, length) == 2);   // 73%
  CHECK(splits_of(8 * 26, wave, 1, many, length) == 1);   // 79%
  CHECK(splits_of(8 * 28, wave, 1, many, length) == 1);   // 85%
  CHECK(splits_of(8 * 32, wave, 1, many, length) == 1);   // 97%
  CHECK(splits_of(8 * 2, wave, 16, many, length) == 16);  // 97%
  // at the bound: 13 of 20 slots is 65%, 12 of 20 splits (24 of 40 fills 60%; 36 of 40, 90%)
  CHECK(splits_of(13, 20, 1, many, length) == 1);
  CHECK(splits_of(12, 20, 1, many, length) == 3);
}

TEST_CASE("a history shorter than 4096 tokens keeps its one wave") {
  constexpr std::int64_t wave = 264;
  CHECK(splits_of(8 * 17, wave, 1, 64, 4095) == 1);
  CHECK(splits_of(8 * 17, wave, 1, 64, 4096) == 7);
  CHECK(splits_of(8 * 20, wave, 1, 64, 2048) == 1);
}

TEST_CASE("the wave fill splits no further than the history's splits allow") {
  constexpr std::int64_t wave = 264;
  CHECK(splits_of(8 * 20, wave, 1, 2, 16384) == 1);
  CHECK(splits_of(8 * 20, wave, 1, 3, 16384) == 3);
  // 136 rows in at most 6 splits: none fills 90% of its last wave
  CHECK(splits_of(8 * 17, wave, 1, 6, 16384) == 1);
  // one row of a few blocks whose splits end before a wave fills: no change
  CHECK(splits_of(8, wave, 16, 16, 4096) == 16);
}

TEST_CASE("rows of more than one wave of 8 MiB each split below 90% full") {
  // bf16 D=128 at L=16384: 8 MiB of K/V a row
  constexpr std::int64_t wave = 264, many = 64, length = 16384;
  CHECK(splits_of(8 * 36, wave, 1, many, length) == 5);   // 55% -> 1440 blocks, 91%
  CHECK(splits_of(8 * 40, wave, 1, many, length) == 3);   // 61% -> 960 blocks, 91%
  CHECK(splits_of(8 * 48, wave, 1, many, length) == 2);   // 73% -> 768 blocks, 97%
  CHECK(splits_of(8 * 56, wave, 1, many, length) == 4);   // 85% -> 1792 blocks, 97%
  CHECK(splits_of(8 * 88, wave, 1, many, length) == 3);   // 89% -> 2112 blocks, 100%
  CHECK(splits_of(8 * 100, wave, 1, many, length) == 3);  // 76% of four waves -> 91% of ten
  CHECK(splits_of(8 * 60, wave, 1, many, length) == 1);   // 91%
  CHECK(splits_of(8 * 64, wave, 1, many, length) == 1);   // 97%
  CHECK(splits_of(8 * 66, wave, 1, many, length) == 1);   // two whole waves
  CHECK(splits_of(8 * 40, wave, 1, many, 4095) == 1);
  // at the bound, waves of 30 slots: 54 rows fill 90% of two and stay; 52 (87%) split in four,
  // 208 blocks, 99% of seven waves (two and three splits fill 87% too)
  CHECK(splits_of(54, 30, 1, many, length) == 1);
  CHECK(splits_of(52, 30, 1, many, length) == 4);
}

TEST_CASE("rows of more than one wave of less K/V keep fuller waves") {
  constexpr std::int64_t wave = 264, many = 64, mib = std::int64_t(1) << 20;
  // 2 to 8 MiB a row (bf16 D=128 at L=4096): split below 82% full
  CHECK(wave_filling_splits(8 * 80, wave, 1, many, 4096, 2 * mib) == 2);       // 81%
  CHECK(wave_filling_splits(8 * 56, wave, 1, many, 4096, 2 * mib) == 1);       // 85%
  CHECK(wave_filling_splits(8 * 88, wave, 1, many, 4096, 2 * mib) == 1);       // 89%
  CHECK(wave_filling_splits(8 * 56, wave, 1, many, 16384, 8 * mib - 1) == 1);  // 85%
  CHECK(wave_filling_splits(8 * 56, wave, 1, many, 16384, 8 * mib) == 4);
  // under 2 MiB (e4m3 K/V of D=128 at L=4096: 1 MiB): split below 75% full
  CHECK(wave_filling_splits(8 * 48, wave, 1, many, 4096, mib) == 2);  // 73%
  CHECK(wave_filling_splits(8 * 40, wave, 1, many, 4096, mib) == 3);  // 61%
  CHECK(wave_filling_splits(8 * 52, wave, 1, many, 4096, mib) == 1);  // 79%
  CHECK(wave_filling_splits(8 * 80, wave, 1, many, 4096, mib) == 1);  // 81%
  CHECK(wave_filling_splits(8 * 52, wave, 1, many, 8192, 2 * mib - 1) == 1);
  CHECK(wave_filling_splits(8 * 52, wave, 1, many, 8192, 2 * mib) == 3);  // 79% -> 95%
  // rows within a wave keep their 65% bound whatever their bytes (67% is under 75% and 82%)
  CHECK(wave_filling_splits(8 * 22, wave, 1, many, 4096, mib) == 1);
  CHECK(wave_filling_splits(8 * 22, wave, 1, many, 4096, 4 * mib) == 1);
}

TEST_CASE("the bounds of rows of more than one wave hold exactly") {
  // waves of 100 slots: 150, 164 and 180 rows fill 75%, 82% and 90% of two; a row fewer, less
  constexpr std::int64_t wave = 100, many = 64, length = 16384, mib = std::int64_t(1) << 20;
  CHECK(wave_filling_splits(150, wave, 1, many, length, mib) == 1);
  CHECK(wave_filling_splits(149, wave, 1, many, length, mib) > 1);
  CHECK(wave_filling_splits(164, wave, 1, many, length, 2 * mib) == 1);
  CHECK(wave_filling_splits(163, wave, 1, many, length, 2 * mib) > 1);
  CHECK(wave_filling_splits(180, wave, 1, many, length, 8 * mib) == 1);
  CHECK(wave_filling_splits(179, wave, 1, many, length, 8 * mib) > 1);
  // the K/V a row reads: two KV heads of D=64 in f32 at L=4096 is 4 MiB
  CHECK(kv_row_bytes(4096, 64, 4, 2) == 4 * mib);
  CHECK(kv_row_bytes(4096, 128, 1, 1) == mib);
}

TEST_CASE("no rows, no split") {
  CHECK(splits_of(0, 264, 1, 64, 16384) == 1);
}
