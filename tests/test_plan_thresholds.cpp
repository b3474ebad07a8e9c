// The CUDA plan's per-device thresholds (backends/cuda/plan_thresholds.hpp): each row's values,
// how a device finds its row, and the plan's choices at each row's bounds (wave_fill.hpp).
// Plain arithmetic, checked on every build.
#include <doctest/doctest.h>

#include <cstdint>

#include "backends/cuda/plan_thresholds.hpp"
#include "backends/cuda/wave_fill.hpp"

namespace {

namespace rc = readbench::cuda;
constexpr std::int64_t mib = std::int64_t(1) << 20;

const rc::PlanThresholds* const kRows[] = {&rc::plan_table::kH200, &rc::plan_table::kGeneric};

}  // namespace

TEST_CASE("the H200's row holds the values docs/cuda.md measured") {
  const rc::PlanThresholds& h = rc::plan_table::kH200;
  CHECK(h.keep_wave_fill == 0.65);
  CHECK(h.keep_waves_fill_small == 0.75);
  CHECK(h.keep_waves_fill_medium == 0.82);
  CHECK(h.keep_waves_fill_large == 0.9);
  CHECK(h.small_row_bytes == 2 * mib);
  CHECK(h.large_row_bytes == 8 * mib);
  CHECK(h.split_wave_fill == 0.9);
  CHECK(h.min_fill_length == 4096);
  CHECK(h.few_rows_min_sms == 16);
  CHECK(h.few_rows_end_sms == 32);
  CHECK(h.short_splits == 8);
}

TEST_CASE("the generic row holds the H200's values") {
  const rc::PlanThresholds& h = rc::plan_table::kH200;
  const rc::PlanThresholds& g = rc::plan_table::kGeneric;
  CHECK(g.device != h.device);
  CHECK(g.keep_wave_fill == h.keep_wave_fill);
  CHECK(g.keep_waves_fill_small == h.keep_waves_fill_small);
  CHECK(g.keep_waves_fill_medium == h.keep_waves_fill_medium);
  CHECK(g.keep_waves_fill_large == h.keep_waves_fill_large);
  CHECK(g.small_row_bytes == h.small_row_bytes);
  CHECK(g.large_row_bytes == h.large_row_bytes);
  CHECK(g.split_wave_fill == h.split_wave_fill);
  CHECK(g.min_fill_length == h.min_fill_length);
  CHECK(g.few_rows_min_sms == h.few_rows_min_sms);
  CHECK(g.few_rows_end_sms == h.few_rows_end_sms);
  CHECK(g.short_splits == h.short_splits);
}

TEST_CASE("a device finds its row by compute capability and SM count, else the generic row") {
  CHECK(&rc::plan_thresholds({9, 0, 132}) == &rc::plan_table::kH200);
  CHECK(&rc::plan_thresholds({9, 0, 114}) == &rc::plan_table::kGeneric);  // fewer SMs
  CHECK(&rc::plan_thresholds({8, 0, 132}) == &rc::plan_table::kGeneric);  // another chip
  CHECK(&rc::plan_thresholds({8, 0, 108}) == &rc::plan_table::kGeneric);
  CHECK(&rc::plan_thresholds({10, 0, 132}) == &rc::plan_table::kGeneric);
  CHECK(&rc::plan_thresholds({}) == &rc::plan_table::kGeneric);
  static_assert(&rc::plan_thresholds({9, 0, 132}) == &rc::plan_table::kH200);
}

TEST_CASE("each row's bounds: rows within one wave") {
  for (const rc::PlanThresholds* th : kRows) {
    INFO(th->device);
    // waves of 100 slots: rows that fill keep_wave_fill of it stay one wave, a row fewer splits
    // into the fewest waves that fill split_wave_fill of their last
    const auto keep_rows = std::int64_t(th->keep_wave_fill * 100 + 0.5);
    CHECK(rc::wave_filling_splits(*th, keep_rows, 100, 1, 64, 16384, mib) == 1);
    const std::int64_t split = rc::wave_filling_splits(*th, keep_rows - 1, 100, 1, 64, 16384, mib);
    CHECK(split > 1);
    CHECK(rc::wave_fill((keep_rows - 1) * split, 100) >= th->split_wave_fill);
    CHECK(rc::wave_fill((keep_rows - 1) * (split - 1), 100) < th->split_wave_fill);
    // from min_fill_length tokens only
    CHECK(rc::wave_filling_splits(*th, keep_rows - 1, 100, 1, 64, th->min_fill_length - 1, mib) ==
          1);
    CHECK(rc::wave_filling_splits(*th, keep_rows - 1, 100, 1, 64, th->min_fill_length, mib) ==
          split);
  }
}

