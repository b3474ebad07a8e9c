#pragma once
// The report's shape version: raised by every change to the shape of the JSON report. Readers
// take the current version and the four before it, whose meaning carries over (version 6 has no
// region rule: an auto region could hold fewer than 4 lengths, shares were not clamped, and its
// asymptote needed no resolved growth; version 5 has
// no cost_rise in its fits: their asymptote was judged by the share alone; version 4 also has no
// sampling rounds: each point was sampled in one; version 3 also has no plugins: its paths are
// gather and fused).
namespace readbench {

inline constexpr int kSchemaVersion = 7;
inline constexpr int kOldestSchemaVersion = 3;

}  // namespace readbench
