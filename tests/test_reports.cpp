// Reports from a synthetic run (no timing): the JSON report, the CSV, the atomic
// writer, and the points `readbench fit` reads.
#include <doctest/doctest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/power_law_fit.hpp"
#include "core/printable.hpp"
#include "measure/results.hpp"
#include "report/atomic_write.hpp"
#include "report/csv.hpp"
#include "report/csv_report.hpp"
#include "report/format.hpp"
#include "report/json_report.hpp"
#include "report/points_input.hpp"
#include "report/report_input.hpp"
#include "report/text_report.hpp"
#include "report_fixtures.hpp"
#include "test_support.hpp"

using namespace readbench;
using readbench::test::cells_of;
using readbench::test::error_message;
using readbench::test::lines_of;
using readbench::test::synthetic_host;
using readbench::test::synthetic_report;
using readbench::test::synthetic_run;
using readbench::test::TempDir;
using readbench::test::with_statistic;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// The error reading synthetic_report() back as base.json once `spoil` has edited it.
std::string refused(const std::function<void(Json&)>& spoil) {
  Json j = synthetic_report();
  spoil(j);
  return error_message([&] { parse_report(j.dump(), "base.json"); });
}

}  // namespace

// --- JSON report ----------------------------------------------------------------------

TEST_CASE("the report carries schema version, tool, timestamp and machine with typed fields") {
  const Json j = synthetic_report();
  CHECK(j["schema_version"] == kSchemaVersion);
  CHECK(j["schema_version"].is_number_integer());
  CHECK(j["tool"]["name"] == "readbench");
  CHECK(j["tool"]["version"].is_string());
  CHECK(j["tool"]["git_commit"].is_string());
  CHECK(j["created_at"] == "2026-01-02T03:04:05Z");
  const Json& m = j["machine"];
  CHECK(m["hostname"] == "testhost");
  CHECK(m["os"].is_string());
  CHECK(m["cpu"]["model"] == "Test CPU");
  CHECK(m["cpu"]["cores"].is_number_integer());
  CHECK(m["memory_bytes"].is_number_integer());
  CHECK(m["gpus"].is_array());
  CHECK(m["gpus"].empty());
  REQUIRE(m["bandwidths"].size() == 1);  // only backends that ran measured a ceiling
  CHECK(m["bandwidths"][0]["backend"] == "cpu");
  CHECK(m["bandwidths"][0]["read_gbps"].is_number());
  CHECK(m["bandwidths"][0]["copy_gbps"].is_number());
}

TEST_CASE("the report's config records every option that changes a number") {
  const Json c = synthetic_report()["config"];
  for (const char* key : {"backend", "paths", "lengths", "batch", "q_heads", "kv_heads", "head_dim",
                          "block_size", "dtype", "cache", "noise_target", "min_samples", "budget_s",
                          "statistic", "fit_from", "threads", "device", "seed"}) {
    CAPTURE(key);
    CHECK(c.contains(key));
  }
  CHECK(c["lengths"] == Json::array({16, 64, 256}));
  CHECK(c["dtype"] == "bf16");
  CHECK(c["noise_target"].is_number_float());
}

TEST_CASE("each backend appears with its status and reason") {
  const Json b = synthetic_report()["backends"];
  REQUIRE(b.size() == 2);
  CHECK(b[0]["name"] == "cpu");
  CHECK(b[0]["status"] == "ok");
  CHECK(b[0]["timer_resolution_s"].is_number());
  CHECK(b[1]["name"] == "cuda");
  CHECK(b[1]["status"] == "unavailable");
  CHECK(b[1]["reason"] == "no CUDA device");
}

TEST_CASE("each point carries its statistics as JSON numbers") {
  const Json r = synthetic_report()["results"][1];
  CHECK(r["backend"] == "cpu");
  CHECK(r["path"] == "fused");
  CHECK(r["status"] == "ok");
  CHECK(r["reason"] == "");
  REQUIRE(r["checks"].size() == 1);
  CHECK(r["checks"][0]["passed"] == true);
  CHECK(r["checks"][0]["error"].is_number());
  REQUIRE(r["points"].size() == 3);
  const Json& p = r["points"][0];
  CHECK(p["length"] == 16);
  CHECK(p["length"].is_number_integer());
  CHECK(p["samples"] == 5);
  for (const char* key :
       {"min_s", "median_s", "mean_s", "stddev_s", "max_s", "gbps", "ceiling_fraction"}) {
    CAPTURE(key);
    CHECK(p[key].is_number_float());
  }
  CHECK(p["min_s"] == 1e-6);
  CHECK(p["median_s"] == 1.5e-6);
  CHECK(p["bytes"].is_number_integer());
  CHECK(
      p["bytes"] ==
      bytes_per_call(Workload{Shape{}, DType::bf16, 16, 1, 0, std::nullopt}, Path::fused).total());
}

TEST_CASE("a fit of three points has a numeric CI and stderr") {
  const Json f = synthetic_report()["results"][1]["fit"];
  REQUIRE(f.is_object());
  for (const char* key :
       {"exponent", "constant", "r2", "stderr", "per_token_s", "longest_length", "fit_from"}) {
    CAPTURE(key);
    CHECK(f[key].is_number());
  }
  REQUIRE(f["ci95"].is_array());
  REQUIRE(f["ci95"].size() == 2);
  CHECK(f["ci95"][0].get<double>() < f["exponent"].get<double>());
  CHECK(f["ci95"][1].get<double>() > f["exponent"].get<double>());
  CHECK_FALSE(f.contains("ci95_reason"));
  CHECK(f["n_points"] == 3);
  CHECK(f["n_points"].is_number_integer());
  CHECK(f["regime"].is_string());
  CHECK(f["asymptote_reached"].is_boolean());
  REQUIRE(f["segments"].size() == 2);
  CHECK(f["segments"][0]["from_length"] == 16);
  CHECK(f["segments"][0]["exponent"].is_number());
  CHECK(f["per_token_s"].get<double>() == doctest::Approx(9e-6 / 256).epsilon(1e-12));
}

