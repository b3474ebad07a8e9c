// History lengths from the command line: lists, geometric ranges, and each error.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/lengths.hpp"
#include "test_support.hpp"

using namespace readbench;
using Lengths = std::vector<std::int64_t>;

namespace {
std::string error_of(const char* text) {
  return test::error_message([&] { parse_lengths(text); });
}
}  // namespace

TEST_CASE("an increasing list parses to its values") {
  CHECK(parse_lengths("16,64,256") == Lengths{16, 64, 256});
  CHECK(parse_lengths("1,2,3,1000000") == Lengths{1, 2, 3, 1000000});
}

TEST_CASE("a single length parses to itself") {
  CHECK(parse_lengths("4096") == Lengths{4096});
}

TEST_CASE("a geometric range runs from its start to its end by its factor") {
  CHECK(parse_lengths("16:65536:x4") == Lengths{16, 64, 256, 1024, 4096, 16384, 65536});
  CHECK(parse_lengths("1:8:x2") == Lengths{1, 2, 4, 8});
}

TEST_CASE("a range whose end is not on the grid stops at the last length below it") {
  CHECK(parse_lengths("16:100:x4") == Lengths{16, 64});
}

TEST_CASE("a range with equal start and end is that one length") {
  CHECK(parse_lengths("16:16:x2") == Lengths{16});
}

TEST_CASE("a range up to the largest 64-bit length does not overflow") {
  const Lengths v = parse_lengths("1:9223372036854775807:x2");
  REQUIRE(v.size() == 63);
  CHECK(v.back() == std::int64_t(1) << 62);
}

TEST_CASE("an empty list is rejected") {
  CHECK(error_of("").find("empty") != std::string::npos);
}

TEST_CASE("a non-numeric length is rejected, quoting it") {
  CHECK(error_of("16,abc,64").find("'abc'") != std::string::npos);
  CHECK(error_of("16x").find("'16x'") != std::string::npos);
  CHECK(error_of("1.5").find("'1.5'") != std::string::npos);
  CHECK(error_of(" 16").find("not a whole number") != std::string::npos);
}

TEST_CASE("an empty item between commas is rejected") {
  CHECK(error_of("16,,64").find("not a whole number") != std::string::npos);
  CHECK(error_of("16,64,").find("not a whole number") != std::string::npos);
}

TEST_CASE("a length too large for 64 bits is rejected") {
  CHECK(error_of("99999999999999999999") ==
        "--lengths: length '99999999999999999999' is too large");
  CHECK(error_of("-99999999999999999999") ==
        "--lengths: length must be positive, got -99999999999999999999");
}

TEST_CASE("a zero length is rejected") {
  CHECK(error_of("0,16").find("must be positive, got 0") != std::string::npos);
}

TEST_CASE("a negative length is rejected") {
  CHECK(error_of("16,-32").find("must be positive, got -32") != std::string::npos);
}

TEST_CASE("an unsorted list is rejected, naming the pair out of order") {
  const std::string msg = error_of("64,16");
  CHECK(msg.find("increasing") != std::string::npos);
  CHECK(msg.find("16 follows 64") != std::string::npos);
}

TEST_CASE("a duplicated length is rejected, naming it") {
  CHECK(error_of("16,64,64").find("64 appears twice") != std::string::npos);
}

TEST_CASE("a range factor below two is rejected") {
  CHECK(error_of("16:64:x1").find("at least 2") != std::string::npos);
  CHECK(error_of("16:64:x0").find("range factor") != std::string::npos);
}

TEST_CASE("a range factor not written xN is rejected") {
  CHECK(error_of("16:64:4").find("xN") != std::string::npos);
  CHECK(error_of("16:64:x").find("range factor") != std::string::npos);
  CHECK(error_of("16:64:xx").find("range factor") != std::string::npos);
}

TEST_CASE("a range with its end below its start is rejected") {
  CHECK(error_of("64:16:x2").find("below its start") != std::string::npos);
}

TEST_CASE("a range without three parts is rejected") {
  CHECK(error_of("16:64").find("START:END:xFACTOR") != std::string::npos);
  CHECK(error_of("16:64:x2:x2").find("START:END:xFACTOR") != std::string::npos);
}

TEST_CASE("a range with a zero or non-numeric start is rejected") {
  CHECK(error_of("0:64:x2").find("range start") != std::string::npos);
  CHECK(error_of("a:64:x2").find("range start") != std::string::npos);
}
