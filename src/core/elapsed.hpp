#pragma once
// Seconds elapsed on the steady clock: the sampler's slices, the sweep's and ab's budgets.
#include <chrono>

namespace readbench {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace readbench
