// parse_points (CSV, a JSON array of {length, seconds}, or a report) on arbitrary bytes, and the
// fit of what it accepts, as `readbench fit` does: only InputError may come out.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/asymptote_fit.hpp"
#include "core/errors.hpp"
#include "report/points_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    for (const readbench::PointSeries& s :
         readbench::parse_points(std::string(reinterpret_cast<const char*>(data), size)))
      readbench::fit_read(s.points, {std::nullopt, s.kv_bytes_per_token, s.read_ceiling_gbps});
  } catch (const readbench::InputError&) {
  }
  return 0;
}