TEST_CASE("a fit of two points has a null CI and stderr, with the reason") {
  const Json f = synthetic_report()["results"][0]["fit"];
  REQUIRE(f.is_object());
  CHECK(f["ci95"].is_null());
  CHECK(f["stderr"].is_null());
  REQUIRE(f["ci95_reason"].is_string());
  CHECK_FALSE(f["ci95_reason"].get<std::string>().empty());
  CHECK(f["n_points"] == 2);
  CHECK(f["exponent"].get<double>() == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(f["regime"] == "linear");
}

TEST_CASE("an unavailable path has a null fit, no points and says why") {
  const Json r = synthetic_report()["results"][2];
  CHECK(r["backend"] == "cuda");
  CHECK(r["status"] == "unavailable");
  CHECK(r["reason"] == "no CUDA device");
  CHECK(r["points"].empty());
  CHECK(r["fit"].is_null());
  CHECK(r["fit_error"].is_string());
}

TEST_CASE("speedups list gather over fused per backend and length") {
  const Json s = synthetic_report()["speedups"];
  REQUIRE(s.size() == 2);
  CHECK(s[0]["backend"] == "cpu");
  CHECK(s[0]["length"] == 16);
  CHECK(s[0]["speedup"] == 2.0);
  CHECK(s[1]["gather_s"] == 8e-6);
}

TEST_CASE("the fit object of `fit --json` is the one in the report") {
  const RunResult run = synthetic_run();
  CHECK(fit_to_json(*run.results[1].fit) == synthetic_report()["results"][1]["fit"]);
}

// --- CSV ------------------------------------------------------------------------------

TEST_CASE("the CSV has a header and one row per timed point") {
  const auto lines = lines_of(build_csv(synthetic_run()));
  REQUIRE(lines.size() == 1 + 2 + 3);  // unavailable paths have no points
  const auto header = cells_of(lines[0]);
  CHECK(header.front() == "backend");
  for (const char* col : {"path", "length", "min_s", "median_s", "exponent", "per_token_s"}) {
    CAPTURE(col);
    CHECK(std::find(header.begin(), header.end(), col) != header.end());
  }
  for (std::size_t i = 1; i < lines.size(); ++i) {
    CAPTURE(lines[i]);
    CHECK(cells_of(lines[i]).size() == header.size());
  }
}

TEST_CASE("every CSV row repeats its path's exponent and per-token cost") {
  const RunResult run = synthetic_run();
  const auto lines = lines_of(build_csv(run));
  const auto header = cells_of(lines[0]);
  const auto col = [&](const char* name) {
    return std::size_t(std::find(header.begin(), header.end(), name) - header.begin());
  };
  const double fused_p = run.results[1].fit->power.exponent;
  const double fused_cost = run.results[1].fit->power.per_token_s;
  int fused_rows = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto cells = cells_of(lines[i]);
    if (cells[col("path")] != "fused") continue;
    ++fused_rows;
    CHECK(cells[col("backend")] == "cpu");
    CHECK(std::stod(cells[col("exponent")]) == doctest::Approx(fused_p).epsilon(1e-8));
    CHECK(std::stod(cells[col("per_token_s")]) == doctest::Approx(fused_cost).epsilon(1e-8));
  }
  CHECK(fused_rows == 3);
}

TEST_CASE("CSV rows of a path without a fit leave the fit columns empty") {
  RunResult run = synthetic_run();
  run.results[1].fit.reset();
  const auto lines = lines_of(build_csv(run));
  const auto header = cells_of(lines[0]);
  const std::size_t exponent =
      std::size_t(std::find(header.begin(), header.end(), "exponent") - header.begin());
  const auto row = cells_of(lines.back());  // a fused row
  REQUIRE(row.size() == header.size());
  CHECK(row[exponent].empty());
}

TEST_CASE("strprintf cuts nothing short") {
  const std::string reason(2000, 'x');
  CHECK(strprintf("why: %s.", reason.c_str()) == "why: " + reason + ".");
  CHECK(strprintf("%.0f", 1e300).size() == 301);
  CHECK(strprintf("%s", "").empty());
  CHECK(strprintf("%d ns", 42) == "42 ns");
}

TEST_CASE("a CSV cell round-trips whatever it holds") {
  const std::vector<std::string> cells = {"cpu", "",  "a,b",        "say \"hi\"", " edge ",
                                          "\"",  ",", "line\rfeed", "1e-09",      "\"\""};
  std::string line;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) line += ',';
    line += csv_cell(cells[i]);
  }
  CHECK(split_csv_line(line, "here") == cells);
  CHECK(csv_cell("plain") == "plain");
  CHECK(csv_cell("a,b") == "\"a,b\"");
  CHECK(csv_cell("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_number(std::nullopt).empty());
  CHECK(csv_number(1e-9) == "1e-09");
}

TEST_CASE("a CSV line with a quote left open or text after a closing quote is an error") {
  CHECK(error_message([] { split_csv_line("1,\"open", "CSV line 3"); }) ==
        "CSV line 3: a quoted cell is never closed");
  CHECK(error_message([] { split_csv_line("\"a\"b,2", "CSV line 4"); }) ==
        "CSV line 4: text after a quoted cell's closing quote: 'b'");
  CHECK(split_csv_line("  \"a\"  ,b", "x") == std::vector<std::string>{"a", "b"});
}

TEST_CASE("every CSV row says where it came from and what its fit is and reads back") {
  RunResult run = synthetic_run();
  run.backends[0].details.threads = 2;
  run.quality.contended = true;
  const std::string csv = build_csv(run, "host, with a comma");
  const auto lines = lines_of(csv);
  const auto header = cells_of(lines[0]);
  for (const char* col : {"threads", "host", "commit", "quality", "ci95_low", "ci95_high",
                          "fit_from", "fixed_resolved"}) {
    CAPTURE(col);
    CHECK(std::count(header.begin(), header.end(), col) == 1);
  }
  // The host's comma is quoted, so the row still splits into the header's columns.
  CHECK(lines[1].find(",\"host, with a comma\",") != std::string::npos);
  CHECK(lines[1].find(",contended,") != std::string::npos);
  std::vector<std::string> cells = split_csv_line(lines.back(), "x");  // a fused row: a CI
  REQUIRE(cells.size() == header.size());
  const auto at = [&](const char* name) {
    return cells[std::size_t(std::find(header.begin(), header.end(), name) - header.begin())];
  };
  CHECK(at("threads") == "2");
  CHECK(std::stod(at("ci95_low")) == doctest::Approx(*run.results[1].fit->power.ci95_low));
  CHECK(std::stod(at("fit_from")) == run.results[1].fit->fit_from);
  const auto series = parse_points(csv);
  REQUIRE(series.size() == 2);
  CHECK(series[1].points.size() == 3);
}

TEST_CASE("the run CSV reads back as one series per path with the configured statistic") {
  for (Statistic stat : {Statistic::min, Statistic::median}) {
    CAPTURE(to_string(stat));
    RunResult run = synthetic_run();
    run.config.statistic = stat;
    for (PathResult& r : run.results)
      for (PointResult& p : r.points)
        p.seconds =
            stat == Statistic::min ? p.measurement.per_call.min : p.measurement.per_call.median;
    const auto series = parse_points(build_csv(run));
    std::vector<const PathResult*> timed;
    for (const PathResult& r : run.results)
      if (!r.points.empty()) timed.push_back(&r);
    REQUIRE(series.size() == timed.size());
    for (std::size_t i = 0; i < series.size(); ++i) {
      CHECK(series[i].label == timed[i]->backend + "/" + std::string(to_string(timed[i]->path)));
      REQUIRE(series[i].points.size() == timed[i]->points.size());
      for (std::size_t j = 0; j < series[i].points.size(); ++j) {
        CHECK(series[i].points[j].length == double(timed[i]->points[j].length));
        CHECK(series[i].points[j].seconds ==
              doctest::Approx(timed[i]->points[j].seconds).epsilon(1e-8));
      }
    }
  }
}

// --- write_atomically / check_writable ------------------------------------------------------

TEST_CASE("an atomic write creates the file with its content and leaves no temporary") {
  TempDir dir;
  const std::string target = (dir.path / "report.json").string();
  write_atomically(target, "{\"a\": 1}\n");
  CHECK(slurp(target) == "{\"a\": 1}\n");
  CHECK(dir.entries() == std::vector<std::string>{"report.json"});
}

TEST_CASE("an atomic write replaces an existing file") {
  TempDir dir;
  const std::string target = (dir.path / "report.json").string();
  write_atomically(target, "old");
  write_atomically(target, "new");
  CHECK(slurp(target) == "new");
  CHECK(dir.entries().size() == 1);
}

TEST_CASE("an atomic write into a missing directory fails naming the path") {
  TempDir dir;
  const std::string target = (dir.path / "missing" / "report.json").string();
  const std::string msg = error_message([&] { write_atomically(target, "x"); });
  CHECK(msg.find(target) != std::string::npos);
  CHECK(msg.find("does not exist") != std::string::npos);
  CHECK(dir.entries().empty());
}

TEST_CASE("a write that fails midway leaves the old file unchanged and no temporary") {
  // The file-size limit makes write() fail with EFBIG after the temporary file is created,
  // even for root; SIGXFSZ is ignored so the failure is an error, not a kill.
  TempDir dir;
  const std::string target = (dir.path / "report.json").string();
  write_atomically(target, "previous report");

  rlimit old_limit{};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old_limit) == 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old_limit;
  small.rlim_cur = 4096;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  const std::string msg =
      error_message([&] { write_atomically(target, std::string(100000, 'x')); });
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);

  CHECK(msg.find(target) != std::string::npos);
  CHECK(slurp(target) == "previous report");
  CHECK(dir.entries() == std::vector<std::string>{"report.json"});
}

