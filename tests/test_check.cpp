// The CI gate (`readbench check`): reports built from scripted points, or edited from the
// synthetic report, judged against each other. The gate judges the points: each side's power
// law is fitted again over the lengths both share past both fits' fit_from.
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
using readbench::test::synthetic_run;
using readbench::test::timed_path;

namespace {

// results[] of the synthetic report: cpu/gather (two points, no CI), cpu/fused (three points,
// a CI), cuda/gather and cuda/fused (unavailable).
constexpr int kGather = 0;
constexpr int kFused = 1;

Report report_of(const Json& j, const std::string& source = "current.json") {
  return report_from_json(nlohmann::json::parse(j.dump()), source);
}

// t = cost * L^p at L = 256, 1024, 4096, 16384, each time off by `wobble` (relative) in
// alternate directions, so the fit has a CI as wide as the wobble makes it.
std::vector<std::pair<std::int64_t, double>> series(double p, double wobble = 0,
                                                    double cost = 1e-9) {
  std::vector<std::pair<std::int64_t, double>> pts;
  int i = 0;
  for (std::int64_t L = 256; L <= 16384; L *= 4, ++i)
    pts.emplace_back(L, cost * std::pow(double(L), p) * (1 + (i % 2 ? wobble : -wobble)));
  return pts;
}

// The synthetic run with both cpu paths replaced by scripted series.
Json scripted(const std::vector<std::pair<std::int64_t, double>>& gather,
              const std::vector<std::pair<std::int64_t, double>>& fused) {
  RunResult run = synthetic_run();
  run.results[kGather] = timed_path(Path::gather, gather, 0.0);
  run.results[kFused] = timed_path(Path::fused, fused, 0.0);
  return build_report(run, readbench::test::synthetic_host(), "2026-01-02T03:04:05Z");
}

// Both paths exactly linear: a round baseline.
Json linear_report() {
  return scripted(series(1.0), series(1.0));
}

// The exponent and cost rules, tested on series many of which are not at their asymptote (a
// power law that is not exactly linear never settles): such rows pass here under
// --allow not-reached unless a test asks otherwise (the rule itself is tested at the end).
CheckOptions rules_only() {
  CheckOptions o;
  o.allow.not_reached = true;
  return o;
}

CheckOutcome check(const Json& base, const Json& current, CheckOptions o = rules_only()) {
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
  const CheckOutcome r = check(linear_report(), linear_report());
  CHECK(r.passed());
  CHECK(r.compared == 2);
  CHECK(r.regressions == 0);
  CHECK(r.skipped == 2);
  for (int i : {kGather, kFused}) {
    CAPTURE(i);
    CHECK(r.rows[i].verdict == Verdict::ok);
    CHECK(r.rows[i].delta_exponent == 0.0);
    CHECK(r.rows[i].cost_ratio == doctest::Approx(1.0).epsilon(1e-12));
    CHECK(r.rows[i].lengths == std::vector<double>{256, 1024, 4096, 16384});
  }
}

TEST_CASE(
    "an exponent up by more than the tolerance with its CI reaching the limit is not a "
    "regression") {
  const Json cur = scripted(series(1.0), series(1.15, 0.2));
  const CheckRow f = row(check(linear_report(), cur), "cpu/fused");
  REQUIRE(f.current_fit);
  REQUIRE(f.current_fit->exponent > 1.1);
  REQUIRE(*f.current_fit->ci95_low < 1.1);
  CHECK(f.verdict == Verdict::ok);
  CHECK(mentions(f.notes, "not wholly above 1.1"));
}

TEST_CASE("an exponent whose CI lies wholly above baseline plus tolerance is a regression") {
  const Json cur = scripted(series(1.0), series(1.3, 0.01));
  const CheckOutcome r = check(linear_report(), cur);
  const CheckRow f = row(r, "cpu/fused");
  REQUIRE(*f.current_fit->ci95_low > 1.1);
  CHECK_FALSE(r.passed());
  CHECK(f.verdict == Verdict::regression);
  CHECK(mentions(f.reasons, "wholly above"));
  CHECK(row(r, "cpu/gather").verdict == Verdict::ok);
}

TEST_CASE("a worse regime with the current CI wholly in the worse band is a regression") {
  const Json base = scripted(series(1.0), series(0.7));
  const CheckRow f = row(check(base, scripted(series(1.0), series(0.85, 0.002))), "cpu/fused");
  REQUIRE(f.current_fit->regime == Regime::linear);
  REQUIRE(*f.current_fit->ci95_low >= 0.8);
  CHECK(f.verdict == Verdict::regression);
  CHECK(mentions(f.reasons, "regime worsened: sublinear -> linear"));
}

TEST_CASE("a worse regime word whose CI reaches back into the baseline's band is noise") {
  // p 0.79 -> 0.81 across the 0.8 edge: an A/A pair must not fail on the word alone.
  const Json base = scripted(series(1.0), series(0.79, 0.01));
  const CheckRow f = row(check(base, scripted(series(1.0), series(0.81, 0.01))), "cpu/fused");
  REQUIRE(f.baseline_fit->regime == Regime::sublinear);
  REQUIRE(f.current_fit->regime == Regime::linear);
  REQUIRE(*f.current_fit->ci95_low < 0.8);
  CHECK(f.verdict == Verdict::ok);
  CHECK(mentions(f.notes, "below the 0.80 band edge"));
}

TEST_CASE("a better regime is ok") {
  const CheckRow f = row(check(linear_report(), scripted(series(1.0), series(0.7))), "cpu/fused");
  CHECK(f.verdict == Verdict::ok);
  CHECK(f.reasons.empty());
}

TEST_CASE("an exponent exactly at baseline plus tolerance is not a regression") {
  // Exact series have zero-width CIs: the point estimate meets the limit.
  CHECK(check(linear_report(), scripted(series(1.1), series(1.0))).passed());
  CHECK_FALSE(check(linear_report(), scripted(series(1.1001), series(1.0))).passed());
  CheckOptions strict = rules_only();
  strict.tolerance = 0;
  CHECK(check(linear_report(), linear_report(), strict).passed());
  CHECK_FALSE(check(linear_report(), scripted(series(1.001), series(1.0)), strict).passed());
}

TEST_CASE("the cost gate is off by default and fails a marginal cost ratio above it when on") {
  const Json cur = scripted(series(1.0), series(1.0, 0, 2e-9));  // fused twice as slow
  const CheckOutcome off = check(linear_report(), cur);
  CHECK(off.passed());
  CHECK(row(off, "cpu/fused").cost_ratio == doctest::Approx(2.0).epsilon(1e-9));
  CheckOptions gate = rules_only();
  gate.max_cost_ratio = 1.5;
  const CheckOutcome on = check(linear_report(), cur, gate);
  CHECK_FALSE(on.passed());
  const CheckRow fused = row(on, "cpu/fused");
  CHECK(fused.verdict == Verdict::regression);
  CHECK(fused.reasons == std::vector<std::string>{"marginal cost per token ratio 2.00 > 1.5"});
  CHECK(row(on, "cpu/gather").verdict == Verdict::ok);
}

TEST_CASE("exponents compare over the lengths both reports share past both fits' fit_from") {
  // The current report also timed 65536 and the baseline 64: neither enters the comparison.
  auto longer = series(1.0);
  longer.emplace_back(65536, 1e-9 * 65536 * 1.5);
  auto shorter = series(1.0);
  shorter.insert(shorter.begin(), {64, 1e-9 * 64});
  const CheckRow f =
      row(check(scripted(series(1.0), shorter), scripted(series(1.0), longer)), "cpu/fused");
  CHECK(f.lengths == std::vector<double>{256, 1024, 4096, 16384});
  CHECK(f.delta_exponent == doctest::Approx(0).epsilon(1e-12));
  CHECK(f.verdict == Verdict::ok);
}

TEST_CASE("fewer than three shared lengths skip the row, saying so") {
  const Json cur = scripted(series(1.0), {{256, 2.56e-7}, {4096, 4.096e-6}, {65536, 6.5536e-5}});
  const CheckRow f = row(check(linear_report(), cur), "cpu/fused");
  CHECK(f.verdict == Verdict::skipped);
  CHECK(mentions(f.reasons, "the reports share 2 lengths"));
  CHECK(mentions(f.reasons, "3 are needed"));
}

namespace {

// t = t0 + 1 ns a token at L = 1024, 4096, ... up to `last`, times `step` a token from 16384 on.
std::vector<std::pair<std::int64_t, double>> stepped(std::int64_t last, double t0, double step) {
  std::vector<std::pair<std::int64_t, double>> pts;
  for (std::int64_t L = 1024; L <= last; L *= 4)
    pts.emplace_back(L, t0 + 1e-9 * double(L) * (L >= 16384 ? step : 1.0));
  return pts;
}

// The synthetic run with the cpu fused path replaced by `fused` and the gather by an exactly
// linear series, their fit_from auto.
RunResult fused_run(const std::vector<std::pair<std::int64_t, double>>& fused) {
  RunResult run = synthetic_run();
  run.results[kGather] = timed_path(Path::gather, series(1.0), std::nullopt);
  run.results[kFused] = timed_path(Path::fused, fused, std::nullopt);
  return run;
}

Json json_of(const RunResult& r) {
  return build_report(r, readbench::test::synthetic_host(), "2026-01-02T03:04:05Z");
}

}  // namespace

TEST_CASE("a current fit that starts past the baseline's region is compared over the baseline's") {
  // The baseline is affine (200 ns + 1 ns a token) over 1024..65536; the current read costs
  // 1.6x a token from 16384 on and was timed to 1048576, so its cost per token settles only
  // from 16384 and its auto region starts there, sharing two lengths past both fit_froms.
  RunResult base = synthetic_run(), cur = synthetic_run();
  base.results[kFused] = timed_path(Path::fused, stepped(65536, 200e-9, 1.0), std::nullopt);
  cur.results[kFused] = timed_path(Path::fused, stepped(1048576, 200e-9, 1.6), std::nullopt);
  REQUIRE(base.results[kFused].fit->fit_from == 1024);
  REQUIRE(cur.results[kFused].fit->fit_from == 16384);
  CheckOptions same_runner = rules_only();
  same_runner.max_cost_ratio = 1.4;
  const CheckRow f = row(check(json_of(base), json_of(cur), same_runner), "cpu/fused");
  CHECK(f.lengths == std::vector<double>{1024, 4096, 16384, 65536});
  CHECK(mentions(f.notes, "compared over the baseline's fitted lengths from L=1024"));
  CHECK(f.verdict == Verdict::regression);  // the cost rule: 1.6 ns a token against 1 ns
  REQUIRE(f.cost_ratio);
  CHECK(*f.cost_ratio == doctest::Approx(1.6).epsilon(0.01));
}

TEST_CASE("a current region moved up by a larger fixed cost is not compared below it") {
  // The current read costs 3 us a call more than the baseline's 200 ns, the same 1 ns a token:
  // its shares reach 0.8 only at 16384, which leaves two lengths shared with the baseline's
  // region. Below 16384 its time is mostly the fixed cost, and an exponent there (about 0.6
  // against 0.97) would read as an improvement: the row is skipped instead.
  const RunResult base = fused_run(stepped(65536, 200e-9, 1.0));
  const RunResult cur = fused_run(stepped(1048576, 3e-6, 1.0));
  REQUIRE(base.results[kFused].fit->asymptote_reached);
  REQUIRE(base.results[kFused].fit->fit_from == 1024);
  REQUIRE(cur.results[kFused].fit->fit_from == 16384);
  const CheckRow f = row(check(json_of(base), json_of(cur)), "cpu/fused");
  CHECK(f.verdict == Verdict::skipped);
  CHECK(f.lengths == std::vector<double>{16384, 65536});
  CHECK(mentions(f.reasons,
                 "the reports share 2 lengths at or above both fits' fit_from (L >= 16384)"));
  CHECK(mentions(f.notes,
                 "not compared below L=16384: the current read's length-dependent "
                 "share is under 0.8"));
  CHECK_FALSE(mentions(f.notes, "compared over"));
}

TEST_CASE("a row whose exponents cannot be compared still meets the cost rule") {
  // The larger fixed cost of the case above, and 1.6 ns a token from 16384 on: no lengths to
  // compare exponents over, but each side's marginal cost is its own fit's.
  const RunResult base = fused_run(stepped(65536, 200e-9, 1.0));
  const RunResult cur = fused_run(stepped(1048576, 3e-6, 1.6));
  REQUIRE(cur.results[kFused].fit->fit_from == 16384);
  CheckOptions same_runner = rules_only();
  same_runner.max_cost_ratio = 1.4;
  const CheckRow gated = row(check(json_of(base), json_of(cur), same_runner), "cpu/fused");
  CHECK(gated.verdict == Verdict::regression);
  REQUIRE(gated.cost_ratio);
  CHECK(*gated.cost_ratio == doctest::Approx(1.6).epsilon(0.01));
  CHECK(gated.reasons == std::vector<std::string>{"marginal cost per token ratio 1.60 > 1.4"});
  CHECK(mentions(gated.notes, "exponents not compared: the reports share 2 lengths"));
  CHECK_FALSE(gated.delta_exponent);
  // Within the ratio the row stays skipped.
  same_runner.max_cost_ratio = 2.0;
  CHECK(row(check(json_of(base), json_of(cur), same_runner), "cpu/fused").verdict ==
        Verdict::skipped);
}

TEST_CASE(
    "the baseline's lengths are compared only from where the current read's shares reach 0.8") {
  // 400 ns a call, 1 ns a token, 2 ns from 16384 on: the cost per token settles from 16384,
  // and by that region's fixed cost the share is 0.72 at 1024 and 0.91 at 4096.
  const RunResult base = fused_run(stepped(65536, 200e-9, 1.0));
  const RunResult cur = fused_run(stepped(1048576, 400e-9, 2.0));
  REQUIRE(cur.results[kFused].fit->fit_from == 16384);
  CheckOptions same_runner = rules_only();
  same_runner.max_cost_ratio = 1.4;
  const CheckRow f = row(check(json_of(base), json_of(cur), same_runner), "cpu/fused");
  CHECK(f.lengths == std::vector<double>{4096, 16384, 65536});
  CHECK(mentions(f.notes, "compared over the baseline's fitted lengths from L=4096"));
  CHECK(f.verdict == Verdict::regression);
  REQUIRE(f.delta_exponent);
  CHECK(*f.delta_exponent > 0.1);  // the dearer tokens show in the exponent too
}

TEST_CASE("a baseline that never reached its asymptote lends no lengths to a current region") {
  // Three lengths: not reached, so its region is not the read's to compare from.
  const RunResult base = fused_run(stepped(16384, 200e-9, 1.0));
  const RunResult cur = fused_run(stepped(1048576, 200e-9, 1.6));
  REQUIRE_FALSE(base.results[kFused].fit->asymptote_reached);
  REQUIRE(cur.results[kFused].fit->fit_from == 16384);
  const CheckRow f = row(check(json_of(base), json_of(cur)), "cpu/fused");
  CHECK(f.verdict == Verdict::skipped);
  CHECK(mentions(f.reasons,
                 "the reports share 1 length at or above both fits' fit_from (L >= 16384)"));
  CHECK(mentions(f.notes, "the baseline did not reach its asymptote"));
}

TEST_CASE("a path ok in the baseline and failed in the current report is a regression") {
  Json cur = linear_report();
  Json& fused = cur["results"][kFused];
  fused["status"] = "failed";
  fused["reason"] = "out of memory";
  fused["points"] = Json::array();
  fused["fit"] = nullptr;
  fused["fit_error"] = "no points were timed";
  const CheckOutcome r = check(linear_report(), cur);
  CHECK_FALSE(r.passed());
  const CheckRow& f = row(r, "cpu/fused");
  CHECK(f.verdict == Verdict::regression);
  CHECK(f.reasons == std::vector<std::string>{"failed in the current report: out of memory"});
  CHECK(r.compared == 2);
}

TEST_CASE("a path failed in both reports is skipped") {
  Json j = linear_report();
  j["results"][kFused]["status"] = "failed";
  j["results"][kFused]["points"] = Json::array();
  j["results"][kFused]["fit"] = nullptr;
  const CheckOutcome r = check(j, j);
  CHECK(r.passed());
  CHECK(row(r, "cpu/fused").verdict == Verdict::skipped);
  CHECK(row(r, "cpu/fused").reasons ==
        std::vector<std::string>{"failed in the current report, failed in the baseline"});
}

TEST_CASE("a path unavailable in the current report is skipped, not a regression") {
  // A baseline from a GPU machine: cuda/fused measured there.
  Json base = linear_report();
  Json cuda = base["results"][kFused];
  cuda["backend"] = "cuda";
  base["results"][3] = cuda;
  const CheckOutcome r = check(base, linear_report());
  CHECK(r.passed());
  const CheckRow& c = row(r, "cuda/fused");
  CHECK(c.verdict == Verdict::skipped);
  CHECK(c.reasons == std::vector<std::string>{"unavailable in the current report: no CUDA device"});
}

TEST_CASE("a path missing from the current report is a regression, listed after its rows") {
  Json cur = linear_report();
  cur["results"].erase(kGather);
  const CheckOutcome r = check(linear_report(), cur);
  CHECK_FALSE(r.passed());
  CHECK(r.regressions == 1);
  REQUIRE(r.rows.size() == 4);
  CHECK(r.rows.back().label() == "cpu/gather");
  CHECK(r.rows.back().verdict == Verdict::regression);
  CHECK(mentions(r.rows.back().reasons, "missing from the current report"));
  CHECK(format_check_summary(r).find("FAIL: 1 regression") != std::string::npos);
}

TEST_CASE("allow missing skips a path only in the baseline") {
  Json cur = linear_report();
  cur["results"].erase(kGather);
  CheckOptions o;
  o.allow_missing = true;
  const CheckOutcome r = check(linear_report(), cur, o);
  CHECK(r.passed());
  CHECK(r.rows.back().verdict == Verdict::skipped);
  CHECK(r.rows.back().reasons == std::vector<std::string>{"only in the baseline"});
}

TEST_CASE("a path only in the current report is skipped") {
  Json base = linear_report();
  base["results"].erase(kGather);
  const CheckOutcome r = check(base, linear_report());
  CHECK(r.passed());
  CHECK(row(r, "cpu/gather").verdict == Verdict::skipped);
  CHECK(row(r, "cpu/gather").reasons == std::vector<std::string>{"only in the current report"});
}

TEST_CASE("a path without a fit on either side is skipped") {
  // One point: nothing to fit, as a run would write it.
  Json cur = linear_report();
  Json& points = cur["results"][kFused]["points"];
  points = Json::array({points[0]});
  cur["results"][kFused]["fit"] = nullptr;
  cur["results"][kFused]["fit_error"] = "the fit needs at least 2 points";
  const CheckRow& f = row(check(linear_report(), cur), "cpu/fused");
  CHECK(f.verdict == Verdict::skipped);
  CHECK(f.reasons == std::vector<std::string>{"no fit in the current report"});
  CHECK(row(check(cur, linear_report()), "cpu/fused").reasons ==
        std::vector<std::string>{"no fit in the baseline"});
}

TEST_CASE("nothing comparable is refused, naming why each path was skipped") {
  Json cpu_only = linear_report();
  cpu_only["results"].erase(3);
  cpu_only["results"].erase(2);
  Json cuda_only = linear_report();
  cuda_only["results"].erase(1);
  cuda_only["results"].erase(0);
  CheckOptions o;
  o.allow_missing = true;
  const std::string why = error_message([&] { check(cpu_only, cuda_only, o); });
  CHECK(why.rfind("nothing to compare: no backend/path could be judged in both base.json and "
                  "current.json (cuda/gather: only in the current report;",
                  0) == 0);
  CHECK(why.find("cpu/fused: only in the baseline") != std::string::npos);
  CHECK(error_message([&] { check(cuda_only, cuda_only); }).find("nothing to compare") == 0);
}

TEST_CASE("bad gate options are refused before any comparison") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  auto refused = [](double tolerance, std::optional<double> ratio) {
    CheckOptions o = rules_only();
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
  const Json j = linear_report();
  CHECK_FALSE(error_message([&] { check(j, j, bad); }).empty());
}

TEST_CASE("configurations that differ are refused naming the difference, unless allowed") {
  RunResult run = synthetic_run();
  run.results[kGather] = timed_path(Path::gather, series(1.0), 0.0);
  run.results[kFused] = timed_path(Path::fused, series(1.0), 0.0);
  const Json median = build_report(readbench::test::with_statistic(run, Statistic::median),
                                   readbench::test::synthetic_host(), "2026-01-02T03:04:05Z");
  const std::string why = error_message([&] { check(linear_report(), median); });
  CHECK(why.find("nothing to compare") == 0);
  CHECK(why.find("configurations differ (statistic: baseline min, current median)") !=
        std::string::npos);
  CheckOptions allow = rules_only();
  allow.allow_config_mismatch = true;
  const CheckOutcome r = check(linear_report(), median, allow);
  CHECK(r.passed());
  CHECK(mentions(r.notes, "judged anyway (--allow-config-mismatch): statistic: baseline min"));

  Json f32 = linear_report();
  f32["config"]["dtype"] = f32["config"]["kv_dtype"] = "f32";
  const CheckRow g = row(check(linear_report(), f32, allow), "cpu/gather");
  CHECK(g.verdict == Verdict::ok);
  CHECK(error_message([&] {
          check(linear_report(), f32);
        }).find("workload: baseline bf16, B=1 Hq=32 Hkv=8 D=128 S=16, cold cache, current f32") !=
        std::string::npos);
}

TEST_CASE("a GPU model that differs refuses the GPU rows only") {
  Json base = linear_report();
  Json cur = linear_report();
  base["machine"]["gpus"] = Json::array({{{"name", "NVIDIA H200"}}});
  cur["machine"]["gpus"] = Json::array({{{"name", "NVIDIA H100"}}});
  Json cuda = base["results"][kFused];
  cuda["backend"] = "cuda";
  base["results"][3] = cuda;
  cur["results"][3] = cuda;
  const CheckOutcome r = check(base, cur);
  CHECK(row(r, "cpu/fused").verdict == Verdict::ok);
  const CheckRow c = row(r, "cuda/fused");
  CHECK(c.verdict == Verdict::skipped);
  CHECK(mentions(c.reasons, "GPU model: baseline NVIDIA H200, current NVIDIA H100"));
}

TEST_CASE("GPU models are compared device by device, each row against its own GPU") {
  Json base = linear_report();
  Json cur = linear_report();
  // Rows cuda:0 and cuda:1 in both reports (in place of the CPU rows).
  for (Json* r : {&base, &cur})
    for (int d : {0, 1}) (*r)["results"][d]["backend"] = "cuda:" + std::to_string(d);
  const auto gpus = [](std::vector<std::string> names) {
    Json out = Json::array();
    for (std::size_t i = 0; i < names.size(); ++i)
      out.push_back({{"index", i}, {"name", names[i]}});
    return out;
  };
  // Two H200s against four: the same model behind each row.
  base["machine"]["gpus"] = gpus({"NVIDIA H200", "NVIDIA H200"});
  cur["machine"]["gpus"] = gpus({"NVIDIA H200", "NVIDIA H200", "NVIDIA H200", "NVIDIA H200"});
  const CheckOutcome same = check(base, cur);
  CHECK(row(same, "cuda:0/gather").verdict == Verdict::ok);
  CHECK(row(same, "cuda:1/fused").verdict == Verdict::ok);
  // An A100 as device 0 of the baseline: only its row is refused, and the difference named is
  // that device's.
  base["machine"]["gpus"] = gpus({"NVIDIA A100", "NVIDIA H200"});
  cur["machine"]["gpus"] = gpus({"NVIDIA H200", "NVIDIA H200"});
  const CheckOutcome mixed = check(base, cur);
  const CheckRow zero = row(mixed, "cuda:0/gather");
  CHECK(zero.verdict == Verdict::skipped);
  CHECK(mentions(zero.reasons, "GPU model: baseline NVIDIA A100, current NVIDIA H200"));
  CHECK(row(mixed, "cuda:1/fused").verdict == Verdict::ok);
}

TEST_CASE("a GPU backend's launch that differs refuses its rows, naming both") {
  Json base = linear_report();
  Json cur = linear_report();
  Json cuda = base["results"][kFused];
  cuda["backend"] = "cuda";
  base["results"][3] = cuda;
  cur["results"][3] = cuda;
  Json cuda_gather = base["results"][kGather];
  cuda_gather["backend"] = "cuda";
  base["results"][2] = cuda_gather;
  cur["results"][2] = cuda_gather;
  const auto set_launch = [](Json& report, const std::string& launch) {
    for (Json& b : report["backends"])
      if (b["name"] == "cuda") b["launch"] = launch;
  };
  set_launch(base, "plain launches");
  set_launch(cur, "dependent launches");
  const CheckOutcome r = check(base, cur);
  CHECK(row(r, "cpu/fused").verdict == Verdict::ok);
  const CheckRow c = row(r, "cuda/fused");
  CHECK(c.verdict == Verdict::skipped);
  CHECK(mentions(c.reasons, "launch: baseline \"plain launches\", current \"dependent launches\""));
  CheckOptions allow = rules_only();
  allow.allow_config_mismatch = true;
  const CheckOutcome anyway = check(base, cur, allow);
  CHECK(row(anyway, "cuda/fused").verdict == Verdict::ok);
  CHECK(mentions(anyway.notes, "judged anyway (--allow-config-mismatch): launch: baseline"));
  std::size_t named = 0;  // once, though two paths of the backend differ by it
  for (const std::string& note : anyway.notes)
    for (std::size_t at = note.find("launch: baseline"); at != std::string::npos;
         at = note.find("launch: baseline", at + 1))
      ++named;
  CHECK(named == 1);
  // A plugin's path is not the backend's launch: its note says how its calls went.
  Json plugin = cuda;
  plugin["path"] = "plugin:example";
  base["results"].push_back(plugin);
  cur["results"].push_back(plugin);
  CHECK(row(check(base, cur), "cuda/plugin:example").verdict == Verdict::ok);
  // The same launch, or a report that does not say (written before it was recorded): judged.
  set_launch(cur, "plain launches");
  CHECK(row(check(base, cur), "cuda/fused").verdict == Verdict::ok);
  for (Json& b : cur["backends"]) b.erase("launch");
  CHECK(row(check(base, cur), "cuda/fused").verdict == Verdict::ok);
}

TEST_CASE("the markdown has a heading, one row per backend/path and the summary last") {
  Json cur = scripted(series(1.0), series(1.3, 0.01));
  cur["results"][2]["reason"] = "no device | driver";
  const std::string md = format_check_markdown(check(linear_report(), cur));
  CHECK(md.rfind("### readbench check: FAIL\n", 0) == 0);
  CHECK(md.find("| backend/path | lengths compared | baseline p [95% CI] | current p [95% CI] | "
                "Δp |") != std::string::npos);
  CHECK(md.find("| cpu/fused | 4: 256..16384 | 1.000 [1.000, 1.000] | 1.3") != std::string::npos);
  CHECK(md.find("| cpu/gather | 4: 256..16384 | 1.000 [1.000, 1.000] | 1.000 [1.000, 1.000] | "
                "+0.000 | linear |") != std::string::npos);
  CHECK(md.find("**REGRESSION**: exponent 1.3") != std::string::npos);
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
  const Json cur = scripted(series(1.0), series(1.0, 0, 3e-9));
  CheckOptions gate = rules_only();
  gate.max_cost_ratio = 2;
  const Json v = check_to_json(check(linear_report(), cur, gate));
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
  CHECK(fused["lengths"].size() == 4);
  CHECK(fused["current_compared"]["exponent"].is_number());
  CHECK(fused["baseline"]["fit"]["exponent"].is_number());
  CHECK(fused["baseline"]["fit"]["marginal_s"].is_number());
  CHECK(fused["current"]["fit"]["ci95"].size() == 2);
  const Json& cuda = v["rows"][3];
  CHECK(cuda["verdict"] == "skipped");
  CHECK(cuda["current"]["status"] == "unavailable");
  CHECK(cuda["current"]["fit"].is_null());
  CHECK(cuda["delta_exponent"].is_null());
  CHECK(cuda["current_compared"].is_null());

  const Json off = check_to_json(check(linear_report(), linear_report()));
  CHECK(off["pass"] == true);
  CHECK(off["verdict"] == "pass");
  CHECK(off["max_cost_ratio"].is_null());
}

// --- incomplete reports --------------------------------------------------------------------------

namespace {

// The linear report as a run a signal stopped would write it.
Json stopped_report() {
  Json j = linear_report();
  j["complete"] = false;
  j["signal"] = "SIGINT";
  return j;
}

}  // namespace

TEST_CASE("an incomplete current report or baseline cannot be judged unless allowed") {
  CHECK(error_message<CannotJudge>([] {
          check(linear_report(), stopped_report());
        }).find("the current report current.json is incomplete: stopped by SIGINT") !=
        std::string::npos);
  CHECK(error_message<CannotJudge>([] {
          check(stopped_report(), linear_report());
        }).find("the baseline base.json is incomplete") != std::string::npos);
  CHECK_NOTHROW(check(linear_report(), linear_report()));
}

TEST_CASE("with --allow incomplete an incomplete report is judged and the verdict says so") {
  CheckOptions o = rules_only();
  o.allow = parse_allowances("incomplete");
  const CheckOutcome r = check(linear_report(), stopped_report(), o);
  CHECK(r.passed());
  CHECK(r.incomplete_judged);
  CHECK(mentions(r.notes, "incomplete: stopped by SIGINT: judged anyway (--allow incomplete)"));
  CHECK(format_check_markdown(r).find("judged anyway") != std::string::npos);
  CHECK(format_check_summary(r).find("an incomplete report judged anyway") != std::string::npos);
  const Json j = check_to_json(r);
  CHECK(j["incomplete_judged"] == true);
  CHECK(j["allow"] == Json::array({"incomplete"}));
  CHECK_FALSE(check(linear_report(), linear_report(), o).incomplete_judged);
}

TEST_CASE("--allow takes incomplete and contended, comma-separated, and refuses other words") {
  const Allowances both = parse_allowances("contended,incomplete");
  CHECK(both.incomplete);
  CHECK(both.contended);
  CHECK(both.words() == std::vector<std::string>{"incomplete", "contended"});
  CHECK_FALSE(Allowances{}.incomplete);  // --allow not given
  CHECK(error_message([] { parse_allowances(""); }).find("empty") != std::string::npos);
  CHECK(error_message([] { parse_allowances("incomplete,noisy"); }).find("'noisy'") !=
        std::string::npos);
  CHECK(error_message([] { parse_allowances("incomplete,"); }) != "");
  // contended alone does not let an incomplete report through
  CheckOptions o = rules_only();
  o.allow = parse_allowances("contended");
  CHECK_THROWS_AS(check(linear_report(), stopped_report(), o), CannotJudge);
}

TEST_CASE("a report contended by more than its points cannot be judged unless --allow contended") {
  Json cur = linear_report();
  cur["quality"]["verdict"] = "contended";
  cur["quality"]["reasons"] = {"cuda: another process used the device during the sweep"};
  const std::string why = error_message<CannotJudge>([&] { check(linear_report(), cur); });
  CHECK(why.rfind("cannot judge: the current report current.json is contended (cuda: another", 0) ==
        0);
  CHECK(why.find("--allow contended judges it anyway") != std::string::npos);
  CHECK_THROWS_AS(check(cur, linear_report()), CannotJudge);  // a contended baseline too
  CheckOptions o = rules_only();
  o.allow = parse_allowances("contended,not-reached");
  const CheckOutcome r = check(linear_report(), cur, o);
  CHECK(r.passed());
  CHECK(r.contended_judged);
  CHECK(mentions(r.notes, "judged anyway (--allow contended)"));
  CHECK(format_check_summary(r).find("a contended report judged anyway") != std::string::npos);
}

TEST_CASE("a read ceiling that moved leaves exponents to judge but not costs") {
  Json cur = linear_report();
  cur["quality"]["verdict"] = "contended";
  cur["quality"]["reasons"] = {
      "cpu read ceiling moved from 20 GB/s before the sweep to 12 GB/s after it"};
  const CheckOutcome r = check(linear_report(), cur);
  CHECK(r.passed());
  CHECK(mentions(r.notes, "each row judged on its fitted region's points"));
  CheckOptions costs = rules_only();
  costs.max_cost_ratio = 1.5;
  CHECK(error_message<CannotJudge>([&] { check(linear_report(), cur, costs); })
            .find("read ceiling moved") != std::string::npos);
}

namespace {

// linear_report() with the fused row's points at `lengths` marked as having kept disturbed
// samples, and the report marked contended for them, as the sweep words it.
Json with_contended_points(const std::vector<double>& lengths) {
  Json cur = linear_report();
  for (auto& p : cur["results"][kFused]["points"])
    for (double len : lengths)
      if (p["length"].get<double>() == len) p["contended"] = true;
  cur["quality"]["verdict"] = "contended";
  cur["quality"]["reasons"] = {
      "cpu/fused: 2 of 4 points kept samples whose threads lost their cores (the budget ran out "
      "before clean ones replaced them)"};
  return cur;
}

}  // namespace

TEST_CASE("a disturbed point among clean neighbours does not make a report unjudgeable") {
  const CheckOutcome r = check(linear_report(), with_contended_points({256, 4096}));
  CHECK(r.judged());
  CHECK(r.passed());
  CHECK(r.contended.empty());
  CHECK(row(r, "cpu/fused").verdict == Verdict::ok);
}

TEST_CASE("neighbouring disturbed points in a fitted region leave that row unjudged, exit 4") {
  const CheckOutcome r = check(linear_report(), with_contended_points({1024, 4096}));
  CHECK(r.contended == std::vector<std::string>{"cpu/fused"});
  CHECK_FALSE(r.judged());
  CHECK_FALSE(r.passed());
  const CheckRow f = row(r, "cpu/fused");
  CHECK(f.verdict == Verdict::skipped);
  CHECK(f.reasons.front().find("L=1024 and L=4096") != std::string::npos);
  CHECK(row(r, "cpu/gather").verdict == Verdict::ok);  // the other row is still judged
  CHECK(format_check_summary(r).find("CANNOT JUDGE: 1 row (cpu/fused)") != std::string::npos);
  CheckOptions o = rules_only();
  o.allow.contended = true;
  CHECK(check(linear_report(), with_contended_points({1024, 4096}), o).passed());
}

TEST_CASE("disturbed points below the fitted region do not count against its row") {
  ReportResult r;
  for (double len : {256.0, 1024.0, 4096.0, 16384.0, 65536.0}) {
    ReportPoint p;
    p.length = len;
    p.contended = len < 4096;
    r.points.push_back(p);
  }
  r.fit = ReadFit{};
  r.fit->fit_from = 4096;
  CHECK(contended_points(r).empty());
  r.fit->fit_from = 256;
  CHECK(contended_points(r) == "L=256 and L=1024");
  r.points[1].contended = false;  // one disturbed point among clean neighbours
  CHECK(contended_points(r).empty());
}

// --- what the gate compared ---------------------------------------------------------------

namespace {

// t = 0.1 ms + 1 ns * L at 256..16384: the fixed cost is most of every time, so the fit is not
// at its asymptote (the share at 256 is 0.3%).
std::vector<std::pair<std::int64_t, double>> launch_bound() {
  std::vector<std::pair<std::int64_t, double>> pts;
  for (std::int64_t L = 256; L <= 16384; L *= 4) pts.emplace_back(L, 1e-4 + 1e-9 * double(L));
  return pts;
}

// Both paths linear, run on `threads` threads of a host described as `cpu_model`.
Json on_host(int threads, const std::string& cpu_model = "Test CPU") {
  RunResult run = synthetic_run();
  run.results[kGather] = timed_path(Path::gather, series(1.0), 0.0);
  run.results[kFused] = timed_path(Path::fused, series(1.0), 0.0);
  run.backends[0].details.threads = threads;
  HostInfo host = readbench::test::synthetic_host();
  host.cpu_model = cpu_model;
  return build_report(run, host, "2026-01-02T03:04:05Z");
}

}  // namespace

TEST_CASE("a row whose current fit is not at its asymptote is marked and is not a pass") {
  const Json cur = scripted(series(1.0), launch_bound());
  const CheckOutcome r = check(linear_report(), cur, CheckOptions{});
  const CheckRow f = row(r, "cpu/fused");
  CHECK(f.verdict == Verdict::ok);  // its exponent fell: no regression, but nothing to pass on
  CHECK(mentions(f.notes, "NOT REACHED: the current fit is not at its asymptote"));
  CHECK(r.not_reached == std::vector<std::string>{"cpu/fused"});
  CHECK_FALSE(r.passed());
  CHECK_FALSE(r.judged());
  CHECK(format_check_summary(r).rfind("readbench check: CANNOT JUDGE", 0) == 0);
  CHECK(check_to_json(r)["verdict"] == "not-judged");
  CHECK(format_check_markdown(r).find("NOT REACHED") != std::string::npos);

  const CheckOutcome a = check(linear_report(), cur, rules_only());
  CHECK(a.passed());
  CHECK(mentions(row(a, "cpu/fused").notes, "passed under --allow not-reached"));
  CHECK(parse_allowances("not-reached,contended").not_reached);
}

TEST_CASE("a regression on a row not at its asymptote still fails") {
  // Superlinear: the cost per token rises, so it is not reached; p = 1.5 against 1.
  const CheckOutcome r = check(linear_report(), scripted(series(1.0), series(1.5)));
  CHECK(row(r, "cpu/fused").verdict == Verdict::regression);
  CHECK(r.judged());
  CHECK_FALSE(r.passed());
}

namespace {

// The fused path timed at L = 1024 * factor^i with cost per token costs[i] ns and no fixed cost,
// as a read whose copy outgrows a machine's caches; the gather path exactly linear; `threads` as
// the host set-up's.
Json shaped(const std::vector<double>& costs, int threads = 2, std::int64_t factor = 4) {
  std::vector<std::pair<std::int64_t, double>> pts;
  std::int64_t L = 1024;
  for (const double c : costs) {
    pts.emplace_back(L, 1e-9 * c * double(L));
    L *= factor;
  }
  RunResult run = synthetic_run();
  run.results[kGather] = timed_path(Path::gather, series(1.0), std::nullopt);
  run.results[kFused] = timed_path(Path::fused, pts, std::nullopt);
  run.backends[0].details.threads = threads;
  return build_report(run, readbench::test::synthetic_host(), "2026-01-02T03:04:05Z");
}

// Cost per token rising by `step` ns every x4 from 1 ns at L=1024 to L=262144: a fit that
// misses its asymptote only because that cost has not settled (it rises least from 4096, by
// more than 25% for any step over 1/12).
Json outgrowing(double step, int threads = 2) {
  std::vector<double> costs;
  for (int i = 0; i < 5; ++i) costs.push_back(1 + step * i);
  return shaped(costs, threads);
}

}  // namespace

TEST_CASE("a current fit unsettled as its baseline is, on one set-up, is judged and can pass") {
  const Json base = outgrowing(0.125);
  const Report report = report_of(base);
  const ReadFit& fit = *report.find("cpu", "fused")->fit;
  REQUIRE_FALSE(fit.asymptote_reached);
  REQUIRE(fit.shortfall == Shortfall::unsettled);
  REQUIRE(only_unsettled(fit));
  REQUIRE(fit.fit_from == 4096);

  // Over 4096..262144 the baseline's cost per token rises 1.125..1.5 ns. Against the same; then
  // against 1.2..1.8 ns (the ratio 1.067..1.2, at most 5.6% above its mean, the exponent up
  // 0.03): alike, so compared, and passed. Likewise +33% against an exactly linear baseline at
  // its asymptote: the exponent up 0.07, within the tolerance, and the shapes alike.
  struct Case {
    double base_step, step, bend;
  };
  // No structured binding: clang 14 cannot capture one in CAPTURE's lambda.
  for (const Case c : {Case{0.125, 0.125, 1.0}, Case{0.125, 0.2, 1.0559}, Case{0.0, 0.125, 1.1494}}) {
    CAPTURE(c.base_step);
    CAPTURE(c.step);
    const CheckOutcome r = check(outgrowing(c.base_step), outgrowing(c.step), CheckOptions{});
    const CheckRow f = row(r, "cpu/fused");
    CHECK(f.verdict == Verdict::ok);
    CHECK(r.not_reached.empty());
    CHECK(r.passed());
    CHECK(mentions(f.notes, "judged though the current fit is not at its asymptote"));
    REQUIRE(f.extra_bend);
    CHECK(*f.extra_bend == doctest::Approx(c.bend).epsilon(0.001));
    const Json j = check_to_json(r)["rows"][1];
    REQUIRE(j["path"] == "fused");
    CHECK(j["extra_bend"].get<double>() == doctest::Approx(*f.extra_bend));
  }
  // One length between the first and the last departing alone (x1.45 at L=16384, its
  // neighbours in shape: a disturbed point) is left out of the shape, which the rest then
  // holds exactly; the note names it.
  const CheckOutcome bump =
      check(base, shaped({1, 1.125, 1.25 * 1.45, 1.375, 1.5}), CheckOptions{});
  const CheckRow b = row(bump, "cpu/fused");
  REQUIRE(b.delta_exponent);
  CHECK(std::abs(*b.delta_exponent) < 0.05);
  CHECK(bump.passed());
  CHECK(bump.not_reached.empty());
  REQUIRE(b.bend_left_out);
  CHECK(*b.bend_left_out == 16384);
  REQUIRE(b.extra_bend);
  CHECK(*b.extra_bend == doctest::Approx(1.0));
  CHECK(mentions(b.notes, "over the compared lengths but L=16384 (left out of that shape"));
  CHECK(check_to_json(bump)["rows"][1]["bend_left_out"] == 16384);
  CHECK(check_to_json(check(base, base))["rows"][1]["bend_left_out"].is_null());

  // Below as above: a length far under the rest (x0.3 at L=16384) is left out too; one under
  // it within the shape's margin (x0.74: the series departs 8% above its mean) is not.
  const CheckRow dip =
      row(check(base, shaped({1, 1.125, 1.25 * 0.3, 1.375, 1.5}), CheckOptions{}), "cpu/fused");
  REQUIRE(dip.verdict == Verdict::ok);
  REQUIRE(dip.lengths == std::vector<double>{4096, 16384, 65536, 262144});
  CHECK(dip.bend_left_out == std::optional<double>(16384));
  const CheckOutcome shallow = check(base, shaped({1, 1.125, 1.25 * 0.74, 1.375, 1.5}), CheckOptions{});
  REQUIRE(row(shallow, "cpu/fused").lengths.size() == 4);
  CHECK_FALSE(row(shallow, "cpu/fused").bend_left_out);
  CHECK(shallow.passed());

  // A row whose exponents were not compared (cuda/gather, unavailable) has no bend.
  const Json skipped = check_to_json(check(base, outgrowing(0.125)))["rows"][2];
  REQUIRE(skipped["verdict"] == "skipped");
  CHECK(skipped["extra_bend"].is_null());
}

TEST_CASE("a current fit that bends unlike its baseline, or on another set-up, stays marked") {
  // A jump at the last length (1.375 to 2.05 ns a token where the baseline goes to 1.5): the
  // ratio 1, 1, 1, 1.367, 26% above its mean, though the exponent is up only 0.07. The last
  // length is never left out; leaving out one of the in-shape lengths between would bring the
  // rest to 23%, but such a length departs from the rest's mean by 11% only: no disturbed point.
  const CheckOutcome late = check(outgrowing(0.125), shaped({1, 1.125, 1.25, 1.375, 2.05}),
                                  CheckOptions{});
  const CheckRow f = row(late, "cpu/fused");
  CHECK(f.verdict == Verdict::ok);
  REQUIRE(f.delta_exponent);
  CHECK(*f.delta_exponent < 0.1);
  REQUIRE(f.extra_bend);
  CHECK(*f.extra_bend == doctest::Approx(std::exp(std::log(2.05 / 1.5) * 0.75)).epsilon(0.001));
  CHECK_FALSE(f.bend_left_out);
  CHECK(late.not_reached == std::vector<std::string>{"cpu/fused"});
  CHECK_FALSE(late.judged());

  // Two neighbouring lengths departing (x1.6 at L=16384 and 65536, between 4096 and 262144):
  // a shape of its own, not a disturbed point; leaving out either leaves the other past the
  // margin.
  const CheckOutcome twice = check(outgrowing(0.125),
                                   shaped({1, 1.125, 1.25 * 1.6, 1.375 * 1.6, 1.5}), CheckOptions{});
  const CheckRow t = row(twice, "cpu/fused");
  REQUIRE(t.verdict == Verdict::ok);
  REQUIRE(t.lengths == std::vector<double>{4096, 16384, 65536, 262144});
  REQUIRE(t.extra_bend);
  CHECK(*t.extra_bend > 1.25);
  CHECK_FALSE(t.bend_left_out);
  CHECK(twice.not_reached == std::vector<std::string>{"cpu/fused"});

  // No one length explains an alternating series (ratios 1.9, 1, 1.9, 1): leaving out either
  // 1.9 brings the rest within the margin above its mean, but the last length lies 1.53x below.
  const CheckOutcome alternating =
      check(outgrowing(0.125), shaped({1, 1.125 * 1.9, 1.25, 1.375 * 1.9, 1.5}), CheckOptions{});
  const CheckRow alt = row(alternating, "cpu/fused");
  REQUIRE(alt.verdict == Verdict::ok);
  REQUIRE(alt.lengths == std::vector<double>{4096, 16384, 65536, 262144});
  CHECK_FALSE(alt.bend_left_out);
  CHECK(alternating.not_reached == std::vector<std::string>{"cpu/fused"});

  // Nor does a spike explain a series whose rest departs too (ratios 1, 2, 1, 1.45: without the
  // 2 the rest departs 1.28 times above its mean).
  const CheckOutcome two_off =
      check(outgrowing(0.125), shaped({1, 1.125, 1.25 * 2, 1.375, 1.5 * 1.45}), CheckOptions{});
  REQUIRE(row(two_off, "cpu/fused").lengths.size() == 4);
  CHECK_FALSE(row(two_off, "cpu/fused").bend_left_out);
  CHECK(two_off.not_reached == std::vector<std::string>{"cpu/fused"});

  // A spike that would hide an exponent rise stays in. On a x2 grid the current grows as
  // L^0.14 faster (past the tolerance) with x1.6 at L=4096, which pulls its exponent back to
  // +0.07; without that length the rest is in shape both ways, and its exponent up 0.14.
  std::vector<double> base2, rising;
  for (int i = 0; i < 5; ++i) {
    base2.push_back(1 + 0.125 * i);
    rising.push_back(base2.back() * std::pow(2.0, 0.14 * (i - 1)) * (i == 2 ? 1.6 : 1.0));
  }
  const CheckOutcome hidden = check(shaped(base2, 2, 2), shaped(rising, 2, 2), CheckOptions{});
  const CheckRow h = row(hidden, "cpu/fused");
  REQUIRE(h.verdict == Verdict::ok);
  REQUIRE(h.lengths == std::vector<double>{2048, 4096, 8192, 16384});
  REQUIRE(h.delta_exponent);
  REQUIRE(*h.delta_exponent < 0.1);
  CHECK_FALSE(h.bend_left_out);
  CHECK(hidden.not_reached == std::vector<std::string>{"cpu/fused"});

  // The same shape, but the exponent up more than the tolerance with a CI that reaches back
  // under it: noise for the exponent rule, too much for the exception.
  const CheckOutcome steep = check(outgrowing(0.125), outgrowing(0.6), CheckOptions{});
  const CheckRow s = row(steep, "cpu/fused");
  REQUIRE(s.extra_bend);
  REQUIRE(*s.extra_bend < 1.25);
  REQUIRE(s.delta_exponent);
  REQUIRE(*s.delta_exponent > 0.1);
  REQUIRE(s.verdict == Verdict::ok);
  CHECK(steep.not_reached == std::vector<std::string>{"cpu/fused"});

  // The same change on set-ups that differ says nothing about one machine's caches.
  CheckOptions mismatch;
  mismatch.allow_config_mismatch = true;
  const CheckOutcome apart = check(outgrowing(0.125, 2), outgrowing(0.125, 1), mismatch);
  CHECK(apart.not_reached == std::vector<std::string>{"cpu/fused"});
  CHECK(check(outgrowing(0.125, 2), outgrowing(0.125, 2), mismatch).passed());

  // A fit that misses its asymptote for a fixed cost is never judged so (launch_bound).
  CHECK_FALSE(check(linear_report(), scripted(series(1.0), launch_bound()), CheckOptions{})
                  .not_reached.empty());

  // Nor one against a baseline that missed it for another reason: three lengths, no region,
  // though of the current's very shape there.
  RunResult short_grid = synthetic_run();
  short_grid.results[kGather] = timed_path(Path::gather, series(1.0), std::nullopt);
  short_grid.results[kFused] = timed_path(
      Path::fused, {{4096, 1.125e-9 * 4096}, {16384, 1.25e-9 * 16384}, {65536, 1.375e-9 * 65536}},
      std::nullopt);
  REQUIRE(short_grid.results[kFused].fit->shortfall == Shortfall::small_region);
  const CheckOutcome small = check(json_of(short_grid), outgrowing(0.125), CheckOptions{});
  REQUIRE(row(small, "cpu/fused").verdict == Verdict::ok);
  REQUIRE(row(small, "cpu/fused").extra_bend);
  CHECK(*row(small, "cpu/fused").extra_bend == doctest::Approx(1.0));
  CHECK(small.not_reached == std::vector<std::string>{"cpu/fused"});
}

TEST_CASE("the thread count and CPU model are part of the configuration a CPU row must match") {
  CHECK(check(on_host(2), on_host(2)).passed());
  const std::string threads = error_message([] { check(on_host(2), on_host(1)); });
  CHECK(threads.find("threads: baseline 2, current 1") != std::string::npos);
  CHECK(threads.find("--allow-config-mismatch") != std::string::npos);
  const std::string model = error_message([] { check(on_host(2), on_host(2, "Other CPU")); });
  CHECK(model.find("CPU model: baseline Test CPU, current Other CPU") != std::string::npos);

  CheckOptions mismatch = rules_only();
  mismatch.allow_config_mismatch = true;
  const CheckOutcome r = check(on_host(2), on_host(1), mismatch);
  CHECK(r.passed());
  CHECK(mentions(r.notes, "threads: baseline 2, current 1"));
}
