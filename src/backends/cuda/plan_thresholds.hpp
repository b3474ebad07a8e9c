#pragma once
// The decode plan's device thresholds: one row a device it was measured on, keyed by what the
// device is, and a generic row for every other device. A plain header without CUDA, so the
// table is tested on every build (tests/test_plan_thresholds.cpp).
//
// Each value is docs/cuda.md's: "Waves that fill their last one" (the wave fills and the
// length they start at), "Few rows and long rows" (the SMs a row of a few has to itself) and
// "Short splits" (how many splits a short history may take). They were measured on the H200
// alone; the generic row holds the same values until another device is measured.
#include <cstdint>
#include <string_view>

namespace readbench::cuda {

// What the plan asks of a device: its compute capability and SM count.
struct DeviceKey {
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
};
constexpr bool same_device(const DeviceKey& a, const DeviceKey& b) {  // (nvcc builds C++17)
  return a.cc_major == b.cc_major && a.cc_minor == b.cc_minor && a.sm_count == b.sm_count;
}

struct PlanThresholds {
  std::string_view device;  // the row's name
  // Rows within one wave: a grid that fills at least this much of its wave stays so.
  double keep_wave_fill = 0;
  // Rows of more than one wave stay so where they fill at least this much of their waves, by
  // the K/V bytes a row reads: under small_row_bytes, under large_row_bytes, from it.
  double keep_waves_fill_small = 0;
  double keep_waves_fill_medium = 0;
  double keep_waves_fill_large = 0;
  std::int64_t small_row_bytes = 0;
  std::int64_t large_row_bytes = 0;
  // Otherwise the fewest splits whose grid fills at least this much of its last wave,
  double split_wave_fill = 0;
  // where the history is at least this long.
  std::int64_t min_fill_length = 0;
  // A row of a few: each row has at least few_rows_min_sms and fewer than few_rows_end_sms SMs
  // to itself.
  std::int64_t few_rows_min_sms = 0;
  std::int64_t few_rows_end_sms = 0;
  // The most splits a short history takes where its finest splits leave SMs idle.
  std::int64_t short_splits = 0;
};

namespace plan_table {

constexpr std::int64_t kMiB = std::int64_t(1) << 20;

// The H200 (sm_90, 132 SMs; 264 slots of the default four-warp blocks), where every value was
// measured (docs/cuda.md).
inline constexpr DeviceKey kH200Key{9, 0, 132};
inline constexpr PlanThresholds kH200{
    "H200 (sm_90, 132 SMs)",
    0.65,      // keep_wave_fill
    0.75,      // keep_waves_fill_small
    0.82,      // keep_waves_fill_medium
    0.9,       // keep_waves_fill_large
    2 * kMiB,  // small_row_bytes
    8 * kMiB,  // large_row_bytes
    0.9,       // split_wave_fill
    4096,      // min_fill_length
    16,        // few_rows_min_sms
    32,        // few_rows_end_sms
    8,         // short_splits
};

// Any other device: the H200's values, unmeasured there.
inline constexpr PlanThresholds kGeneric{
    "generic (the H200's values)", kH200.keep_wave_fill,        kH200.keep_waves_fill_small,
    kH200.keep_waves_fill_medium,  kH200.keep_waves_fill_large, kH200.small_row_bytes,
    kH200.large_row_bytes,         kH200.split_wave_fill,       kH200.min_fill_length,
    kH200.few_rows_min_sms,        kH200.few_rows_end_sms,      kH200.short_splits,
};

struct Row {
  DeviceKey key;
  const PlanThresholds* thresholds;
};
inline constexpr Row kRows[] = {{kH200Key, &kH200}};

}  // namespace plan_table

// The thresholds of the device `key` names: its row, or the generic one.
constexpr const PlanThresholds& plan_thresholds(const DeviceKey& key) {
  for (const plan_table::Row& row : plan_table::kRows)
    if (same_device(row.key, key)) return *row.thresholds;
  return plan_table::kGeneric;
}

}  // namespace readbench::cuda