TEST_CASE("writing over a directory fails and leaves it in place") {
  TempDir dir;
  fs::create_directory(dir.path / "sub");
  const std::string target = (dir.path / "sub").string();
  CHECK(error_message([&] { write_atomically(target, "x"); }).find("is a directory") !=
        std::string::npos);
  CHECK(fs::is_directory(target));
}

TEST_CASE("check_writable accepts stdout and a file in an existing directory") {
  TempDir dir;
  CHECK_NOTHROW(check_writable("-"));
  CHECK_NOTHROW(check_writable((dir.path / "new.json").string()));
  CHECK(dir.entries().empty());  // checking creates nothing
}

TEST_CASE("check_writable rejects an empty path, a missing directory and a directory") {
  TempDir dir;
  CHECK(error_message([] { check_writable(""); }).find("empty") != std::string::npos);
  CHECK(error_message([] {
          check_writable("/nonexistent-readbench-dir/x.json");
        }).find("does not exist") != std::string::npos);
  CHECK(error_message([&] { check_writable(dir.path.string()); }).find("is a directory") !=
        std::string::npos);
}

// --- parse_points ---------------------------------------------------------------------------

TEST_CASE("CSV points are read by header name, ignoring other columns and quotes") {
  const auto s = parse_points(
      "\"seconds\",note,\"length\"\n"
      "1e-6,first,16\n"
      "\"2.5e-6\",\"second\",\"64\"\r\n"
      "\n"
      "4e-6,third,256\n");
  REQUIRE(s.size() == 1);
  CHECK(s[0].label.empty());
  REQUIRE(s[0].points.size() == 3);
  CHECK(s[0].points[0].length == 16);
  CHECK(s[0].points[0].seconds == 1e-6);
  CHECK(s[0].points[1].length == 64);
  CHECK(s[0].points[1].seconds == 2.5e-6);
  CHECK(s[0].points[2].length == 256);
}

TEST_CASE(
    "CSV numbers are decimal, and rows may leave off empty columns but add none that hold text") {
  // A quoted cell keeps its spaces through the CSV reader: the number is read without them.
  const auto s = parse_points("length,seconds,note\n16,\" 1e-6 \"\n+64,4e-6,x,\n");
  REQUIRE(s.size() == 1);
  REQUIRE(s[0].points.size() == 2);
  CHECK(s[0].points[0].seconds == 1e-6);
  CHECK(s[0].points[1].length == 64);
  CHECK(error_message([] { parse_points("length,seconds\n0x10,1e-6\n"); }) ==
        "the input: CSV line 2: length '0x10' is not a number");
  CHECK(error_message([] { parse_points("length,seconds\n16,1e-6,extra\n"); }) ==
        "the input: CSV line 2: expected 2 columns, got 3");
  CHECK(error_message([] { parse_points("length,seconds,note\n16\n"); }) ==
        "the input: CSV line 2: expected 3 columns, got 1");
  // Past a double's range: read as strtod reads it, for the fit's guards to name.
  CHECK(parse_points("length,seconds\n16,1e-400\n")[0].points[0].seconds == 0.0);
}

TEST_CASE("a CSV saved with a UTF-8 byte-order mark is read like one without") {
  const auto s = parse_points("\xEF\xBB\xBFlength,seconds\n16,1e-6\n64,4e-6\n");
  REQUIRE(s.size() == 1);
  REQUIRE(s[0].points.size() == 2);
  CHECK(s[0].points[1].length == 64);
}

TEST_CASE("a JSON array of length and seconds objects is read in order") {
  const auto s = parse_points(R"([{"length": 16, "seconds": 1e-6, "note": "x"},
                                  {"length": 64, "seconds": 4e-6}])");
  REQUIRE(s.size() == 1);
  REQUIRE(s[0].points.size() == 2);
  CHECK(s[0].points[1].length == 64);
  CHECK(s[0].points[1].seconds == 4e-6);
}

TEST_CASE("a report is read as one series per timed result, skipping unavailable ones") {
  const auto s = parse_points(synthetic_report().dump());
  REQUIRE(s.size() == 2);
  CHECK(s[0].label == "cpu/gather");
  CHECK(s[1].label == "cpu/fused");
  REQUIRE(s[1].points.size() == 3);
  CHECK(s[1].points[2].length == 256);
  CHECK(s[1].points[2].seconds == 9e-6);  // min_s: the report's statistic
  // Re-fitting gives back each result's exponent.
  CHECK(fit_power_law(s[0].points).exponent == doctest::Approx(1.0).epsilon(1e-12));
  const RunResult run = synthetic_run();
  CHECK(fit_power_law(s[1].points).exponent ==
        doctest::Approx(run.results[1].fit->power.exponent).epsilon(1e-12));
}

TEST_CASE("a report whose statistic is the median is re-fitted on medians") {
  const RunResult run = with_statistic(synthetic_run(), Statistic::median);
  const auto s = parse_points(build_report(run, synthetic_host(), "2026-01-02T03:04:05Z").dump());
  REQUIRE(s.size() == 2);
  CHECK(s[1].points[0].seconds == 1.5e-6);
}

TEST_CASE("empty input is rejected") {
  CHECK(error_message([] { parse_points("", "p.csv"); }) == "p.csv is empty");
  CHECK(error_message([] { parse_points(" \n\t\n"); }) == "the input is empty");
}

