// `readbench plot`: the structure of the SVG drawn from synthetic reports (no timing).
#include <doctest/doctest.h>

#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "core/power_law_fit.hpp"
#include "report/plot.hpp"
#include "report/report_input.hpp"
#include "report_fixtures.hpp"
#include "test_support.hpp"

using namespace readbench;
using readbench::test::error_message;
using readbench::test::report_of;
using readbench::test::synthetic_run;
using readbench::test::timed_path;

namespace {

std::vector<std::string> matches(const std::string& s, const std::string& pattern) {
  std::vector<std::string> out;
  const std::regex re(pattern);
  for (auto m = std::sregex_iterator(s.begin(), s.end(), re); m != std::sregex_iterator(); ++m)
    out.push_back((*m)[1]);
  return out;
}

std::vector<std::string> texts(const std::string& svg, const std::string& cls) {
  return matches(svg, "<text class=\"" + cls + "\"[^>]*>([^<]*)</text>");
}

std::size_t count(const std::string& s, const std::string& what) {
  return matches(s, "(" + what + ")").size();
}

// The <g class="series"> elements, each as text.
std::vector<std::string> series_of(const std::string& svg) {
  std::vector<std::string> out;
  for (auto at = svg.find("<g class=\"series\""); at != std::string::npos;
       at = svg.find("<g class=\"series\"", at + 1))
    out.push_back(svg.substr(at, svg.find("</g>", at) - at));
  return out;
}

double attr(const std::string& element, const std::string& name) {
  const auto v = matches(element, " " + name + "=\"([-0-9.]+)\"");
  REQUIRE(v.size() == 1);
  return std::stod(v[0]);
}

struct Point {
  double x, y;
};
std::vector<Point> markers_of(const std::string& series) {
  std::vector<Point> out;
  for (const std::string& t :
       matches(series, "class=\"marker(?: unfitted)?\" transform=\"translate\\(([-0-9.,]+)\\)\"")) {
    const auto comma = t.find(',');
    out.push_back({std::stod(t.substr(0, comma)), std::stod(t.substr(comma + 1))});
  }
  return out;
}

}  // namespace

TEST_CASE("a plot draws one group per timed series, one marker per point, one line per fit") {
  const std::string svg = plot_svg(report_of(synthetic_run()));
  const auto series = series_of(svg);
  REQUIRE(series.size() == 2);
  CHECK(count(series[0], "<title>cpu/gather</title>") == 1);
  CHECK(count(series[1], "<title>cpu/fused</title>") == 1);
  CHECK(markers_of(series[0]).size() == 2);
  CHECK(markers_of(series[1]).size() == 3);
  CHECK(count(svg, "class=\"marker\"") == 5);
  CHECK(count(series[0], "class=\"fit\"") == 1);
  CHECK(count(series[1], "class=\"fit\"") == 1);
  CHECK(count(svg, "class=\"fit\"") == 2);
  CHECK(count(svg, "<g class=\"legend\"") == 2);
}

TEST_CASE("each fitted line carries its exponent, with the CI where there is one") {
  const FitResult fused = synthetic_run().results[1].fit->power;
  char want[96];
  std::snprintf(want, sizeof want, "cpu/fused  p = %.2f [%.2f, %.2f]", fused.exponent,
                *fused.ci95_low, *fused.ci95_high);
  // gather: 2 us at 16, 8 us at 64, exactly linear; two points give no CI.
  CHECK(texts(plot_svg(report_of(synthetic_run())), "exponent") ==
        std::vector<std::string>{"cpu/gather  p = 1.00", want});
}

TEST_CASE("a report over 16..256 tokens in microseconds has ticks at 20..200 and 1..10 us") {
  const std::string svg = plot_svg(report_of(synthetic_run()));
  // Fewer than three decades inside an axis: 2x and 5x are labelled too.
  CHECK(texts(svg, "xtick") == std::vector<std::string>{"20", "50", "100", "200"});
  CHECK(texts(svg, "ytick") == std::vector<std::string>{"1 µs", "2 µs", "5 µs", "10 µs"});
  // Unlabelled: 30, 40, 60, 70, 80, 90 tokens and 0.9, 3, 4, 6, 7, 8, 9 us (the y axis spans
  // a decade around 1..9 us, with 5% to spare at each end: 0.85..10.6 us).
  CHECK(count(svg, "class=\"minor\"") == 13);
  CHECK(count(svg, "class=\"major\"") == 8);
}

