#pragma once
// The report's shape version: raised by every change to the shape of the JSON report. Readers
// take the current version and the previous one, whose meaning carries over (version 1 has no
// fixed + marginal fit: readers compute it from the points).
namespace readbench {

inline constexpr int kSchemaVersion = 2;
inline constexpr int kPreviousSchemaVersion = 1;

}  // namespace readbench
