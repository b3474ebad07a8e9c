#pragma once
// The report's shape version: raised by every change to the shape of the JSON report. Readers
// take the current version and the two before it, whose meaning carries over (version 4 has no
// sampling rounds: each point was sampled in one; version 3 also has no plugins: its paths are
// gather and fused).
namespace readbench {

inline constexpr int kSchemaVersion = 5;
inline constexpr int kOldestSchemaVersion = 3;

}  // namespace readbench
