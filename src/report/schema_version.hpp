#pragma once
// The report's shape version: raised by every change to the shape of the JSON report. Readers
// take the current version and the two before it, whose meaning carries over (version 3 has no
// plugins: its paths are gather and fused; version 2 also has no K/V storage type: its K/V are
// in `dtype`).
namespace readbench {

inline constexpr int kSchemaVersion = 4;
inline constexpr int kOldestSchemaVersion = 2;

}  // namespace readbench
