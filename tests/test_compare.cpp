// `readbench compare` on synthetic reports: the common longest length, ratios to the
// first report, the rows of a backend/path some report lacks, the three output formats.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "report/compare.hpp"
#include "report_fixtures.hpp"
#include "test_support.hpp"

using namespace readbench;
using readbench::test::cells_of;
using readbench::test::error_message;
using readbench::test::lines_of;
using readbench::test::report_of;
using readbench::test::synthetic_run;
using readbench::test::timed_path;

namespace {

// Report A is the synthetic run: gather at 16, 64; fused at 16, 64, 256 (p = ln 3 / ln 4).
RunResult run_a() {
  return synthetic_run();
}

// Report B: the same gather; fused linear (0.1 us per token) at 16, 64, 128, 1024, and
// a timed cuda/fused where A has it unavailable.
RunResult run_b() {
  RunResult run = synthetic_run();
  run.results[1] =
      timed_path(Path::fused, {{16, 1.6e-6}, {64, 6.4e-6}, {128, 1.28e-5}, {1024, 1.024e-4}});
  run.results[3] = timed_path(Path::fused, {{16, 1e-7}, {64, 2.4e-7}});
  run.results[3].backend = "cuda";
  return run;
}

Comparison compare_ab() {
  return compare_reports(
      {report_of(run_a(), "hostA", "a.json"), report_of(run_b(), "hostB", "b.json")});
}

const CompareRow& row(const Comparison& c, const std::string& label) {
  for (const CompareRow& r : c.rows)
    if (r.label() == label) return r;
  FAIL("no row " << label);
  throw;
}

}  // namespace

TEST_CASE("compare takes each report's cost at the longest length every report timed") {
  const Comparison c = compare_ab();
  REQUIRE(c.rows.size() == 3);
  const CompareRow& fused = row(c, "cpu/fused");
  CHECK(fused.length == 64);  // A stops at 256, B has 128 and 1024 but not 256
  REQUIRE(fused.entries.size() == 2);
  CHECK(fused.entries[0].seconds == 3e-6);
  CHECK(fused.entries[0].per_token_s == doctest::Approx(3e-6 / 64).epsilon(1e-15));
  CHECK(fused.entries[1].seconds == 6.4e-6);
  CHECK(fused.entries[1].per_token_s == doctest::Approx(1e-7).epsilon(1e-15));
  CHECK(row(c, "cpu/gather").length == 64);
}

TEST_CASE("compare gives cost ratios and exponent differences against the first report") {
  const Comparison c = compare_ab();
  const CompareRow& fused = row(c, "cpu/fused");
  CHECK(*fused.entries[0].cost_ratio == 1);
  CHECK(*fused.entries[0].exponent_diff == 0);
  CHECK(*fused.entries[1].cost_ratio == doctest::Approx(6.4 / 3).epsilon(1e-15));
  const double pa = run_a().results[1].fit->power.exponent;
  const double pb = run_b().results[1].fit->power.exponent;
  CHECK(pb == doctest::Approx(1).epsilon(1e-12));
  CHECK(*fused.entries[1].exponent_diff == pb - pa);
  CHECK(fused.entries[1].fit->power.regime == Regime::linear);
  CHECK(fused.entries[0].fit->power.regime == Regime::sublinear);
  CHECK(*row(c, "cpu/gather").entries[1].cost_ratio == 1);
}

TEST_CASE("a backend/path unavailable or missing in a report shows why instead of numbers") {
  const Comparison c = compare_ab();
  const CompareRow& cuda = row(c, "cuda/fused");
  CHECK(cuda.length == 64);  // the longest length of the only report that timed it
  CHECK(cuda.entries[0].status == "unavailable");
  CHECK(cuda.entries[0].reason == "no CUDA device");
  CHECK_FALSE(cuda.entries[0].per_token_s);
  CHECK(cuda.entries[1].status == "ok");
  CHECK(*cuda.entries[1].per_token_s == doctest::Approx(2.4e-7 / 64).epsilon(1e-15));
  CHECK_FALSE(cuda.entries[1].cost_ratio);  // nothing in the first report to compare with
  CHECK_FALSE(cuda.entries[1].exponent_diff);

  RunResult a = run_a();
  a.results.erase(a.results.begin() + 3);  // no cuda/fused at all
  const Comparison m =
      compare_reports({report_of(a, "hostA", "a.json"), report_of(run_b(), "hostB", "b.json")});
  CHECK(row(m, "cuda/fused").entries[0].status == "missing");
}