TEST_CASE("every error reading points names the file") {
  CHECK(error_message([] { parse_points("length,seconds\n16,x\n", "p.csv"); }) ==
        "p.csv: CSV line 2: seconds 'x' is not a number");
  CHECK(error_message([] { parse_points("[1]", "p.json"); }) ==
        "p.json: element[0] is not an object");
  for (const char* scalar : {"null", "42", "\"x\""})
    CHECK(error_message([&] { parse_points(scalar, "p.json"); }).find("p.json: a JSON ") == 0);
  CHECK(error_message([] { parse_points("null", "p.json"); }) ==
        "p.json: a JSON null is neither an array of points nor a readbench report");
}

TEST_CASE("a CSV header that names a column it reads twice is refused") {
  for (const char* header : {"length,length,seconds", "length,seconds,seconds",
                             "backend,path,backend,length,seconds", "path,length,path,seconds"})
    CHECK(error_message([&] {
            parse_points(std::string(header) + "\n", "p.csv");
          }).find("p.csv: CSV line 1: the header names '") == 0);
  CHECK(error_message([] { parse_points("length,length,seconds\n", "p.csv"); }) ==
        "p.csv: CSV line 1: the header names 'length' twice");
}

TEST_CASE("CSV without a length,seconds header is rejected") {
  CHECK(error_message([] { parse_points("16,1e-6\n64,4e-6\n"); }).find("header") !=
        std::string::npos);
  CHECK(error_message([] { parse_points("length,time\n16,1e-6\n"); }).find("'seconds'") !=
        std::string::npos);
}

TEST_CASE("a non-numeric CSV cell is rejected naming the line and the cell") {
  const std::string msg = error_message([] { parse_points("length,seconds\n16,1e-6\n64,fast\n"); });
  CHECK(msg.find("line 3") != std::string::npos);
  CHECK(msg.find("'fast'") != std::string::npos);
}

TEST_CASE("a CSV row with too few cells is rejected naming the line") {
  const std::string msg = error_message([] { parse_points("length,seconds\n16\n"); });
  CHECK(msg.find("line 2") != std::string::npos);
}

TEST_CASE("NaN and infinity in CSV reach the fit, whose guards name them") {
  const auto s = parse_points("length,seconds\n16,nan\n64,inf\n");
  REQUIRE(s[0].points.size() == 2);
  CHECK_THROWS_AS(fit_power_law(s[0].points), BadTime);
}

TEST_CASE("malformed JSON is rejected") {
  CHECK(error_message([] { parse_points("[{\"length\": 16,"); }).find("malformed JSON") !=
        std::string::npos);
}

TEST_CASE("a JSON array element that is not a points object is rejected naming it") {
  CHECK(error_message([] { parse_points("[1, 2]"); }).find("element[0]") != std::string::npos);
  CHECK(error_message([] { parse_points(R"([{"length": 16}])"); }).find("'seconds'") !=
        std::string::npos);
  CHECK(error_message([] {
          parse_points(R"([{"length": "16", "seconds": 1e-6}])");
        }).find("not a number") != std::string::npos);
}

TEST_CASE("a JSON object that is not a report is rejected") {
  CHECK(error_message([] { parse_points(R"({"points": []})"); }).find("not a readbench report") !=
        std::string::npos);
}

TEST_CASE("a report with nothing timed is rejected") {
  RunResult run = synthetic_run();
  run.results.erase(run.results.begin(), run.results.begin() + 2);
  CHECK(error_message([&] {
          parse_points(build_report(run, synthetic_host(), "2026-01-02T03:04:05Z").dump());
        }).find("no timed points") != std::string::npos);
}

TEST_CASE("a report reads back with its results, points and fits as written") {
  const RunResult run = synthetic_run();
  const Report rep = parse_report(synthetic_report().dump(), "r.json");
  CHECK(rep.source == "r.json");
  CHECK(rep.machine == "testhost");
  CHECK(rep.statistic == Statistic::min);
  CHECK(rep.config == "bf16, B=1 Hq=32 Hkv=8 D=128 S=16, cold cache");
  CHECK_FALSE(rep.git_commit.empty());
  REQUIRE(rep.results.size() == 4);
  const ReportResult* fused = rep.find("cpu", "fused");
  REQUIRE(fused != nullptr);
  CHECK(fused->label() == "cpu/fused");
  CHECK(fused->status == Status::ok);
  REQUIRE(fused->points.size() == 3);
  CHECK(fused->points[2].length == 256);
  CHECK(fused->points[2].seconds == 9e-6);
  CHECK(fused->points[2].median_s == 1.5 * 9e-6);
  REQUIRE(fused->fit);
  const FitResult f = run.results[1].fit->power;
  CHECK(fused->fit->power.exponent == f.exponent);
  CHECK(fused->fit->power.ci95_low == f.ci95_low);
  CHECK(fused->fit->power.ci95_high == f.ci95_high);
  CHECK(fused->fit->power.regime == f.regime);
  CHECK(fused->fit->power.per_token_s == f.per_token_s);
  CHECK(fused->fit->power.longest_length == 256);
  CHECK(fused->fit->power.n_points == 3);
  const ReportResult* gather = rep.find("cpu", "gather");
  REQUIRE(gather != nullptr);
  REQUIRE(gather->fit);
  CHECK_FALSE(gather->fit->power.ci95_low);  // two points: a null CI
  const ReportResult* cuda = rep.find("cuda", "fused");
  REQUIRE(cuda != nullptr);
  CHECK(cuda->status == Status::unavailable);
  CHECK(cuda->reason == "no CUDA device");
  CHECK(cuda->points.empty());
  CHECK_FALSE(cuda->fit);
  CHECK(rep.find("cuda", "nothing") == nullptr);
}

TEST_CASE("a report read back names the GPUs beside the host and uses its statistic") {
  RunResult run = with_statistic(synthetic_run(), Statistic::median);
  GpuInfo gpu;
  gpu.name = "NVIDIA H200";
  run.backends[1].gpu = gpu;
  const Report rep =
      parse_report(build_report(run, synthetic_host(), "2026-01-02T03:04:05Z").dump(), "x");
  CHECK(rep.machine == "testhost (NVIDIA H200)");
  CHECK(rep.statistic == Statistic::median);
  CHECK(rep.find("cpu", "fused")->points[0].seconds == 1.5e-6);
}

TEST_CASE("a run a plugin's exit ended is written incomplete, with how, and read back so") {
  RunResult run = synthetic_run();
  run.plugin_exit = "quick_exit()";
  const Json j = build_report(run, synthetic_host(), "2026-01-02T03:04:05Z");
  CHECK(j["complete"] == false);
  CHECK(j["plugin_exit"] == "quick_exit()");
  CHECK_FALSE(j.contains("signal"));
  const Report rep = parse_report(j.dump(), "x");
  CHECK_FALSE(rep.complete);
  CHECK(rep.signal.empty());
  CHECK(rep.incompleteness() == "incomplete: a plugin ended the run with quick_exit()");
  run.plugin_exit = "exit(-3)";
  CHECK(parse_report(build_report(run, synthetic_host(), "2026-01-02T03:04:05Z").dump(), "x")
            .incompleteness() == "incomplete: a plugin ended the run with exit(-3)");
}