TEST_CASE("a sweep over several decades labels only the decades, each time in its own unit") {
  RunResult run = synthetic_run();
  run.results = {timed_path(Path::fused, {{16, 1e-7}, {1024, 1e-5}, {65536, 1e-3}})};
  const std::string svg = plot_svg(report_of(run));
  CHECK(texts(svg, "xtick") == std::vector<std::string>{"100", "1000", "10k"});
  CHECK(texts(svg, "ytick") ==
        std::vector<std::string>{"100 ns", "1 µs", "10 µs", "100 µs", "1 ms"});
}

TEST_CASE("the fitted line runs from the first length fitted to the longest") {
  RunResult run = synthetic_run();
  // fused is exactly t = c L^p; fitted from 64 its line runs through its last two points.
  run.results[1].fit = fit_read({{16, 1e-6}, {64, 3e-6}, {256, 9e-6}}, {64.0, {}, {}});
  const auto series = series_of(plot_svg(report_of(run)));
  REQUIRE(series.size() == 2);
  const auto gather = markers_of(series[0]), fused = markers_of(series[1]);
  const auto fit = matches(series[1], "(<line class=\"fit\"[^>]*>)");
  REQUIRE(fit.size() == 1);
  CHECK(attr(fit[0], "x1") == doctest::Approx(fused[1].x).epsilon(1e-3));
  CHECK(attr(fit[0], "y1") == doctest::Approx(fused[1].y).epsilon(1e-3));
  CHECK(attr(fit[0], "x2") == doctest::Approx(fused[2].x).epsilon(1e-3));
  CHECK(attr(fit[0], "y2") == doctest::Approx(fused[2].y).epsilon(1e-3));
  const auto gather_fit = matches(series[0], "(<line class=\"fit\"[^>]*>)");
  REQUIRE(gather_fit.size() == 1);
  CHECK(attr(gather_fit[0], "x1") == doctest::Approx(gather[0].x).epsilon(1e-3));
  CHECK(attr(gather_fit[0], "x2") == doctest::Approx(gather[1].x).epsilon(1e-3));
}

TEST_CASE("lines and markers lie inside the plot area") {
  RunResult run = synthetic_run();
  run.results[3] = timed_path(Path::fused, {{16, 1e-7}, {1024, 1e-5}, {65536, 1e-3}});
  run.results[3].backend = "cuda";  // in place of the unavailable cuda/fused
  const std::string svg = plot_svg(report_of(run));
  const auto frame = matches(svg, "(<rect class=\"frame\"[^>]*>)");
  REQUIRE(frame.size() == 1);
  const double left = attr(frame[0], "x"), top = attr(frame[0], "y");
  const double right = left + attr(frame[0], "width"), bottom = top + attr(frame[0], "height");
  auto inside = [&](double x, double y) { return x > left && x < right && y > top && y < bottom; };
  int checked = 0;
  for (const std::string& s : series_of(svg)) {
    for (const Point& p : markers_of(s)) checked += inside(p.x, p.y) ? 1 : 100;
    for (const std::string& l : matches(s, "(<line class=\"fit\"[^>]*>)"))
      checked +=
          inside(attr(l, "x1"), attr(l, "y1")) && inside(attr(l, "x2"), attr(l, "y2")) ? 1 : 100;
  }
  CHECK(checked == 8 + 3);  // 8 points, 3 lines, none outside
}

TEST_CASE("exponent labels of lines that end together are moved apart") {
  RunResult run = synthetic_run();
  run.results = {timed_path(Path::gather, {{16, 1e-6}, {256, 9e-6}}),
                 timed_path(Path::fused, {{16, 2e-6}, {256, 9e-6}})};
  const auto ys = matches(plot_svg(report_of(run)),
                          "<text class=\"exponent\" x=\"[0-9.]+\" "
                          "y=\"([0-9.]+)\"");
  REQUIRE(ys.size() == 2);
  CHECK(std::abs(std::stod(ys[0]) - std::stod(ys[1])) >= 14);
}

TEST_CASE("the title names the machine and the workload") {
  const std::string svg = plot_svg(report_of(synthetic_run()));
  REQUIRE(texts(svg, "title").size() == 1);
  CHECK(texts(svg, "title")[0].find("testhost") == 0);
  REQUIRE(texts(svg, "subtitle").size() == 1);
  CHECK(texts(svg, "subtitle")[0].find("bf16, B=1 Hq=32 Hkv=8 D=128 S=16, cold cache") == 0);
  CHECK(count(svg, "time per call \\(min of samples\\)") == 1);
}

