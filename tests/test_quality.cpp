// The load average read beside a run, on the text of /proc/loadavg.
#include <doctest/doctest.h>

#include "measure/quality.hpp"

using namespace readbench;

TEST_CASE("the load average and the runnable tasks are read from /proc/loadavg's text") {
  const auto l = parse_loadavg("0.52 0.58 0.59 2/389 12345\n");
  REQUIRE(l);
  CHECK(l->one_minute == 0.52);
  CHECK(l->five_minutes == 0.58);
  CHECK(l->runnable == 2);
}

TEST_CASE("malformed load averages are refused, not guessed") {
  CHECK_FALSE(parse_loadavg(""));
  CHECK_FALSE(parse_loadavg("0.52 0.58"));
  CHECK_FALSE(parse_loadavg("0.52 0.58 0.59 389 1"));
  CHECK_FALSE(parse_loadavg("0.52 0.58 0.59 /389 1"));
  CHECK_FALSE(parse_loadavg("a b c d e"));
}

TEST_CASE("this machine's load average can be read") {
  const auto l = read_load();
  REQUIRE(l);
  CHECK(l->one_minute >= 0);
  CHECK(l->runnable >= 1);  // this test is running
}
