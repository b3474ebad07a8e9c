// The CI gate of SPEC §6 (`readbench check`): report variants edited from the synthetic report,
// judged against it or against each other.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "core/errors.hpp"
#include "report/check.hpp"
#include "report/report_input.hpp"
#include "report_fixtures.hpp"
#include "test_support.hpp"

using namespace readbench;
using readbench::test::error_message;
using readbench::test::synthetic_report;

namespace {

// results[] of the synthetic report: cpu/gather (two points, no CI), cpu/fused (three points,
// a CI), cuda/gather and cuda/fused (unavailable).
constexpr int kGather = 0;
constexpr int kFused = 1;

Report report_of(const Json& j, const std::string& source = "current.json") {
  return report_from_json(nlohmann::json::parse(j.dump()), source);
}

// Sets a result's exponent, CI (none: null) and regime word, as a report would state them.
void set_fit(Json& j, int i, double p, std::optional<std::pair<double, double>> ci,
             const char* regime) {
  Json& fit = j["results"][i]["fit"];
  fit["exponent"] = p;
  fit["ci95"] = ci ? Json::array({ci->first, ci->second}) : Json(nullptr);
  fit["regime"] = regime;
}

// A report whose fused path has p = 1.0 with a CI [0.9, 1.1] and whose gather path has
// p = 1.0 without a CI: both linear, a round baseline for the edits below.
Json linear_report() {
  Json j = synthetic_report();
  set_fit(j, kFused, 1.0, std::pair{0.9, 1.1}, "linear");
  set_fit(j, kGather, 1.0, std::nullopt, "linear");
  return j;
}

CheckOutcome check(const Json& base, const Json& current, CheckOptions o = {}) {
  return check_reports(report_of(base, "base.json"), report_of(current), o);
}

// A copy: the outcome is often a temporary.
CheckRow row(const CheckOutcome& r, const std::string& label) {
  for (const CheckRow& x : r.rows)
    if (x.label() == label) return x;
  FAIL("no row " << label);
  return {};
}

bool mentions(const std::vector<std::string>& lines, const std::string& what) {
  for (const std::string& l : lines)
    if (l.find(what) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("identical reports pass with every fitted path compared") {
  const Json j = synthetic_report();
  const CheckOutcome r = check(j, j);
  CHECK(r.passed());
  CHECK(r.compared == 2);
  CHECK(r.regressions == 0);
  CHECK(r.skipped == 2);  // the unavailable cuda paths
  REQUIRE(r.rows.size() == 4);
  CHECK(r.rows[0].label() == "cpu/gather");
  CHECK(r.rows[1].label() == "cpu/fused");
  for (int i : {kGather, kFused}) {
    CHECK(r.rows[i].verdict == Verdict::ok);
    CHECK(r.rows[i].delta_exponent == 0.0);
    CHECK(r.rows[i].cost_ratio == 1.0);
    CHECK(r.rows[i].notes.empty());
  }
}

TEST_CASE(
    "an exponent up by more than the tolerance with its CI reaching the limit is not a "
    "regression") {
  Json cur = linear_report();
  set_fit(cur, kFused, 1.2, std::pair{1.05, 1.24}, "linear");
  const CheckOutcome r = check(linear_report(), cur);
  CHECK(r.passed());
  const CheckRow& fused = row(r, "cpu/fused");
  CHECK(fused.verdict == Verdict::ok);
  CHECK(fused.delta_exponent == doctest::Approx(0.2));
  CHECK(mentions(fused.notes, "not wholly above 1.100"));
}

TEST_CASE("an exponent whose CI lies wholly above baseline plus tolerance is a regression") {
  Json cur = linear_report();
  set_fit(cur, kFused, 1.2, std::pair{1.15, 1.24}, "linear");
  const CheckOutcome r = check(linear_report(), cur);
  CHECK_FALSE(r.passed());
  CHECK(r.regressions == 1);
  const CheckRow& fused = row(r, "cpu/fused");
  CHECK(fused.verdict == Verdict::regression);
  REQUIRE(fused.reasons.size() == 1);
  CHECK(fused.reasons[0] ==
        "exponent 1.200 > baseline 1.000 + tolerance 0.1, its 95% CI [1.150, 1.240] wholly "
        "above");
  CHECK(row(r, "cpu/gather").verdict == Verdict::ok);
}

TEST_CASE("without a CI the point estimate decides") {
  Json up = linear_report();
  set_fit(up, kGather, 1.15, std::nullopt, "linear");
  const CheckRow& gather = row(check(linear_report(), up), "cpu/gather");
  CHECK(gather.verdict == Verdict::regression);
  CHECK(mentions(gather.reasons, "no CI"));

  Json within = linear_report();
  set_fit(within, kGather, 1.05, std::nullopt, "linear");
  CHECK(row(check(linear_report(), within), "cpu/gather").verdict == Verdict::ok);
}

TEST_CASE("a worse regime alone is a regression") {
  Json base = linear_report();
  set_fit(base, kFused, 1.2, std::pair{1.15, 1.24}, "linear");
  Json cur = linear_report();
  set_fit(cur, kFused, 1.26, std::pair{1.2, 1.32}, "superlinear");  // up 0.06 only
  const CheckRow& fused = row(check(base, cur), "cpu/fused");
  CHECK(fused.verdict == Verdict::regression);
  REQUIRE(fused.reasons.size() == 1);
  CHECK(fused.reasons[0] == "regime worsened: linear -> superlinear");
}

TEST_CASE("a better regime is ok") {
  Json base = linear_report();
  set_fit(base, kFused, 0.85, std::pair{0.8, 0.9}, "linear");
  Json cur = linear_report();
  set_fit(cur, kFused, 0.7, std::pair{0.65, 0.75}, "sublinear");
  const CheckOutcome r = check(base, cur);
  CHECK(r.passed());
  CHECK(row(r, "cpu/fused").verdict == Verdict::ok);
}

TEST_CASE("an exponent exactly at baseline plus tolerance is not a regression") {
  // CI low exactly at the limit is not wholly above it.
  Json at = linear_report();
  set_fit(at, kFused, 1.1, std::pair{1.1, 1.1}, "linear");
  set_fit(at, kGather, 1.1, std::nullopt, "linear");
  CHECK(check(linear_report(), at).passed());

  // 0.35 + 0.1 is 0.44999999999999996 in binary: the limit allows for the rounding.
  Json base = linear_report();
  set_fit(base, kGather, 0.35, std::nullopt, "sublinear");
  Json cur = linear_report();
  set_fit(cur, kGather, 0.45, std::nullopt, "sublinear");
  CHECK(row(check(base, cur), "cpu/gather").verdict == Verdict::ok);

  Json past = linear_report();
  set_fit(past, kGather, 1.1 + 1e-6, std::nullopt, "linear");
  CHECK(row(check(linear_report(), past), "cpu/gather").verdict == Verdict::regression);

  // A zero tolerance fails any rise past the rounding.
  CheckOptions strict;
  strict.tolerance = 0;
  CHECK(check(linear_report(), linear_report(), strict).passed());
  Json tiny = linear_report();
  set_fit(tiny, kGather, 1.001, std::nullopt, "linear");
  CHECK_FALSE(check(linear_report(), tiny, strict).passed());
}

TEST_CASE("the per-token cost gate is off by default and fails a ratio above it when on") {
  const Json base = synthetic_report();
  Json cur = synthetic_report();
  const double cost = cur["results"][kFused]["fit"]["per_token_s"].get<double>();
  cur["results"][kFused]["fit"]["per_token_s"] = 2 * cost;

  const CheckOutcome off = check(base, cur);
  CHECK(off.passed());
  CHECK(row(off, "cpu/fused").cost_ratio == doctest::Approx(2.0));

  CheckOptions gate;
  gate.max_cost_ratio = 1.5;
  const CheckOutcome on = check(base, cur, gate);
  CHECK_FALSE(on.passed());
  const CheckRow& fused = row(on, "cpu/fused");
  CHECK(fused.verdict == Verdict::regression);
  CHECK(fused.reasons == std::vector<std::string>{"per-token cost ratio 2.00 > 1.5"});
  CHECK(row(on, "cpu/gather").verdict == Verdict::ok);

  gate.max_cost_ratio = 2.5;
  CHECK(check(base, cur, gate).passed());
}

TEST_CASE("per-token costs at different longest lengths are noted") {
  Json cur = synthetic_report();
  cur["results"][kFused]["fit"]["longest_length"] = 1024;
  const CheckRow& fused = row(check(synthetic_report(), cur), "cpu/fused");
  CHECK(fused.verdict == Verdict::ok);
  CHECK(mentions(fused.notes, "baseline L=256, current L=1024"));
}

TEST_CASE("a path ok in the baseline and failed in the current report is a regression") {
  Json cur = synthetic_report();
  Json& fused = cur["results"][kFused];
  fused["status"] = "failed";
  fused["reason"] = "out of memory";
  fused["points"] = Json::array();
  fused["fit"] = nullptr;
  const CheckOutcome r = check(synthetic_report(), cur);
  CHECK_FALSE(r.passed());
  const CheckRow& f = row(r, "cpu/fused");
  CHECK(f.verdict == Verdict::regression);
  CHECK(f.reasons == std::vector<std::string>{"failed in the current report: out of memory"});
  CHECK(r.compared == 2);
}

TEST_CASE("a path failed in both reports is skipped") {
  Json j = synthetic_report();
  j["results"][kFused]["status"] = "failed";
  j["results"][kFused]["fit"] = nullptr;
  const CheckOutcome r = check(j, j);
  CHECK(r.passed());
  CHECK(row(r, "cpu/fused").verdict == Verdict::skipped);
  CHECK(row(r, "cpu/fused").reasons ==
        std::vector<std::string>{"failed in the current report, failed in the baseline"});
}

TEST_CASE("a path unavailable in the current report is skipped, not a regression") {
  // A baseline from a GPU machine: cuda/fused measured there.
  Json base = synthetic_report();
  Json cuda = base["results"][kFused];
  cuda["backend"] = "cuda";
  base["results"][3] = cuda;
  const CheckOutcome r = check(base, synthetic_report());
  CHECK(r.passed());
  const CheckRow& c = row(r, "cuda/fused");
  CHECK(c.verdict == Verdict::skipped);
  CHECK(c.reasons == std::vector<std::string>{"unavailable in the current report: no CUDA device"});
}

TEST_CASE("a path in only one report is skipped, listed after the current report's") {
  Json cur = synthetic_report();
  cur["results"].erase(kGather);
  const CheckOutcome r = check(synthetic_report(), cur);
  CHECK(r.passed());
  REQUIRE(r.rows.size() == 4);
  CHECK(r.rows.back().label() == "cpu/gather");
  CHECK(r.rows.back().verdict == Verdict::skipped);
  CHECK(r.rows.back().reasons == std::vector<std::string>{"only in the baseline"});

  const CheckOutcome other = check(cur, synthetic_report());
  CHECK(row(other, "cpu/gather").reasons == std::vector<std::string>{"only in the current report"});
}

TEST_CASE("a path without a fit on either side is skipped") {
  Json cur = synthetic_report();
  cur["results"][kFused]["fit"] = nullptr;
  const CheckRow& f = row(check(synthetic_report(), cur), "cpu/fused");
  CHECK(f.verdict == Verdict::skipped);
  CHECK(f.reasons == std::vector<std::string>{"no fit in the current report"});
  CHECK(row(check(cur, synthetic_report()), "cpu/fused").reasons ==
        std::vector<std::string>{"no fit in the baseline"});
}

TEST_CASE("nothing comparable is refused, naming why each path was skipped") {
  Json cpu_only = synthetic_report();
  cpu_only["results"].erase(3);
  cpu_only["results"].erase(2);
  Json cuda_only = synthetic_report();
  cuda_only["results"].erase(1);
  cuda_only["results"].erase(0);
  const std::string why = error_message([&] { check(cpu_only, cuda_only); });
  CHECK(why.rfind("nothing to compare: no backend/path has fits in both base.json and "
                  "current.json (cuda/gather: only in the current report;",
                  0) == 0);
  CHECK(why.find("cpu/fused: only in the baseline") != std::string::npos);
  CHECK(error_message([&] { check(cuda_only, cuda_only); }).find("nothing to compare") == 0);
}

TEST_CASE("bad gate options are refused before any comparison") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  auto refused = [](double tolerance, std::optional<double> ratio) {
    CheckOptions o;
    o.tolerance = tolerance;
    o.max_cost_ratio = ratio;
    return error_message([&] { validate(o); });
  };
  CHECK(refused(-1, {}) == "--tolerance must be a finite number >= 0, got -1");
  CHECK(refused(nan, {}).rfind("--tolerance must be", 0) == 0);
  CHECK(refused(inf, {}).rfind("--tolerance must be", 0) == 0);
  CHECK(refused(0.1, 0.0) == "--max-cost-ratio must be a finite number > 0, got 0");
  CHECK(refused(0.1, -2.0).rfind("--max-cost-ratio must be", 0) == 0);
  CHECK(refused(0.1, inf).rfind("--max-cost-ratio must be", 0) == 0);
  CHECK(refused(0, 1.0).empty());
  CheckOptions bad;
  bad.tolerance = -1;
  const Json j = synthetic_report();
  CHECK_FALSE(error_message([&] { check(j, j, bad); }).empty());
}

TEST_CASE("a difference in the fitted statistic is noted") {
  Json cur = synthetic_report();
  cur["config"]["statistic"] = "median";
  const CheckOutcome r = check(synthetic_report(), cur);
  CHECK(r.passed());
  CHECK(mentions(r.notes, "the baseline fits min times and the current report median times"));
}

TEST_CASE("the markdown has a heading, one row per backend/path and the summary last") {
  Json cur = linear_report();
  set_fit(cur, kFused, 1.2, std::pair{1.15, 1.24}, "linear");
  cur["results"][2]["reason"] = "no device | driver";
  const std::string md = format_check_markdown(check(linear_report(), cur));
  CHECK(md.rfind("### readbench check: FAIL\n", 0) == 0);
  CHECK(md.find("| backend/path | baseline p [95% CI] | current p [95% CI] | Δp |") !=
        std::string::npos);
  CHECK(md.find("| cpu/fused | 1.000 [0.900, 1.100] | 1.200 [1.150, 1.240] | +0.200 | linear |") !=
        std::string::npos);
  CHECK(md.find("| cpu/gather | 1.000 (no CI) | 1.000 (no CI) | +0.000 | linear |") !=
        std::string::npos);
  CHECK(md.find("**REGRESSION**: exponent 1.200") != std::string::npos);
  CHECK(md.find("skipped: unavailable in the current report: no device \\| driver |") !=
        std::string::npos);
  CHECK(md.substr(md.rfind('\n', md.size() - 2) + 1) ==
        "readbench check: FAIL: 1 regression in 2 backend/paths compared: cpu/fused "
        "(tolerance 0.1, cost gate off); 2 skipped\n");
  const std::string ok = format_check_markdown(check(linear_report(), linear_report()));
  CHECK(ok.find("readbench check: PASS: 2 backend/paths compared, no regression (tolerance 0.1, "
                "cost gate off); 2 skipped\n") != std::string::npos);
}

TEST_CASE("the JSON verdict carries pass, the options and each row's numbers") {
  Json cur = synthetic_report();
  cur["results"][kFused]["fit"]["per_token_s"] =
      3 * cur["results"][kFused]["fit"]["per_token_s"].get<double>();
  CheckOptions gate;
  gate.max_cost_ratio = 2;
  const Json v = check_to_json(check(synthetic_report(), cur, gate));
  CHECK(v["verdict"] == "fail");
  CHECK(v["pass"] == false);
  CHECK(v["tolerance"] == 0.1);
  CHECK(v["max_cost_ratio"] == 2.0);
  CHECK(v["compared"] == 2);
  CHECK(v["regressions"] == 1);
  CHECK(v["skipped"] == 2);
  REQUIRE(v["rows"].size() == 4);
  const Json& fused = v["rows"][kFused];
  CHECK(fused["backend"] == "cpu");
  CHECK(fused["path"] == "fused");
  CHECK(fused["verdict"] == "regression");
  CHECK(fused["delta_exponent"].is_number());
  CHECK(fused["cost_ratio"].get<double>() == doctest::Approx(3.0));
  CHECK(fused["baseline"]["fit"]["exponent"].is_number());
  CHECK(fused["current"]["fit"]["ci95"].size() == 2);
  CHECK(v["rows"][kGather]["current"]["fit"]["ci95"].is_null());
  const Json& cuda = v["rows"][3];
  CHECK(cuda["verdict"] == "skipped");
  CHECK(cuda["current"]["status"] == "unavailable");
  CHECK(cuda["current"]["fit"].is_null());
  CHECK(cuda["delta_exponent"].is_null());

  const Json off = check_to_json(check(synthetic_report(), synthetic_report()));
  CHECK(off["pass"] == true);
  CHECK(off["verdict"] == "pass");
  CHECK(off["max_cost_ratio"].is_null());
}
