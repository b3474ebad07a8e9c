#pragma once
// Seeded inputs as a pure function of (seed, tensor, element index), so any backend can
// regenerate them and the reference sees exactly what was timed. Values are uniform in
// [-1, 1): never zeros, which hide unwritten outputs and can time faster than real data.
#include <cstdint>

#include "core/hd.hpp"

namespace readbench {

enum class TensorId : std::uint64_t { query = 1, key = 2, value = 3 };

RB_HD inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The part of an element's hash that only its tensor decides.
RB_HD inline std::uint64_t tensor_hash(std::uint64_t seed, TensorId tensor) {
  return splitmix64(seed ^ (std::uint64_t(tensor) << 56));
}

// The value at `index` of the tensor whose tensor_hash is `base`.
RB_HD inline float random_value_from(std::uint64_t base, std::uint64_t index) {
  const std::uint64_t h = splitmix64(base + index);
  // 24 random bits -> [-1, 1) exactly representable in f32.
  return float(std::int64_t(h >> 40) - (1ll << 23)) * (1.0f / float(1 << 23));
}

RB_HD inline float random_value(std::uint64_t seed, TensorId tensor, std::uint64_t index) {
  return random_value_from(tensor_hash(seed, tensor), index);
}

}  // namespace readbench