TEST_CASE("the markdown table names reports by file and machine and shows ratio cells") {
  const std::string md = format_compare_markdown(compare_ab());
  const auto lines = lines_of(md);
  REQUIRE(lines.size() >= 14);
  CHECK(lines[0] ==
        "| backend/path | measure | a.json (hostA, Test CPU x2) | b.json (hostB, Test CPU x2) |");
  CHECK(lines[1] == "|---|---|---|---|");
  CHECK(lines[2] == "| cpu/gather | marginal ns/token (rank) | 125 #1 | 125 (×1.00) #1 |");
  CHECK(lines[3].rfind("| cpu/gather | fixed cost per call | ", 0) == 0);
  CHECK(lines[4] == "| cpu/gather | ns/token at L=64 | 125 | 125 (×1.00) |");
  CHECK(lines[5] ==
        "| cpu/gather | exponent p [95% CI] regime | 1.00 linear (asymptote not "
        "reached) | 1.00 linear (+0.00) (asymptote not reached) |");
  // a's fused has the lower marginal cost: rank 1, and b's is 2.83 times it.
  CHECK(lines[6] == "| cpu/fused | marginal ns/token (rank) | 35.3 #1 | 100 (×2.83) #2 |");
  // t0 = 460 ns from three points of a power law, its CI holding zero: not resolved, not a cost.
  CHECK(lines[7] == "| cpu/fused | fixed cost per call | ≈ 0 (not resolved, CI -1.27 µs .. "
                    "2.19 µs) | ≈ 0 (not resolved, CI 0 ns .. 0 ns) |");
  CHECK(lines[8] == "| cpu/fused | ns/token at L=64 | 46.9 | 100 (×2.13) |");
  CHECK(lines[9] ==
        "| cpu/fused | exponent p [95% CI] regime | 0.79 [0.79, 0.79] sublinear (asymptote not "
        "reached) | 1.00 [1.00, 1.00] linear (+0.21) |");
  CHECK(lines[10] ==
        "| cuda/fused | marginal ns/token (rank) | unavailable: no CUDA device | 2.92 #1 |");
  CHECK(lines[12] == "| cuda/fused | ns/token at L=64 | unavailable: no CUDA device | 3.75 |");
  CHECK(lines[13].rfind(
            "| cuda/fused | exponent p [95% CI] regime | unavailable: no CUDA device | 0.63", 0) ==
        0);
  CHECK(md.find("Marginal ns/token: b of t = t0 + b*L") != std::string::npos);
  CHECK(md.find("ns/token at L: the min time per call at L over L") != std::string::npos);
}

TEST_CASE("the CSV has one row per backend/path and report with numbers in their cells") {
  const auto lines = lines_of(format_compare_csv(compare_ab()));
  REQUIRE(lines.size() == 7);
  CHECK(lines[0] ==
        "backend,path,report,machine,statistic,length,status,reason,seconds,per_token_s,"
        "cost_ratio,exponent,ci95_low,ci95_high,regime,exponent_diff,marginal_s,marginal_ratio,"
        "rank,fixed_s,asymptote_reached");
  const auto b = cells_of(lines[4]);  // cpu/fused in b.json
  REQUIRE(b.size() == 21);
  CHECK(b[0] == "cpu");
  CHECK(b[1] == "fused");
  CHECK(b[2] == "b.json");
  CHECK(b[3] == "hostB");
  CHECK(b[4] == "min");
  CHECK(b[5] == "64");
  CHECK(b[6] == "ok");
  CHECK(b[8] == "6.4e-06");
  CHECK(b[9] == "1e-07");
  CHECK(b[10] == "2.13333333");
  CHECK(std::stod(b[11]) == doctest::Approx(1).epsilon(1e-9));
  CHECK(b[14] == "linear");
  CHECK(std::stod(b[16]) == doctest::Approx(1e-7).epsilon(1e-9));
  CHECK(b[18] == "2");
  CHECK(b[20] == "true");                // exactly linear over four lengths
  const auto cuda = cells_of(lines[5]);  // cuda/fused in a.json
  REQUIRE(cuda.size() == 21);
  CHECK(cuda[6] == "unavailable");
  CHECK(cuda[7] == "no CUDA device");
  for (int i : {8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}) CHECK(cuda[i] == "");
  const auto gather = cells_of(lines[1]);  // two points: no CI
  CHECK(gather[12] == "");
  CHECK(gather[13] == "");
}