TEST_CASE("a schema version written as 6.0 is version 6, as JSON Schema's integer has it") {
  Json j = synthetic_report();
  j["schema_version"] = double(j["schema_version"].get<int>());
  CHECK(parse_report(j.dump(), "r.json").schema_version == j["schema_version"].get<double>());
}

TEST_CASE("a report read back is refused naming the file and the field that is wrong") {
  CHECK(refused([](Json& j) { j["schema_version"] = 8; }) ==
        "base.json: schema_version 8 is not one this readbench reads (3 to 7)");
  CHECK(refused([](Json& j) { j["schema_version"] = 1.5; }) ==
        "base.json: schema_version 1.5 is not one this readbench reads (3 to 7)");
  CHECK(refused([](Json& j) { j["schema_version"] = 1e308; }) ==
        "base.json: schema_version 1e+308 is not one this readbench reads (3 to 7)");
  CHECK(refused([](Json& j) { j["schema_version"] = "5"; }) ==
        "base.json: schema_version \"5\" is not one this readbench reads (3 to 7)");
  CHECK(refused([](Json& j) { j.erase("schema_version"); }) ==
        "base.json: report.schema_version is missing");
  CHECK(refused([](Json& j) { j["results"][1]["points"][2].erase("min_s"); }) ==
        "base.json: results[1].points[2].min_s is missing");
  CHECK(refused([](Json& j) { j["results"][1]["fit"]["exponent"] = "0.9"; }) ==
        "base.json: results[1].fit.exponent is not a number");
  CHECK(refused([](Json& j) { j["results"][1]["fit"]["regime"] = "quick"; }) ==
        "base.json: results[1].fit.regime 'quick' is not a regime");
  CHECK(refused([](Json& j) { j["results"][1]["fit"]["ci95"] = {0.5}; }) ==
        "base.json: results[1].fit.ci95 is not null or a [low, high] pair of numbers");
  CHECK(refused([](Json& j) { j["results"][0]["status"] = "slow"; }) ==
        "base.json: results[0].status 'slow' is not ok, unavailable or failed");
  CHECK(refused([](Json& j) { j["config"].erase("head_dim"); }) ==
        "base.json: config.head_dim is missing");
  CHECK(refused([](Json& j) {
          j["results"][1]["backend"] = "cpu";
          j["results"][1]["path"] = "gather";
        }) == "base.json: results[1] repeats cpu/gather: one result per backend and path");
  CHECK(refused([](Json& j) { j["results"][1]["points"][0]["length"] = 0; }) ==
        "base.json: results[1].points[0].length must be a whole number from 1 to "
        "9007199254740992, got 0.0");
  CHECK(refused([](Json& j) { j["results"][1]["points"][0]["length"] = 16.5; }) ==
        "base.json: results[1].points[0].length must be a whole number from 1 to "
        "9007199254740992, got 16.5");
  CHECK(refused([](Json& j) { j["results"][1]["points"][3]["length"] = 1e30; }) ==
        "base.json: results[1].points[3].length must be a whole number from 1 to "
        "9007199254740992, got 1e+30");
  CHECK(refused([](Json& j) {
          j["results"][1]["fit"]["fit_from_auto"] = true;  // the region stays the whole series
        })
            .find("base.json: results[1].fit.fit_from 0.0 is not where the auto rule starts on "
                  "these points (") == 0);
  CHECK(refused([](Json& j) { j["results"][1]["checks"][0]["passed"] = false; }) ==
        "base.json: results[1].checks[0] failed but the result's status is ok");
  CHECK(refused([](Json& j) { j["signal"] = "SIGINT"; }) ==
        "base.json: signal is there but the report says it is complete");
  CHECK(refused([](Json& j) { j["results"][1]["fit"]["fit_from"] = -5; }) ==
        "base.json: results[1].fit.fit_from must be a finite length >= 0, got -5.0");
  CHECK(refused([](Json& j) { j["results"][1]["points"][1]["median_s"] = -1e-6; }) ==
        "base.json: results[1].points[1].median_s must be positive, got -1e-06");
  CHECK(refused([](Json& j) { j["results"][1]["fit"]["per_token_s"] = 0; }) ==
        "base.json: results[1].fit.per_token_s must be positive, got 0.0");
  CHECK(refused([](Json& j) {
          j["results"][1]["fit"]["ci95"] = {2.0, 3.0};
        }) == "base.json: results[1].fit.ci95 does not contain the exponent");
  CHECK(refused([](Json& j) {
          j["results"][1]["fit"]["exponent"] = 1.5;
          j["results"][1]["fit"]["ci95"] = {1.4, 1.6};
        }) == "base.json: results[1].fit.regime 'sublinear' is not the regime of exponent 1.5");
  CHECK(refused([](Json& j) { j["config"]["statistic"] = "mean"; }) ==
        "base.json: config.statistic 'mean' is not min or median");
  CHECK(refused([](Json& j) { j["results"] = Json::object(); }) ==
        "base.json: report.results is not an array");
  CHECK(error_message([] { parse_report("[1, 2]", "a.json"); }) ==
        "a.json: not a readbench report (no 'results')");
  CHECK(error_message([] {
          parse_report("{\"results\": ", "a.json");
        }).rfind("a.json: malformed JSON", 0) == 0);
}

TEST_CASE("version 3 and 4 reports are read as sampled in one round, and version 2 is refused") {
  // Version 4 had no sampling rounds; version 3 also had no plugins.
  Json j = synthetic_report();
  j["config"].erase("rounds");
  for (Json& r : j["results"])
    for (Json& p : r["points"]) p.erase("rounds");
  j["schema_version"] = 4;
  const Report v4 = parse_report(j.dump(), "v4.json");
  j["config"].erase("plugins");
  j["schema_version"] = 3;
  const Report v3 = parse_report(j.dump(), "v3.json");
  const Report v6 = parse_report(synthetic_report().dump(), "v7.json");  // the current version
  CHECK(v3.schema_version == 3);
  CHECK(v4.schema_version == 4);
  CHECK(v6.schema_version == kSchemaVersion);
  CHECK(v3.config == v6.config);  // the same workload: check and compare accept the pair
  REQUIRE(v3.find("cpu", "fused"));
  CHECK(v3.find("cpu", "fused")->fit->power.exponent ==
        v6.find("cpu", "fused")->fit->power.exponent);
  j["schema_version"] = 2;
  CHECK(error_message([&] { parse_report(j.dump(), "v2.json"); }) ==
        "v2.json: schema_version 2 is not one this readbench reads (3 to 7)");
}

