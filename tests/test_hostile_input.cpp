// Reports and points that were edited, truncated or made up: duplicate keys, numbers that do not
// fit their field, nesting no report has. Each is an InputError naming the source and where.
#include <doctest/doctest.h>

#include <string>

#include "report/json_input.hpp"
#include "report/json_report.hpp"
#include "report/points_input.hpp"
#include "report/report_input.hpp"
#include "report/schema_version.hpp"
#include "report_fixtures.hpp"
#include "test_support.hpp"

using namespace readbench;
using readbench::test::error_message;
using readbench::test::synthetic_report;

namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The synthetic report's text with `from` (which must occur) replaced by `to` once.
std::string edited(const std::string& from, const std::string& to) {
  std::string text = synthetic_report().dump();
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::string report_error(const std::string& text) {
  return error_message([&] { parse_report(text, "r.json"); });
}

}  // namespace

TEST_CASE("the synthetic report reads back unedited") {
  CHECK(parse_report(synthetic_report().dump(), "r.json").results.size() > 0);
}

TEST_CASE("a duplicate key is refused naming the key and where it is") {
  CHECK(error_message([] { parse_json_input(R"({"a": 1, "a": 2})", "x.json"); }) ==
        "x.json: duplicate key \"a\" in the top-level object");
  CHECK(error_message([] {
          parse_json_input(R"({"r": [{"p": [1, {"k": 1, "k": 1}]}]})", "x.json");
        }) == "x.json: duplicate key \"k\" in r[0].p[1]");
  // The same key in sibling objects is no duplicate.
  CHECK(parse_json_input(R"([{"k": 1}, {"k": 2}, {"o": {"k": 3}}])", "x.json").size() == 3);

  const std::string text = synthetic_report().dump();
  const std::string dup = edited("\"min_s\":", "\"min_s\":1,\"min_s\":");
  const std::string msg = report_error(dup);
  CHECK(has(msg, "r.json: duplicate key \"min_s\" in results["));
  CHECK(has(msg, "].points[0]"));
  CHECK(has(report_error(edited("\"schema_version\":", "\"schema_version\":2,\"schema_version\":")),
            "duplicate key \"schema_version\" in the top-level object"));
}

TEST_CASE("a points array element with a duplicate key is refused naming it") {
  const std::string msg = error_message([] {
    parse_points(
        R"([{"length": 16, "seconds": 1e-6}, {"length": 64, "seconds": 2e-6, "length": 65}])");
  });
  CHECK(msg == "the input: duplicate key \"length\" in [1]");
}

TEST_CASE("a number too large for a double names the source and the field") {
  CHECK(error_message([] { parse_points(R"([{"length": 1e400, "seconds": 1}])"); }) ==
        "the input: [0].length: number overflow parsing '1e400'");
  const std::string msg = report_error(edited("\"min_s\":", "\"min_s\":1e400,\"x\":"));
  CHECK(has(msg, "r.json: results["));
  CHECK(has(msg, "].points[0].min_s: number overflow parsing '1e400'"));
}

TEST_CASE("nesting deeper than any report is refused before anything walks it") {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  CHECK(has(error_message([&] { parse_json_input(deep, "d.json"); }), "nests deeper than 64"));
  CHECK(has(error_message([&] { parse_points(deep); }), "nests deeper than 64"));
}

TEST_CASE("config counts must be whole numbers that fit their field") {
  const std::string base = synthetic_report().dump();
  const auto batch_at = base.find("\"batch\":");
  REQUIRE(batch_at != std::string::npos);
  const auto value_end = base.find_first_of(",}", batch_at);
  auto with_batch = [&](const std::string& v) {
    std::string t = base;
    return t.replace(batch_at, value_end - batch_at, "\"batch\":" + v);
  };
  CHECK(has(report_error(with_batch("1e308")), "r.json: config.batch must be a whole number"));
  CHECK(has(report_error(with_batch("1.5")), "config.batch must be a whole number from 1"));
  CHECK(has(report_error(with_batch("0")), "config.batch must be a whole number"));
  CHECK(has(report_error(with_batch("-4294967295")), "config.batch"));
  CHECK(report_error(with_batch("1.0")).empty());
}

TEST_CASE("schema_version 1.5 or 1e308 and n_points 1e308 are refused naming the field") {
  const std::string current = "\"schema_version\":" + std::to_string(kSchemaVersion);
  CHECK(has(report_error(edited(current, "\"schema_version\":1.5")),
            "r.json: schema_version 1.5 is not one this readbench reads"));
  CHECK(has(report_error(edited(current, "\"schema_version\":1e308")), "r.json: schema_version"));
  const std::string msg = report_error(edited("\"n_points\":", "\"n_points\":1e308,\"y\":"));
  CHECK(has(msg, "r.json: results["));
  CHECK(has(msg, ".fit.n_points"));
}