TEST_CASE("CSV cells with commas are quoted") {
  RunResult b = run_b();
  GpuInfo gpu;
  gpu.name = "NVIDIA H200";
  b.backends[1].gpu = gpu;
  const auto lines = lines_of(format_compare_csv(
      compare_reports({report_of(run_a(), "hostA", "a.json"), report_of(b, "h,1", "b.json")})));
  CHECK(lines[2].find(",b.json,\"h,1 (NVIDIA H200)\",min,") != std::string::npos);
}

TEST_CASE("the JSON names the reports and gives every entry typed numbers or null") {
  const Json j = compare_to_json(compare_ab());
  REQUIRE(j["reports"].size() == 2);
  CHECK(j["reports"][1]["source"] == "b.json");
  CHECK(j["reports"][1]["machine"] == "hostB");
  CHECK(j["reports"][1]["statistic"] == "min");
  REQUIRE(j["rows"].size() == 3);
  const Json& fused = j["rows"][1];
  CHECK(fused["backend"] == "cpu");
  CHECK(fused["path"] == "fused");
  CHECK(fused["length"].is_number_integer());
  CHECK(fused["length"] == 64);
  const Json& b = fused["entries"][1];
  CHECK(b["source"] == "b.json");
  CHECK(b["status"] == "ok");
  CHECK(b["seconds"] == 6.4e-6);
  CHECK(b["cost_ratio"].get<double>() == doctest::Approx(6.4 / 3).epsilon(1e-15));
  CHECK(b["fit"]["exponent"].get<double>() == doctest::Approx(1).epsilon(1e-12));
  CHECK(b["fit"]["ci95"].size() == 2);
  CHECK(b["fit"]["regime"] == "linear");
  CHECK(b["fit"]["marginal_s"].get<double>() == doctest::Approx(1e-7).epsilon(1e-9));
  CHECK(b["exponent_diff"].is_number());
  CHECK(b["rank"] == 2);
  CHECK(b["marginal_ratio"].is_number());
  const Json& cuda = j["rows"][2]["entries"][0];
  CHECK(cuda["status"] == "unavailable");
  CHECK(cuda["reason"] == "no CUDA device");
  for (const char* k : {"seconds", "per_token_s", "cost_ratio", "marginal_ratio", "rank", "fit"})
    CHECK(cuda[k].is_null());
  CHECK(j["rows"][0]["entries"][0]["fit"]["ci95"].is_null());  // gather: two points, no CI
}

TEST_CASE("compare refuses fewer than two reports") {
  CHECK(error_message([] { compare_reports({report_of(run_a(), "hostA", "a.json")}); }) ==
        "compare needs at least two reports, got 1");
}

TEST_CASE("compare refuses reports with no backend/path timed in all of them") {
  RunResult b = run_b();
  b.results.erase(b.results.begin(), b.results.begin() + 2);  // only cuda/fused left timed
  CHECK(error_message([&] {
          compare_reports({report_of(run_a(), "hostA", "a.json"), report_of(b, "hostB", "b.json")});
        }) == "no backend/path is timed in every report");
}