TEST_CASE("each row's bounds: rows of more than one wave, by the K/V a row reads") {
  for (const rc::PlanThresholds* th : kRows) {
    INFO(th->device);
    CHECK(rc::waves_keep_fill(*th, th->small_row_bytes - 1) == th->keep_waves_fill_small);
    CHECK(rc::waves_keep_fill(*th, th->small_row_bytes) == th->keep_waves_fill_medium);
    CHECK(rc::waves_keep_fill(*th, th->large_row_bytes - 1) == th->keep_waves_fill_medium);
    CHECK(rc::waves_keep_fill(*th, th->large_row_bytes) == th->keep_waves_fill_large);
    // waves of 100 slots, rows of two waves: 200 * fill rows stay so, a row fewer splits
    for (const std::int64_t bytes :
         {th->small_row_bytes - 1, th->large_row_bytes - 1, th->large_row_bytes}) {
      const auto keep_rows = std::int64_t(rc::waves_keep_fill(*th, bytes) * 200 + 0.5);
      INFO("row bytes ", bytes, " rows ", keep_rows);
      CHECK(rc::wave_filling_splits(*th, keep_rows, 100, 1, 64, 16384, bytes) == 1);
      CHECK(rc::wave_filling_splits(*th, keep_rows - 1, 100, 1, 64, 16384, bytes) > 1);
    }
  }
}

TEST_CASE("the H200's 264 slots: the plan's choices at its bounds") {
  // Hkv=8 rows of the default four-warp blocks, two an SM on 132 SMs (docs/cuda.md, "Waves that
  // fill their last one"), bf16 D=128 (2 MiB a row at L=4096, 8 MiB at 16384).
  const rc::PlanThresholds& th = rc::plan_thresholds({9, 0, 132});
  constexpr std::int64_t wave = 132 * 2, many = 64;
  const auto splits = [&](std::int64_t batch, std::int64_t length) {
    return rc::wave_filling_splits(th, 8 * batch, wave, 1, many, length,
                                   rc::kv_row_bytes(length, 128, 2, 1));
  };
  CHECK(splits(20, 16384) == 3);  // 61% of a wave: three splits, 91% of two
  CHECK(splits(21, 16384) == 3);  // 64%
  CHECK(splits(22, 16384) == 1);  // 67%: kept
  CHECK(splits(20, 4095) == 1);   // shorter than min_fill_length
  CHECK(splits(20, 4096) == 3);
  CHECK(splits(40, 16384) == 3);  // 61% of two waves, 8 MiB a row
  CHECK(splits(56, 4096) == 1);   // 85% of two, 2 MiB a row: over 82%
  CHECK(splits(56, 16384) == 4);  // 85% of two, 8 MiB a row: under 90%
  CHECK(splits(60, 16384) == 1);  // 91%
}

TEST_CASE("each row's bounds: rows of a few") {
  for (const rc::PlanThresholds* th : kRows) {
    INFO(th->device);
    // 132 SMs: 8 rows have 16 SMs each, 4 rows 33, 5 rows 26, 9 rows 14
    const std::int64_t sms = 132;
    CHECK(rc::few_rows(*th, sms / th->few_rows_min_sms, sms));
    CHECK_FALSE(rc::few_rows(*th, sms / th->few_rows_min_sms + 1, sms));
    CHECK(rc::few_rows(*th, th->few_rows_end_sms - 1,
                       (th->few_rows_end_sms - 1) * (th->few_rows_end_sms - 1)));
    CHECK_FALSE(rc::few_rows(*th, 1, th->few_rows_end_sms));
    CHECK(rc::few_rows(*th, 1, th->few_rows_end_sms - 1));
    CHECK_FALSE(rc::few_rows(*th, 0, sms));
  }
  const rc::PlanThresholds& h200 = rc::plan_table::kH200;
  CHECK(rc::few_rows(h200, 8, 132));  // B=1, Hkv=8
  CHECK(rc::few_rows(h200, 5, 132));
  CHECK_FALSE(rc::few_rows(h200, 4, 132));
  CHECK_FALSE(rc::few_rows(h200, 9, 132));
  CHECK_FALSE(rc::few_rows(h200, 2, 132));  // 66 SMs each
}