TEST_CASE(
    "a version 5 fit has no cost rise, and a version 6 fit whose cost rise was edited is refused") {
  Json j = synthetic_report();
  for (Json& r : j["results"])
    if (r["fit"].is_object())
      for (const char* key : {"cost_rise", "cost_rise_length", "cost_rise_limit"})
        r["fit"].erase(key);
  j["schema_version"] = 5;
  CHECK(parse_report(j.dump(), "v5.json").schema_version == 5);
  j["schema_version"] = 6;
  CHECK(error_message([&] { parse_report(j.dump(), "v6.json"); }) ==
        "v6.json: results[0].fit.cost_rise is missing");
  Json edited = synthetic_report();
  edited["results"][1]["fit"]["cost_rise"] = 3.0;
  CHECK(error_message([&] {
          parse_report(edited.dump(), "v6.json");
        }).find("results[1].fit.cost_rise 3.0 is not what the points give") != std::string::npos);
  // The length of the rise and the limit it was judged by are checked too: an edited limit
  // would judge the asymptote by another rule.
  for (const auto& [key, value] : {std::pair<const char*, double>{"cost_rise_length", 123.0},
                                   std::pair<const char*, double>{"cost_rise_limit", 2.0}}) {
    Json moved = synthetic_report();
    moved["results"][1]["fit"][key] = value;
    CHECK(error_message([&] {
            parse_report(moved.dump(), "v6.json");
          }).find(std::string("results[1].fit.") + key + " ") != std::string::npos);
    CHECK(error_message([&] {
            parse_report(moved.dump(), "v6.json");
          }).find("the report was edited or is corrupt") != std::string::npos);
  }
}

TEST_CASE("a report with fp8 K/V names both dtypes and the scale in its workload") {
  Json j = synthetic_report();
  j["config"]["kv_dtype"] = "fp8_e4m3";
  j["config"]["kv_scale"] = 0.25;
  j["config"]["kv_scale_granularity"] = "per-tensor";
  const Report rep = parse_report(j.dump(), "fp8.json");
  CHECK(rep.config.rfind("bf16 q, fp8_e4m3 K/V (scale 0.25 per-tensor), B=1", 0) == 0);
  CHECK(rep.config != parse_report(synthetic_report().dump(), "r.json").config);
  j["config"]["kv_scale"] = 0;
  CHECK(error_message([&] { parse_report(j.dump(), "fp8.json"); }).find("config.kv_scale") !=
        std::string::npos);
  j["config"]["kv_scale"] = 0.25;
  j["config"]["kv_dtype"] = "int4";
  CHECK(error_message([&] { parse_report(j.dump(), "fp8.json"); }) ==
        "fp8.json: config.kv_dtype is refused: unknown dtype 'int4' (expected f32, f16, bf16 or "
        "fp8_e4m3)");
  j["config"]["kv_dtype"] = "f16";  // K/V in another 16-bit type than q: no kernel reads it
  CHECK(error_message([&] {
          parse_report(j.dump(), "fp8.json");
        }).find("fp8.json: config.kv_dtype is refused: ") == 0);
  j["config"].erase("kv_dtype");  // version 3 has it
  CHECK(error_message([&] { parse_report(j.dump(), "fp8.json"); }).find("kv_dtype") !=
        std::string::npos);
}

TEST_CASE("a report whose stored fit disagrees with its points is refused naming the field") {
  Json j = synthetic_report();
  const double b = j["results"][1]["fit"]["marginal_s"].get<double>();
  j["results"][1]["fit"]["marginal_s"] = 2 * b;
  CHECK(error_message([&] {
          parse_report(j.dump(), "r.json");
        }).find("r.json: results[1].fit.marginal_s") == 0);
  Json k = synthetic_report();
  k["results"][1]["fit"]["asymptote_reached"] = true;
  CHECK(error_message([&] {
          parse_report(k.dump(), "r.json");
        }).find("r.json: results[1].fit.asymptote_reached true is not what the points give") == 0);
}

TEST_CASE("a report with lengths out of order or a min above its median is refused") {
  Json j = synthetic_report();
  j["results"][1]["points"][1]["length"] = 16;
  CHECK(error_message([&] { parse_report(j.dump(), "r.json"); }) ==
        "r.json: results[1].points[1].length 16.0 does not follow 16.0: lengths must increase");
  Json k = synthetic_report();
  k["results"][1]["points"][0]["min_s"] = 1.0;
  CHECK(error_message([&] {
          parse_report(k.dump(), "r.json");
        }).find("r.json: results[1].points[0].min_s 1.0 is above median_s") == 0);
}

TEST_CASE("a report's names, counts and sample statistics are checked as they are read") {
  // A name that would break a table or a one-line error, or a path no run writes.
  CHECK(refused([](Json& j) { j["results"][1]["backend"] = "cpu\n|x|"; }) ==
        "base.json: results[1].backend \"cpu\\n|x|\" is not cpu, cuda or cuda:N");
  CHECK(refused([](Json& j) { j["results"][1]["backend"] = ""; }) ==
        "base.json: results[1].backend \"\" is not cpu, cuda or cuda:N");
  CHECK(refused([](Json& j) { j["results"][1]["backend"] = "cuda:"; }) ==
        "base.json: results[1].backend \"cuda:\" is not cpu, cuda or cuda:N");
  CHECK(refused([](Json& j) { j["results"][1]["backend"] = "cuda:-1"; }) ==
        "base.json: results[1].backend \"cuda:-1\" is not cpu, cuda or cuda:N");
  {  // any device index --device takes, up to the largest int
    Json j = synthetic_report();
    j["results"][2]["backend"] = "cuda:2147483647";
    j["results"][3]["backend"] = "cuda:0";
    CHECK(parse_report(j.dump(), "r.json").find("cuda:2147483647", "gather"));
  }
  CHECK(refused([](Json& j) { j["results"][1]["checks"][0]["passed"] = "false"; }) ==
        "base.json: results[1].checks[0].passed is not true or false");
  CHECK(refused([](Json& j) { j["results"][1].erase("checks"); }) ==
        "base.json: results[1].checks is missing");
  for (const char* path : {"bogus", "plugin:", "plugin:a b"})
    CHECK(refused([&](Json& j) { j["results"][1]["path"] = path; }) ==
          "base.json: results[1].path " + Json(path).dump() +
              " is not gather, fused or plugin:NAME (1 to 64 of A-Z, a-z, 0-9, '_', '.' and '-')");
  CHECK(refused([](Json& j) {
          j["complete"] = false;
          j["signal"] = "SIGFOO";
        }) == "base.json: signal \"SIGFOO\" is not SIGINT, SIGTERM or SIGHUP");
  // A plugin's exit() ended the run: the report says how, instead of a signal.
  CHECK(refused([](Json& j) { j["plugin_exit"] = "exit(0)"; }) ==
        "base.json: plugin_exit is there but the report says it is complete");
  for (const char* how : {"exit()", "exit(x)", "exit(0", "abort()", "exit(123456789012)"})
    CHECK(refused([&](Json& j) {
            j["complete"] = false;
            j["plugin_exit"] = how;
          }) == "base.json: plugin_exit " + Json(how).dump() + " is not exit(N) or quick_exit()");
  CHECK(refused([](Json& j) {
          j["complete"] = false;
          j["plugin_exit"] = "exit(0)";
          j["signal"] = "SIGINT";
        }) == "base.json: signal is there beside plugin_exit");
  CHECK(refused([](Json& j) { j["config"]["dtype"] = "f64"; }) ==
        "base.json: config.dtype is refused: unknown dtype 'f64' (expected f32, f16 or bf16)");
  CHECK(refused([](Json& j) { j["config"]["cache"] = "warm"; }) ==
        "base.json: config.cache 'warm' is not cold or hot");
  // Counts are whole numbers of at least 1.
  CHECK(refused([](Json& j) { j["results"][1]["points"][0]["samples"] = 0; }) ==
        "base.json: results[1].points[0].samples must be a whole number from 1 to "
        "9007199254740992, got 0.0");
  CHECK(refused([](Json& j) { j["results"][1]["points"][0]["samples"] = 1.5; }) ==
        "base.json: results[1].points[0].samples must be a whole number from 1 to "
        "9007199254740992, got 1.5");
  for (const char* key : {"calls_per_sample", "replicas", "rounds"})
    CHECK(refused([&](Json& j) { j["results"][1]["points"][2][key] = -3; }) ==
          std::string("base.json: results[1].points[2].") + key +
              " must be a whole number from 1 to 9007199254740992, got -3.0");
  CHECK(refused([](Json& j) { j["results"][1]["points"][0]["bytes"] = -3; }) ==
        "base.json: results[1].points[0].bytes must be positive, got -3.0");
  // Times positive and in order; a standard deviation >= 0.
  CHECK(refused([](Json& j) { j["results"][1]["points"][0]["max_s"] = -1; }) ==
        "base.json: results[1].points[0].max_s must be positive, got -1.0");
  CHECK(refused([](Json& j) { j["results"][1]["points"][0]["mean_s"] = -1; }) ==
        "base.json: results[1].points[0].mean_s must be positive, got -1.0");
  CHECK(refused([](Json& j) { j["results"][1]["points"][0]["stddev_s"] = -1; }) ==
        "base.json: results[1].points[0].stddev_s must be finite and >= 0, got -1.0");
  CHECK(refused([](Json& j) {
          Json& p = j["results"][1]["points"][0];
          p["max_s"] = p["min_s"].get<double>();
        }).find("base.json: results[1].points[0].max_s ") == 0);
  CHECK(refused([](Json& j) {
          Json& p = j["results"][1]["points"][0];
          p["mean_s"] = 2 * p["max_s"].get<double>();
        }).find("base.json: results[1].points[0].mean_s ") == 0);
  // Text the readers show keeps to its line: control characters come back escaped.
  Json shown = synthetic_report();
  shown["machine"]["hostname"] = "lab\n|\x1b[31m";
  shown["results"][2]["reason"] = "no\tdevice";
  const Report read = parse_report(shown.dump(), "r.json");
  CHECK(read.machine == "lab\\n|\\x1b[31m");
  CHECK(read.results[2].reason == "no\\tdevice");
  // A mean within rounding of [min, max] is read: a sum of equal samples over their count may
  // round a little past them.
  Json j = synthetic_report();
  Json& p = j["results"][1]["points"][0];
  p["max_s"] = p["median_s"];
  p["mean_s"] = p["max_s"].get<double>() * (1 + 1e-15);
  CHECK_NOTHROW(parse_report(j.dump(), "r.json"));
}

