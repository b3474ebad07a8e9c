#pragma once
// How the decode plan splits a batch whose rows fill their waves of the SMs' block slots only in
// part. A plain header without CUDA, so the rule is tested on every build.
//
// A grid of one block a row whose last wave is partly full leaves some SMs with a block more
// than the rest, and the call lasts as long as theirs. Measured on the H200 (Hq=32 Hkv=8 D=128,
// 264 four-warp slots on 132 SMs, the fused path; docs/cuda.md, "Waves that fill their last one"):
// - Rows within one wave: B=17 (136 rows, 52% of the wave), B=20 (61%) and B=21
//   (64%) read at 70-83% of the ceiling at L=16384 (e4m3 K/V 61-72%, f32 65-70%); split so that
//   their grid fills at least 90% of its last wave (7, 3 and 3 splits) they read at 91-96%
//   (e4m3 80-86%, f32 92-94%), and were 1-28% faster at L=4096 too (bf16 6-14%, e4m3 1-5%, f32
//   24-28%), but 1-9% slower at L=2048. Waves filled to 73-79% (B=12, 13, 24, 26) gained up to
//   10% at L=16384 in more waves (e4m3 B=26 lost 4%) and lost 3-24% at L=4096, and B=28 (85%)
//   gained nothing: those stay one wave.
// - Rows of more than a wave (B=34-100): split to fill 90% of their last wave, bf16
//   read at 93-98% of the ceiling at L=16384 (75-97% in one block a row) and gained up to 20%
//   (f32 B=40 11%, 24% on another host; e4m3 K/V up to 25%). How full a grid of one block a
//   row may be and still gain from more waves grows with the K/V a row reads
//   (waves_keep_fill).
#include <cstdint>

namespace readbench::cuda {

// A grid that fills at least this much of its one wave stays so (61% gained from more
// waves at every length from 4096, 73% and more lost at L=4096).
constexpr double kKeepWaveFill = 0.65;
// Rows of more than one wave stay so where they fill at least this much of their waves, by the
// K/V bytes a row reads. The split forms' time against one block a row's:
// - under 2 MiB (e4m3 D=128 at L=4096): 79% and 85% full +6% and +15% (three and four splits),
//   81% +0.3% (two); 73% -6% in two splits (B=48) and +1.5% in three (B=72);
// - under 8 MiB (bf16 at L=4096, e4m3 at 16384, f32 at 4096): 85% full +3.2% on one host and
//   -2.3% on another (bf16), +0.5% (e4m3), -2.3% (f32); 89% +2.0% / 0.0% (bf16); 81% -2% to -9%;
// - from 8 MiB (bf16 at L=16384, f32 at 16384): 85% and 89% full -2% (-7% and -3% on another
//   host), f32 85% -4.5%.
constexpr double waves_keep_fill(std::int64_t row_bytes) {
  constexpr std::int64_t mib = std::int64_t(1) << 20;
  return row_bytes < 2 * mib ? 0.75 : row_bytes < 8 * mib ? 0.82 : 0.9;
}
// Otherwise the fewest splits whose grid fills at least this much of its last wave (B=20's
// three splits, 91% of two waves, were the best of its 3, 4 and 8 splits a row; rows within a
// wave reach it within five waves up to 300 slots),
constexpr double kSplitWaveFill = 0.9;
// where the history is at least this long (every split row gained from L=4096 and lost
// at 2048).
constexpr std::int64_t kMinFillLength = 4096;

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
// bounded by `max_splits`): `one_wave` where the history is shorter than kMinFillLength, where
// its grid fills enough of its waves to keep them (kKeepWaveFill of one wave; for rows of more
// than a wave, waves_keep_fill), or where no split count up to `max_splits` fills
// kSplitWaveFill of its last wave; else the fewest splits that do.
constexpr std::int64_t wave_filling_splits(std::int64_t rows, std::int64_t wave,
                                           std::int64_t one_wave, std::int64_t max_splits,
                                           std::int64_t length, std::int64_t row_bytes) {
  const double keep = rows <= wave ? kKeepWaveFill : waves_keep_fill(row_bytes);
  if (length < kMinFillLength || rows <= 0 || wave_fill(rows * one_wave, wave) >= keep)
    return one_wave;
  for (std::int64_t k = one_wave + 1; k <= max_splits; ++k)
    if (wave_fill(rows * k, wave) >= kSplitWaveFill) return k;
  return one_wave;
}

}  // namespace readbench::cuda