TEST_CASE("a backend/path whose reports share no length keeps its exponents, without a cost") {
  RunResult b = run_b();
  b.results[1] = timed_path(Path::fused, {{512, 1e-5}, {1024, 2e-5}});
  const Comparison c =
      compare_reports({report_of(run_a(), "hostA", "a.json"), report_of(b, "hostB", "b.json")});
  const CompareRow& fused = row(c, "cpu/fused");
  CHECK_FALSE(fused.length);
  for (const CompareEntry& e : fused.entries) {
    CHECK(e.status == "ok");
    CHECK_FALSE(e.per_token_s);
    CHECK_FALSE(e.cost_ratio);
    REQUIRE(e.fit);
  }
  CHECK(*fused.entries[1].exponent_diff == doctest::Approx(1.0 - std::log(3.0) / std::log(4.0)));
  CHECK(row(c, "cpu/gather").length == 64);  // the other rows are unaffected
  const std::string md = format_compare_markdown(c);
  CHECK(md.find("| cpu/fused | ns/token (no length timed in common) | - | - |") !=
        std::string::npos);
  CHECK(compare_to_json(c)["rows"][1]["length"].is_null());
}

TEST_CASE("a report fitted on medians among reports on mins compares its marginal cost on mins") {
  // The same run twice, the second fitted on its medians (1.5x the mins): costs and marginal
  // costs both compare mins, so every ratio is 1; each exponent stays its report's own.
  const Comparison c = compare_reports(
      {report_of(run_a(), "hostA", "a.json"),
       report_of(readbench::test::with_statistic(run_a(), Statistic::median), "hostA", "m.json")});
  CHECK(c.statistic == Statistic::min);
  const CompareRow& fused = row(c, "cpu/fused");
  REQUIRE(fused.entries.size() == 2);
  REQUIRE(fused.entries[1].marginal_ratio.has_value());
  CHECK(*fused.entries[1].marginal_ratio == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(*fused.entries[1].cost_ratio == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(fused.entries[1].fit->affine.fixed_s ==
        doctest::Approx(fused.entries[0].fit->affine.fixed_s).epsilon(1e-9));
  CHECK(format_compare_markdown(c).find("so costs, marginal and fixed costs compare mins") !=
        std::string::npos);
}

TEST_CASE("column heads name the host with its threads and CPU and a note says where set-ups differ") {
  RunResult a = run_a(), b = run_a();
  a.backends[0].details.threads = 2;
  b.backends[0].details.threads = 1;
  // Both on a host named vm, both files named r.json: heads that would read alike are numbered.
  const Comparison same =
      compare_reports({report_of(a, "vm", "r.json"), report_of(a, "vm", "r.json")});
  const auto heads = lines_of(format_compare_markdown(same))[0];
  CHECK(heads ==
        "| backend/path | measure | #1 r.json (vm, 2 threads, Test CPU x2) | #2 r.json (vm, 2 "
        "threads, Test CPU x2) |");
  const std::string md = format_compare_markdown(
      compare_reports({report_of(a, "vm", "a.json"), report_of(b, "vm", "b.json")}));
  CHECK(md.find("a.json (vm, 2 threads, Test CPU x2)") != std::string::npos);
  CHECK(md.find("b.json (vm, 1 thread, Test CPU x2)") != std::string::npos);
  CHECK(md.find("the set-ups differ, a.json (baseline) against b.json (current): threads: "
                "baseline 2, current 1") != std::string::npos);
  CHECK(format_compare_markdown(same).find("set-ups differ") == std::string::npos);
}

TEST_CASE("compare shows a fixed cost whose CI holds zero as not resolved and never negative") {
  RunResult b = run_a();
  // Noise whose line undercuts zero (asymptote_fit's test of the same points).
  b.results[1] = timed_path(
      Path::fused, {{1024, 0.003829}, {4096, 0.0003664}, {16384, 0.007866}, {65536, 0.0147}});
  REQUIRE(b.results[1].fit->affine.fixed_s < 0);
  const std::string md = format_compare_markdown(
      compare_reports({report_of(run_a(), "hostA", "a.json"), report_of(b, "hostB", "b.json")}));
  std::string fixed_line;
  for (const std::string& l : lines_of(md))
    if (l.rfind("| cpu/fused | fixed cost per call", 0) == 0) fixed_line = l;
  CAPTURE(fixed_line);
  CHECK((fixed_line.find("≈ 0 (not resolved") != std::string::npos ||
         fixed_line.find("none (t0 =") != std::string::npos));
  CHECK(fixed_line.find("| -") == std::string::npos);
}
