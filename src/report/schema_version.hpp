#pragma once
// The report's shape version: raised by every change to the shape of the JSON report. Readers
// take the current version and the three before it, whose meaning carries over (version 5 has
// no cost_rise in its fits: their asymptote was judged by the share alone; version 4 also has no
// sampling rounds: each point was sampled in one; version 3 also has no plugins: its paths are
// gather and fused).
namespace readbench {

inline constexpr int kSchemaVersion = 6;
inline constexpr int kOldestSchemaVersion = 3;

}  // namespace readbench
