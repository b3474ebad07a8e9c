#pragma once
// The report's shape version: raised by every change to the shape of the JSON report. Readers
// take the current version and the previous one, whose meaning carries over (version 2 has no
// K/V storage type: its K/V are in `dtype`).
namespace readbench {

inline constexpr int kSchemaVersion = 3;
inline constexpr int kPreviousSchemaVersion = 2;

}  // namespace readbench
