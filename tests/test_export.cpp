// `readbench export` of the synthetic report: Bencher Metric Format and
// github-action-benchmark's customSmallerIsBetter, with times in nanoseconds.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "report/export.hpp"
#include "report_fixtures.hpp"
#include "test_support.hpp"

using namespace readbench;
using readbench::test::error_message;
using readbench::test::report_of;
using readbench::test::synthetic_run;

namespace {

// A benchmark name as exported: the label, then the set-up (the synthetic run names no thread
// count).
std::string S(const std::string& label) {
  return label + " [bf16, B=1 Hq=32 Hkv=8 D=128 S=16, cold cache]";
}

const Json& entry(const Json& gab, const std::string& name) {
  for (const Json& e : gab)
    if (e["name"] == name) return e;
  FAIL("no entry " << name);
  throw;
}

}  // namespace

TEST_CASE("BMF has one benchmark per fitted backend/path and one per timed point") {
  const Json j = export_bmf(report_of(synthetic_run()));
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  std::vector<std::string> want{S("cpu/gather"),     S("cpu/gather/L=16"), S("cpu/gather/L=64"),
                                S("cpu/fused"),      S("cpu/fused/L=16"),  S("cpu/fused/L=64"),
                                S("cpu/fused/L=256")};
  CHECK(keys == want);
}

TEST_CASE("BMF gives the exponent with its CI and the per-token cost in nanoseconds") {
  const Json j = export_bmf(report_of(synthetic_run()));
  const FitResult fused = synthetic_run().results[1].fit->power;
  const Json& e = j[S("cpu/fused")]["exponent"];
  CHECK(e["value"] == fused.exponent);
  CHECK(e["lower_value"] == *fused.ci95_low);
  CHECK(e["upper_value"] == *fused.ci95_high);
  CHECK(j[S("cpu/fused")]["per_token_ns"]["value"] == 35.15625);  // 9 us / 256
  CHECK(j[S("cpu/fused")]["per_token_ns"].size() == 1);
  const Json& g = j[S("cpu/gather")]["exponent"];
  CHECK(g.size() == 1);  // two points: no CI, so no bounds
  CHECK(g["value"].get<double>() == doctest::Approx(1).epsilon(1e-12));
  CHECK(j[S("cpu/gather")]["per_token_ns"]["value"] == 125);  // 8 us / 64
}

TEST_CASE("BMF latency is the statistic's time with the min and median as its bounds") {
  const Json j = export_bmf(report_of(synthetic_run()));
  const Json& l = j[S("cpu/fused/L=256")]["latency"];
  CHECK(l["value"] == 9000);
  CHECK(l["lower_value"] == 9000);
  CHECK(l["upper_value"] == 13500);

  const RunResult run = readbench::test::with_statistic(synthetic_run(), Statistic::median);
  const Json median = export_bmf(report_of(run));
  const Json& m = median[S("cpu/fused/L=16")]["latency"];
  CHECK(m["value"] == 1500);
  CHECK(m["lower_value"] == 1000);
  CHECK(m["upper_value"] == 1500);
}

TEST_CASE("gab lists every timed point, then the per-token cost and exponent of each fit") {
  const Json j = export_gab(report_of(synthetic_run()));
  REQUIRE(j.is_array());
  std::vector<std::string> names;
  for (const Json& e : j) names.push_back(e["name"]);
  CHECK(names == std::vector<std::string>{
                     S("cpu/gather L=16"), S("cpu/gather L=64"), S("cpu/gather marginal cost"),
                     S("cpu/gather per-token cost"), S("cpu/gather exponent"), S("cpu/fused L=16"),
                     S("cpu/fused L=64"), S("cpu/fused L=256"), S("cpu/fused marginal cost"),
                     S("cpu/fused per-token cost"), S("cpu/fused exponent")});
  for (const Json& e : j) {
    CHECK(e["value"].is_number());
    CHECK(e["unit"].is_string());
    CHECK(e["extra"].is_string());
  }
}

