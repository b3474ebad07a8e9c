#pragma once
// How the decode plan splits a batch whose rows fill their waves of the SMs' block slots only in
// part (docs/cuda.md, "Waves that fill their last one"). A plain header without CUDA, so the
// rule is tested on every build; its thresholds are the device's row of plan_thresholds.hpp.
//
// A grid of one block a row whose last wave is partly full leaves some SMs with a block more
// than the rest, and the call lasts as long as theirs. Rows within one wave split into more
// waves that fill their last one unless their one wave is full enough (keep_wave_fill); rows of
// more than a wave likewise, where how full a grid of one block a row may be and still gain
// from more waves grows with the K/V a row reads (waves_keep_fill).
#include <cstdint>

#include "backends/cuda/plan_thresholds.hpp"

namespace readbench::cuda {

// How full rows of more than one wave, each reading `row_bytes` of K/V, must fill their waves to
// stay so.
constexpr double waves_keep_fill(const PlanThresholds& th, std::int64_t row_bytes) {
  return row_bytes < th.small_row_bytes   ? th.keep_waves_fill_small
         : row_bytes < th.large_row_bytes ? th.keep_waves_fill_medium
                                          : th.keep_waves_fill_large;
}

// The K/V bytes one block row reads: K and V of `length` tokens of `head_dim` elements of
// `element_bytes` each, for each of the block's `kv_per_block` KV heads.
constexpr std::int64_t kv_row_bytes(std::int64_t length, std::int64_t head_dim,
                                    std::int64_t element_bytes, std::int64_t kv_per_block) {
  return 2 * length * head_dim * element_bytes * kv_per_block;
}

// The share of its waves' slots that a grid of `blocks` keeps busy to the end of its last wave
// of `wave` slots: 1 for a whole number of waves.
constexpr double wave_fill(std::int64_t blocks, std::int64_t wave) {
  if (blocks <= 0 || wave <= 0) return 0;
  const std::int64_t waves = (blocks + wave - 1) / wave;
  return double(blocks) / double(waves * wave);
}

// The splits for `rows` rows of a `length`-token history, each reading `row_bytes` of K/V, on
// `wave` block slots, given `one_wave` (the most splits a wave holds, at least 1, already
// bounded by `max_splits`), under the thresholds `th`: `one_wave` where the history is shorter
// than th.min_fill_length, where its grid fills enough of its waves to keep them
// (th.keep_wave_fill of one wave; for rows of more than a wave, waves_keep_fill), or where no
// split count up to `max_splits` fills th.split_wave_fill of its last wave; else the fewest
// splits that do.
constexpr std::int64_t wave_filling_splits(const PlanThresholds& th, std::int64_t rows,
                                           std::int64_t wave, std::int64_t one_wave,
                                           std::int64_t max_splits, std::int64_t length,
                                           std::int64_t row_bytes) {
  const double keep = rows <= wave ? th.keep_wave_fill : waves_keep_fill(th, row_bytes);
  if (length < th.min_fill_length || rows <= 0 || wave_fill(rows * one_wave, wave) >= keep)
    return one_wave;
  for (std::int64_t k = one_wave + 1; k <= max_splits; ++k)
    if (wave_fill(rows * k, wave) >= th.split_wave_fill) return k;
  return one_wave;
}

// Whether `rows` rows on `sm_count` SMs are a few rows (Tuning::few_rows): each with at least
// th.few_rows_min_sms and fewer than th.few_rows_end_sms SMs to itself.
constexpr bool few_rows(const PlanThresholds& th, std::int64_t rows, std::int64_t sm_count) {
  if (rows <= 0) return false;
  const std::int64_t sms_per_row = sm_count / rows;
  return sms_per_row >= th.few_rows_min_sms && sms_per_row < th.few_rows_end_sms;
}

}  // namespace readbench::cuda