TEST_CASE("text from the report is escaped for XML") {
  Report rep = report_of(synthetic_run());
  rep.machine = "lab<1>&co";
  rep.results[2].reason = rep.results[3].reason = "driver < 525 & \"old\"";
  const std::string svg = plot_svg(rep);
  CHECK(count(svg, "lab&lt;1&gt;&amp;co") == 1);
  CHECK(count(svg, "lab<1>") == 0);
  CHECK(texts(svg, "note") ==
        std::vector<std::string>{"cuda/gather, cuda/fused: unavailable (driver &lt; 525 &amp; "
                                 "&quot;old&quot;)"});
}

TEST_CASE("results that are unavailable are noted with their reason") {
  CHECK(texts(plot_svg(report_of(synthetic_run())), "note") ==
        std::vector<std::string>{"cuda/gather, cuda/fused: unavailable (no CUDA device)"});
}

TEST_CASE("a series without a fit is drawn as points only") {
  Report rep = report_of(synthetic_run());
  rep.results[0].fit.reset();
  const std::string svg = plot_svg(rep);
  CHECK(count(svg, "class=\"fit\"") == 1);
  CHECK(count(svg, "class=\"marker\"") == 3);           // the fused points, fitted
  CHECK(count(svg, "class=\"marker unfitted\"") == 2);  // gather's, hollow
  CHECK(count(svg, "cpu/gather: points only, no fit") == 1);
}

TEST_CASE("a report with nothing timed is refused, naming the report and why") {
  RunResult run = synthetic_run();
  run.results.erase(run.results.begin(), run.results.begin() + 2);
  const Report rep = report_of(run);
  CHECK(error_message([&] { plot_svg(rep); }) ==
        "r.json: nothing timed to plot: cuda/gather, cuda/fused: unavailable (no CUDA device)");
}

TEST_CASE("a time that cannot go on a log axis is refused") {
  Report rep = report_of(synthetic_run());
  rep.results[1].points[0].seconds = 0;
  CHECK(error_message([&] { plot_svg(rep); }) ==
        "r.json: cpu/fused has a time of 0 s at L = 16, which cannot go on a log axis");
}

TEST_CASE(
    "the legend gives each fit's regime, t0 and b, and says where the asymptote was not reached") {
  Report rep = report_of(synthetic_run());
  rep.results[1].fit->asymptote_reached = true;
  rep.results[0].fit->asymptote_reached = false;
  const std::vector<std::string> legend = texts(plot_svg(rep), "legend");
  REQUIRE(legend.size() == 2);
  const std::regex line(
      "cpu/(gather|fused): [a-z]+, t = t0 \\+ b·L with t0 (≈ 0 \\([^)]*\\)|none "
      "\\([^)]*\\)|[0-9.]+ "
      "[mµn]?s \\[[^\\]]*\\]), b = [0-9.]+ [mµn]?s per token \\(dashed, every L\\); fit of "
      "[0-9]+ points \\(filled; hollow: not fitted\\).*");
  for (const std::string& l : legend) CHECK(std::regex_match(l, line));
  CHECK(legend[0].find("; asymptote not reached") != std::string::npos);
  CHECK(legend[1].find("asymptote") == std::string::npos);
}

TEST_CASE(
    "t0 + b*L is drawn over the whole grid with unfitted points hollow and the region start "
    "is marked") {
  RunResult run = synthetic_run();
  // Fitted from 64: the point at 16 is left out of the fit.
  run.results[1] = readbench::test::timed_path(
      Path::fused, {{16, 1e-6}, {64, 3e-6}, {256, 9e-6}, {1024, 3.3e-5}}, 64.0);
  const std::string svg = plot_svg(report_of(run));
  CHECK(count(svg, "class=\"marker unfitted\"") == 1);
  CHECK(svg.find("fit from L = 64") != std::string::npos);
  CHECK(count(svg, "class=\"region-start\"") == 2);  // the line and its label
  // The dashed curve starts at the shortest length timed, left of the region.
  const std::size_t curve = svg.find("class=\"affine\"");
  REQUIRE(curve != std::string::npos);
}
