// parse_lengths (the --lengths list or geometric range) on arbitrary text: only InputError may
// come out, and what it returns must be positive and increasing.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/errors.hpp"
#include "core/lengths.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto lengths =
        readbench::parse_lengths(std::string_view(reinterpret_cast<const char*>(data), size));
    for (std::size_t i = 0; i < lengths.size(); ++i)
      if (lengths[i] <= 0 || (i > 0 && lengths[i] <= lengths[i - 1])) std::abort();
  } catch (const readbench::InputError&) {
  }
  return 0;
}