TEST_CASE("gab entries carry nanoseconds, per-token nanoseconds and the exponent") {
  const Json j = export_gab(report_of(synthetic_run()));
  const Json& p = entry(j, S("cpu/fused L=64"));
  CHECK(p["unit"] == "ns");
  CHECK(p["value"] == 3000);
  CHECK(std::string(p["extra"]).rfind("statistic min; min 3000 ns, median 4500 ns; ", 0) == 0);
  const Json& c = entry(j, S("cpu/fused per-token cost"));
  CHECK(c["unit"] == "ns/token");
  CHECK(c["value"] == 35.15625);
  CHECK(c["extra"] == "t(L)/L at L=256, the longest fitted length");  // a clean report: no word
  const Json& e = entry(j, S("cpu/fused exponent"));
  CHECK(e["unit"] == "exponent");
  CHECK(e["value"] == synthetic_run().results[1].fit->power.exponent);
  CHECK(std::string(e["range"]).rfind("± ", 0) == 0);
  CHECK(std::string(e["extra"]).find("regime sublinear") != std::string::npos);
  const Json& g = entry(j, S("cpu/gather exponent"));
  CHECK_FALSE(g.contains("range"));  // no CI from two points
  CHECK(g["extra"] == "t = c*L^p over 2 points; no CI; regime linear; asymptote not reached");
  const Json& m = entry(j, S("cpu/fused marginal cost"));
  CHECK(m["unit"] == "ns/token");
  CHECK(m["value"].get<double>() ==
        doctest::Approx(synthetic_run().results[1].fit->affine.marginal_s * 1e9).epsilon(1e-8));
}

TEST_CASE("export skips failed and unavailable results") {
  RunResult run = synthetic_run();
  run.results[0].status = Status::failed;
  run.results[0].reason = "check failed";
  run.results[0].points.clear();  // a failed path is never timed
  run.results[0].fit.reset();
  const Report rep = report_of(run);
  CHECK_FALSE(export_bmf(rep).contains(S("cpu/gather")));
  CHECK(export_bmf(rep).size() == 4);  // fused: the fit and three points
  CHECK(export_gab(rep).size() == 6);  // three points, marginal and per-token cost, exponent
}

TEST_CASE("exports name the set-up: threads and dtypes keep set-ups apart") {
  RunResult run = synthetic_run();
  run.backends[0].details.threads = 2;
  const Json j = export_bmf(report_of(run));
  CHECK(j.contains("cpu/fused [bf16, B=1 Hq=32 Hkv=8 D=128 S=16, cold cache, 2 threads]"));
  run.backends[0].details.threads = 1;
  CHECK(export_bmf(report_of(run))
            .contains("cpu/fused [bf16, B=1 Hq=32 Hkv=8 D=128 S=16, cold cache, 1 thread]"));
  const Json g = export_gab(report_of(run));
  CHECK(g[0]["name"] == "cpu/gather L=16 [bf16, B=1 Hq=32 Hkv=8 D=128 S=16, cold cache, 1 thread]");
}

TEST_CASE("exports give no negative cost or bound and a fixed cost only where resolved") {
  // Noise whose line undercuts zero: t0 < 0 with a CI holding zero and below.
  RunResult run = synthetic_run();
  run.results[1] = readbench::test::timed_path(
      Path::fused, {{1024, 0.003829}, {4096, 0.0003664}, {16384, 0.007866}, {65536, 0.0147}});
  REQUIRE(run.results[1].fit->affine.fixed_s < 0);
  const Json j = export_bmf(report_of(run));
  for (const auto& [name, measures] : j.items())
    for (const char* cost : {"fixed_ns", "marginal_ns_per_token", "per_token_ns", "latency"})
      if (measures.contains(cost)) {
        const std::string entry = name;  // a structured binding cannot be captured
        CAPTURE(entry);
        CAPTURE(cost);
        CHECK(measures[cost]["value"].get<double>() > 0);
        if (measures[cost].contains("lower_value"))
          CHECK(measures[cost]["lower_value"].get<double>() > 0);
      }
  CHECK_FALSE(j[S("cpu/fused")].contains("fixed_ns"));
  for (const Json& e : export_gab(report_of(run)))
    if (e["unit"] != "exponent") CHECK(e["value"].get<double>() > 0);
}

TEST_CASE("a contended report says so in every exported entry") {
  RunResult run = synthetic_run();
  run.quality.contended = true;
  run.quality.reasons = {"a backend's read ceiling moved"};
  const Report rep = report_of(run);
  const Json bmf = export_bmf(rep);
  for (const auto& [name, measures] : bmf.items()) {
    const std::string entry = name;  // a structured binding cannot be captured
    CAPTURE(entry);
    CHECK(measures["contended"]["value"] == 1);
  }
  const Json gab = export_gab(rep);
  for (const Json& e : gab) {
    CAPTURE(e["name"]);
    CHECK(std::string(e["extra"]).find("CONTENDED") != std::string::npos);
  }
  CHECK(export_bmf(report_of(synthetic_run()))[S("cpu/fused")]["contended"]["value"] == 0);
}

TEST_CASE("export refuses a report with nothing timed, naming it") {
  RunResult run = synthetic_run();
  run.results.erase(run.results.begin(), run.results.begin() + 2);
  const Report rep = report_of(run);
  const std::string want = "r.json: nothing to export: no result has timed points";
  CHECK(error_message([&] { export_bmf(rep); }) == want);
  CHECK(error_message([&] { export_gab(rep); }) == want);
}