TEST_CASE("a timed path whose fit was removed is refused when its points give one") {
  // results[1]: cpu/fused, three points.
  CHECK(refused([](Json& j) {
          j["results"][1]["fit"] = nullptr;
          j["results"][1]["fit_error"] = "edited away";
        })
            .find("base.json: results[1].fit is null (fit_error \"edited away\") but the points of "
                  "cpu/fused give one (exponent ") == 0);
  CHECK(refused([](Json& j) {
          j["results"][1]["fit"] = nullptr;
        }).find("results[1].fit is null (no fit_error) but the points") != std::string::npos);
}

TEST_CASE("a timed path without a fit is read when its points give none") {
  {  // one point: nothing to fit
    Json j = synthetic_report();
    Json& fused = j["results"][1];
    fused["points"] = Json::array({fused["points"][0]});
    fused["fit"] = nullptr;
    fused["fit_error"] = "the fit needs at least 2 points";
    const Report r = parse_report(j.dump(), "r.json");
    CHECK_FALSE(r.find("cpu", "fused")->fit);
    CHECK(r.find("cpu", "fused")->points.size() == 1);
  }
  {  // the run's --fit-from 64 leaves gather (16, 64) one length to fit
    Json j = synthetic_report();
    j["config"]["fit_from"] = 64;
    j["results"][0]["fit"] = nullptr;
    j["results"][0]["fit_error"] = "the fit needs at least 2 distinct lengths";
    CHECK_FALSE(parse_report(j.dump(), "r.json").find("cpu", "gather")->fit);
    // with auto, the same two lengths are fitted: the fit cannot be missing
    j["config"]["fit_from"] = "auto";
    CHECK(error_message([&] {
            parse_report(j.dump(), "r.json");
          }).find("r.json: results[0].fit is null") == 0);
  }
  CHECK(refused([](Json& j) { j["config"]["fit_from"] = -1; }) ==
        "base.json: config.fit_from must be auto or a finite length >= 0, got -1");
}

TEST_CASE("points or a fit under a status that is not ok are refused") {
  for (const char* status : {"unavailable", "failed"}) {
    CHECK(refused([&](Json& j) {
            j["results"][1]["status"] = status;
            j["results"][1]["reason"] = "said so by hand";
          }) == std::string("base.json: results[1].points holds 3 points of cpu/fused but its "
                            "status is ") +
                    status + ": a path that is not ok is never timed");
    CHECK(refused([&](Json& j) {
            j["results"][1]["status"] = status;
            j["results"][1]["reason"] = "said so by hand";
            j["results"][1]["points"] = Json::array();
          }) == std::string("base.json: results[1].fit is there but the status of cpu/fused is ") +
                    status + ": a path that is not ok is never fitted");
  }
}

TEST_CASE("a point whose GB/s is not its bytes over its time is refused") {
  CHECK(refused([](Json& j) { j["results"][1]["points"][0]["gbps"] = 1e6; })
            .find("base.json: results[1].points[0].gbps 1000000.0 is not the point's bytes over "
                  "its time (") == 0);
  // the statistic's time: a median report's GB/s is of its medians
  const Json median = build_report(with_statistic(synthetic_run(), Statistic::median),
                                   synthetic_host(), "2026-01-02T03:04:05Z");
  CHECK_NOTHROW(parse_report(median.dump(), "r.json"));
}

TEST_CASE("a device backend is named by its index as a run writes it") {
  for (const char* name : {"cuda:01", "cuda:-0", "cuda:+1"})
    CHECK(refused([&](Json& j) { j["results"][2]["backend"] = name; }) ==
          "base.json: results[2].backend " + Json(name).dump() + " is not cpu, cuda or cuda:N");
}

TEST_CASE("a report with a bandwidth or ceiling fraction that is not positive is refused") {
  Json j = synthetic_report();
  j["results"][1]["points"][0]["gbps"] = -1.0;
  CHECK(error_message([&] { parse_report(j.dump(), "r.json"); }) ==
        "r.json: results[1].points[0].gbps must be positive, got -1.0");
  Json k = synthetic_report();
  k["results"][1]["points"][2]["ceiling_fraction"] = 0;
  CHECK(error_message([&] { parse_report(k.dump(), "r.json"); }) ==
        "r.json: results[1].points[2].ceiling_fraction must be positive, got 0.0");
  Json m = synthetic_report();
  m["machine"]["bandwidths"][0]["read_gbps"] = -5.0;
  CHECK(error_message([&] { parse_report(m.dump(), "r.json"); }) ==
        "r.json: machine.bandwidths[0].read_gbps must be positive, got -5.0");
}

