// The CUDA plan's rule for batches whose rows fill one wave of block slots in part
// (backends/cuda/wave_fill.hpp): plain arithmetic, checked on every build.
#include <doctest/doctest.h>

#include "backends/cuda/wave_fill.hpp"

using readbench::cuda::wave_fill;
using readbench::cuda::wave_filling_splits;

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
  // Hkv=8 rows of four-warp blocks on 132 SMs' 264 slots (the H200), as bench/h200 run 78.
  constexpr std::int64_t wave = 264, many = 64, length = 16384;
  CHECK(wave_filling_splits(8 * 20, wave, 1, many, length) == 3);  // 61% -> 480 blocks, 91%
  CHECK(wave_filling_splits(8 * 17, wave, 1, many, length) == 7);  // 52% -> 952 blocks, 90%
  CHECK(wave_filling_splits(8 * 21, wave, 1, many, length) == 3);  // 64% -> 504 blocks, 95%
  // rows of a block an SM (pairs' slots): 80 of 132 (61%) -> 240 blocks, 91%
  CHECK(wave_filling_splits(80, 132, 1, many, length) == 3);
}

TEST_CASE("a wave filled to 65% or more stays one wave") {
  constexpr std::int64_t wave = 264, many = 64, length = 16384;
  CHECK(wave_filling_splits(8 * 22, wave, 1, many, length) == 1);   // 67%
  CHECK(wave_filling_splits(8 * 12, wave, 2, many, length) == 2);   // 73%
  CHECK(wave_filling_splits(8 * 26, wave, 1, many, length) == 1);   // 79%
  CHECK(wave_filling_splits(8 * 28, wave, 1, many, length) == 1);   // 85%
  CHECK(wave_filling_splits(8 * 32, wave, 1, many, length) == 1);   // 97%
  CHECK(wave_filling_splits(8 * 2, wave, 16, many, length) == 16);  // 97%
  // at the bound: 13 of 20 slots is 65%, 12 of 20 splits (24 of 40 fills 60%; 36 of 40, 90%)
  CHECK(wave_filling_splits(13, 20, 1, many, length) == 1);
  CHECK(wave_filling_splits(12, 20, 1, many, length) == 3);
}

TEST_CASE("a history shorter than 4096 tokens keeps its one wave") {
  constexpr std::int64_t wave = 264;
  CHECK(wave_filling_splits(8 * 17, wave, 1, 64, 4095) == 1);
  CHECK(wave_filling_splits(8 * 17, wave, 1, 64, 4096) == 7);
  CHECK(wave_filling_splits(8 * 20, wave, 1, 64, 2048) == 1);
}

TEST_CASE("the wave fill splits no further than the history's splits allow") {
  constexpr std::int64_t wave = 264;
  CHECK(wave_filling_splits(8 * 20, wave, 1, 2, 16384) == 1);
  CHECK(wave_filling_splits(8 * 20, wave, 1, 3, 16384) == 3);
  // 136 rows in at most 6 splits: none fills 90% of its last wave
  CHECK(wave_filling_splits(8 * 17, wave, 1, 6, 16384) == 1);
  // one row of a few blocks whose splits end before a wave fills: no change
  CHECK(wave_filling_splits(8, wave, 16, 16, 4096) == 16);
}

TEST_CASE("rows of more than one wave are left as they are") {
  CHECK(wave_filling_splits(8 * 40, 264, 1, 64, 16384) == 1);
  CHECK(wave_filling_splits(0, 264, 1, 64, 16384) == 1);
}
