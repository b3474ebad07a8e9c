// parse_report on arbitrary bytes: an InputError is the expected answer to bad input; a crash,
// a sanitizer report or any other exception is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/errors.hpp"
#include "report/report_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    readbench::parse_report(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
  } catch (const readbench::InputError&) {
  }
  return 0;
}