TEST_CASE("the report records the auto grid, why each path's grid stopped and each share") {
  RunResult run = synthetic_run();
  run.config.auto_lengths = true;
  run.config.fit_from.reset();
  run.results[1].grid_stop = GridStop::max_length;
  run.results[1].grid_reason = "L=1024 is past --max-length 300";
  const Json j = build_report(run, synthetic_host(), "2026-01-02T03:04:05Z");
  CHECK(j["config"]["lengths"] == "auto");
  CHECK(j["config"]["fit_from"] == "auto");
  CHECK(j["config"]["max_length"] == 4194304);
  CHECK(j["results"][1]["grid"]["stop"] == "max_length");
  CHECK(j["results"][1]["grid"]["reason"] == "L=1024 is past --max-length 300");
  CHECK(j["results"][0]["grid"]["stop"] == "explicit");
  CHECK(j["results"][2]["grid"]["stop"] == "not_timed");
  const Json& p = j["results"][1]["points"][2];
  CHECK(p["length_dependent_share"].get<double>() ==
        doctest::Approx(run.results[1].fit->shares[2]).epsilon(1e-15));
  CHECK(j["results"][2]["points"].empty());
  const Json& f = j["results"][1]["fit"];
  for (const char* k : {"fixed_s", "marginal_s", "share_threshold", "affine_rms_relative_error"})
    CHECK(f[k].is_number());
  CHECK(f["fixed_ci95"].size() == 2);
  CHECK(f["asymptote_reason"].is_string());
  CHECK(f["effective_gbps"].is_null());  // the fixture's fit was given no bytes per token
  CHECK(f["effective_gbps_reason"].is_string());
}

TEST_CASE("the report carries the run's quality verdict, and readers read it back") {
  RunResult run = synthetic_run();
  run.quality.contended = true;
  run.quality.reasons = {
      "cpu read ceiling moved from 20 GB/s before the sweep to 12 GB/s after it"};
  run.quality.load_before = LoadSample{0.5, 0.4, 1};
  run.backends[0].ceilings_before = {{20, 25, 1 << 30}};
  run.backends[0].ceilings_after = {{12, 15, 1 << 30}};
  const Json j = build_report(run, synthetic_host(), "2026-01-02T03:04:05Z");
  CHECK(j["quality"]["verdict"] == "contended");
  CHECK(j["quality"]["reasons"].size() == 1);
  CHECK(j["quality"]["load_before"]["runnable"] == 1);
  CHECK(j["quality"]["load_after"].is_null());
  CHECK(j["machine"]["bandwidths"][0]["read_gbps_after"] == Json::array({12.0}));
  CHECK(j["results"][1]["points"][0]["contended"] == false);  // the fixture's points are clean
  const Report rep = parse_report(j.dump(), "r.json");
  CHECK(rep.quality == QualityVerdict::contended);
  CHECK(rep.quality_reasons == run.quality.reasons);
  CHECK(rep.origin().quality == QualityVerdict::contended);
  CHECK(parse_report(synthetic_report().dump(), "r.json").quality == QualityVerdict::clean);
}

TEST_CASE("printable escapes control characters and keeps every other byte") {
  CHECK(printable("a\nb\tc\x1b[0m\x7f") == "a\\nb\\tc\\x1b[0m\\x7f");
  CHECK(printable(std::string("x\0y", 3)) == "x\\x00y");
  CHECK(printable("µs, naïve | <b>") == "µs, naïve | <b>");  // UTF-8 passes as it is
  CHECK(printable("") == "");
}

TEST_CASE("the run table says what each figure counts and marks what is not a headline") {
  RunResult run = synthetic_run();
  run.speedups[0].clean = true;  // the second stays as the fixture has it: not clean
  run.results[0].fit.reset();
  run.results[0].fit_error = "2 points";
  const std::string table = format_run(run);
  CHECK(table.find("GB/s: every byte a call moves") != std::string::npos);
  CHECK(table.find("the fits below count K/V bytes alone") != std::string::npos);
  CHECK(table.find("L=16       2.00x\n") != std::string::npos);
  CHECK(table.find("L=64       2.67x (not clean)") != std::string::npos);
  CHECK(table.find("  no fit: 2 points\n  next: time more lengths") != std::string::npos);
  // No fixed cost printed bare negative, and every share printed in [0, 1].
  CHECK(table.find("fixed cost -") == std::string::npos);
}

TEST_CASE("a fixed cost is shown resolved or about zero or none and never as a bare negative") {
  AffineFit a;
  a.fixed_s = 4e-6;
  a.fixed_ci95_low = 3e-6;
  a.fixed_ci95_high = 5e-6;
  CHECK(format_fixed_cost(a) == "4 us [3 us, 5 us]");
  a.fixed_s = 4.9e-4;
  a.fixed_ci95_low = -1.26e-3;
  a.fixed_ci95_high = 2.24e-3;
  CHECK(format_fixed_cost(a, true) == "≈ 0 (not resolved, CI -1.26 ms .. 2.24 ms)");
  a.fixed_s = -5e-6;
  a.fixed_ci95_low = -7e-6;
  a.fixed_ci95_high = -3e-6;
  CHECK(format_fixed_cost(a).rfind("none (t0 = -5 us, CI -7 us .. -3 us wholly below 0", 0) == 0);
}

TEST_CASE("a version 6 report is read back by its own rule: its two-length auto region stands") {
  // t = 4 us + 1 ns * L at 16..65536: only 16384 and 65536 have shares of 0.8, so version 6's
  // rule fitted those two; version 7 widens the region to 1024..65536.
  std::vector<std::pair<std::int64_t, double>> pts;
  std::vector<TimedPoint> timed;
  for (std::int64_t L = 16; L <= 65536; L *= 4) {
    pts.emplace_back(L, 4e-6 + 1e-9 * double(L));
    timed.push_back({double(L), 4e-6 + 1e-9 * double(L)});
  }
  ReadFitOptions v6;
  v6.rules = FitRules::settled;
  const ReadFit old = fit_read(timed, v6);
  REQUIRE(old.fit_from == 16384);
  RunResult run = synthetic_run();
  run.results[1] = readbench::test::timed_path(Path::fused, pts, std::nullopt);
  CHECK(run.results[1].fit->fit_from == 1024);
  CHECK(run.results[1].fit->basis == FitBasis::widened);
  run.results[1].fit = old;
  Json j = build_report(run, readbench::test::synthetic_host(), "2026-01-02T03:04:05Z");
  j["schema_version"] = 6;
  const Report rep = parse_report(j.dump(), "v6.json");
  CHECK(rep.find("cpu", "fused")->fit->fit_from == 16384);
  j["schema_version"] = 7;
  CHECK(error_message([&] {
          parse_report(j.dump(), "v7.json");
        }).find("is not where the auto rule starts") != std::string::npos);
}
