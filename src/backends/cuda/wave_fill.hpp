#pragma once
// How the decode plan splits a batch whose rows fill one wave of the SMs' block slots only in
// part. A plain header without CUDA, so the rule is tested on every build.
//
// A grid of one block a row that fills a wave in part leaves some SMs with two blocks and the
// rest with one, and the call lasts as long as the doubled SMs' blocks. bench/h200 runs 77-80
// (Hq=32 Hkv=8 D=128, 264 four-warp slots on the H200's 132 SMs, the fused path; the variant
// build in run 77, the product in runs 78-80): B=17 (136 rows, 52% of the wave), B=20 (61%)
// and B=21 (64%) read at 70-83% of the ceiling at L=16384 (e4m3 K/V 61-72%, f32 65-70%); split
// so that their grid fills at least 90% of its last wave (7, 3 and 3 splits) they read at
// 91-96% (e4m3 80-86%, f32 92-94%), and were 1-28% faster at L=4096 too (bf16 6-14%, e4m3
// 1-5%, f32 24-28%), but 1-9% slower at L=2048. Waves filled to 73-79% (B=12, 13, 24, 26)
// gained up to 10% at L=16384 in more waves (e4m3 B=26 lost 4%) and lost 3-24% at L=4096, and
// B=28 (85%) gained nothing: those stay one wave.
#include <cstdint>

namespace readbench::cuda {

// A grid that fills at least this much of its one wave stays so (run 78: 61% gained from more
// waves at every length from 4096, 73% and more lost at L=4096).
constexpr double kKeepWaveFill = 0.65;
// Otherwise the fewest splits whose grid fills at least this much of its last wave (run 77:
// B=20's three splits, 91% of two waves, were the best of its 3, 4 and 8 splits a row; rows
// within a wave reach it within five waves up to 300 slots),
constexpr double kSplitWaveFill = 0.9;
// where the history is at least this long (run 79: every split row gained from L=4096 and lost
// at 2048).
constexpr std::int64_t kMinFillLength = 4096;

// The share of its waves' slots that a grid of `blocks` keeps busy to the end of its last wave
// of `wave` slots: 1 for a whole number of waves.
constexpr double wave_fill(std::int64_t blocks, std::int64_t wave) {
  if (blocks <= 0 || wave <= 0) return 0;
  const std::int64_t waves = (blocks + wave - 1) / wave;
  return double(blocks) / double(waves * wave);
}

// The splits for `rows` rows of a `length`-token history on `wave` block slots, given
// `one_wave` (the most splits a wave holds, already bounded by `max_splits`): `one_wave` where
// the history is shorter than kMinFillLength, where the rows are more than a wave (not
// measured), where its grid fills at least kKeepWaveFill of the wave, or where no split count
// up to `max_splits` fills kSplitWaveFill of its last wave; else the fewest splits that do.
constexpr std::int64_t wave_filling_splits(std::int64_t rows, std::int64_t wave,
                                           std::int64_t one_wave, std::int64_t max_splits,
                                           std::int64_t length) {
  if (length < kMinFillLength || rows <= 0 || rows > wave ||
      wave_fill(rows * one_wave, wave) >= kKeepWaveFill)
    return one_wave;
  for (std::int64_t k = one_wave + 1; k <= max_splits; ++k)
    if (wave_fill(rows * k, wave) >= kSplitWaveFill) return k;
  return one_wave;
}

}  // namespace readbench::cuda
