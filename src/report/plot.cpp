#include "report/plot.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <numeric>
#include <optional>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "report/format.hpp"

namespace readbench {

namespace {

// Layout in px. The plot area is fixed; the margins grow to fit the text around it.
constexpr double kPlotW = 560, kPlotH = 380;
constexpr double kLeft = 80;      // y tick labels and the y axis title
constexpr double kTop = 64;       // title and subtitle
constexpr double kCharW = 7;      // a generous mean advance of 12 px sans-serif, for sizing only
constexpr double kRow = 18;       // legend and note rows
constexpr double kLabelGap = 15;  // least distance between the baselines of two exponent labels

// Okabe and Ito's colour-blind-safe palette, less the yellow that is too pale on white.
constexpr const char* kColours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                    "#E69F00", "#56B4E9", "#000000"};
// Marker outlines centred on (0, 0), about 9 px across. The last, a cross, is stroked, not
// filled. Seven colours and six shapes: the first 42 series all differ in the pair.
constexpr const char* kMarkers[] = {"M-4.5,0a4.5,4.5 0 1,0 9,0a4.5,4.5 0 1,0 -9,0z",  // circle
                                    "M-4,-4h8v8h-8z",                                 // square
                                    "M0,-5.5l5,9h-10z",                               // triangle
                                    "M0,-5.5l5,5.5l-5,5.5l-5,-5.5z",                  // diamond
                                    "M0,5.5l5,-9h-10z",       // triangle pointing down
                                    "M-4,-4l8,8m0,-8l-8,8"};  // cross

// Text for XML content and attribute values; control characters, which XML 1.0 forbids,
// become spaces.
std::string escaped(std::string_view s) {
  std::string out;
  for (char ch : s) {
    if (ch == '&')
      out += "&amp;";
    else if (ch == '<')
      out += "&lt;";
    else if (ch == '>')
      out += "&gt;";
    else if (ch == '"')
      out += "&quot;";
    else if (static_cast<unsigned char>(ch) < 0x20)
      out += ' ';
    else
      out += ch;
  }
  return out;
}

double text_width(std::string_view s) {  // UTF-8 code points times a mean advance
  return kCharW *
         double(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string length_label(double n) {  // tokens: "20", "1000", "10k", "1M"
  if (n >= 0.9995e6) return strprintf("%.3gM", n / 1e6);
  if (n >= 0.9995e4) return strprintf("%.3gk", n / 1e3);
  return strprintf("%.4g", n);
}

// A log10 axis: exponents [lo, hi] drawn over pixels [from, to].
struct LogAxis {
  double lo, hi, from, to;
  double px(double v) const { return from + (std::log10(v) - lo) / (hi - lo) * (to - from); }
  bool inside(double v) const { return std::log10(v) >= lo && std::log10(v) <= hi; }
};

// At least a decade wide, so that at least two labelled ticks fall inside, with 5% to spare at
// each end so that no marker sits on the frame.
LogAxis axis_over(double min, double max, double from, double to) {
  const double widen = std::max(0.0, 1 - std::log10(max / min)) / 2;
  const double lo = std::log10(min) - widen, hi = std::log10(max) + widen;
  const double pad = 0.05 * (hi - lo);
  return {lo - pad, hi + pad, from, to};
}

struct Tick {
  double value;
  bool labelled;
};

// Every m x 10^k (m = 1..9) inside the axis. Decades are labelled, and 2x and 5x as well where
// fewer than three decades fall inside.
std::vector<Tick> ticks(const LogAxis& a) {
  const int first = int(std::floor(a.lo)), last = int(std::ceil(a.hi));
  int decades = 0;
  for (int k = first; k <= last; ++k) decades += a.inside(std::pow(10.0, k));
  std::vector<Tick> out;
  for (int k = first; k <= last; ++k)
    for (int m = 1; m <= 9; ++m) {
      const double v = m * std::pow(10.0, k);
      if (a.inside(v)) out.push_back({v, m == 1 || (decades < 3 && (m == 2 || m == 5))});
    }
  return out;
}

struct Series {
  const ReportResult* result;
  std::size_t style;                              // index into the colours and markers
  std::optional<std::pair<double, double>> span;  // lengths the fitted line is drawn over
  std::pair<double, double> grid;                 // the shortest and longest length timed
  const char* colour() const { return kColours[style % std::size(kColours)]; }
};

// The lengths the fit used: from the shortest point at or past fit_from (max(fit_from, shortest
// length) wherever fit_from is 0 or a measured length) to the fit's longest length.
std::optional<std::pair<double, double>> fit_span(const ReportResult& r) {
  if (!r.fit) return std::nullopt;
  double first = std::numeric_limits<double>::infinity();
  for (const ReportPoint& p : r.points)
    if (p.length >= r.fit->fit_from) first = std::min(first, p.length);
  if (!(first < r.fit->power.longest_length)) return std::nullopt;
  return std::pair{first, r.fit->power.longest_length};
}

std::pair<double, double> grid_span(const ReportResult& r) {
  double first = std::numeric_limits<double>::infinity(), last = 0;
  for (const ReportPoint& p : r.points)
    first = std::min(first, p.length), last = std::max(last, p.length);
  return {first, last};
}

double fitted(const ReadFit& f, double length) {
  return f.power.constant * std::pow(length, f.power.exponent);
}

double affine(const ReadFit& f, double length) {
  return f.affine.fixed_s + f.affine.marginal_s * length;
}

// t0 + b*L over the whole grid, sampled evenly in log L: a curve on log-log axes, so the plot
// shows where the line fitted over the region stops describing the shorter lengths. Samples
// under `floor` (a negative t0 drives the line to zero) are left out.
std::vector<std::pair<double, double>> affine_curve(const ReadFit& f,
                                                    const std::pair<double, double>& span,
                                                    double floor) {
  constexpr int kSamples = 48;
  std::vector<std::pair<double, double>> out;
  for (int i = 0; i <= kSamples; ++i) {
    const double length = span.first * std::pow(span.second / span.first, double(i) / kSamples);
    if (const double t = affine(f, length); t >= floor && std::isfinite(t))
      out.emplace_back(length, t);
  }
  return out;
}

// The lowest a curve is drawn: a quarter of the shortest time timed, so the axis stays on the
// points.
double curve_floor(const ReportResult& r) {
  double least = std::numeric_limits<double>::infinity();
  for (const ReportPoint& p : r.points) least = std::min(least, p.seconds);
  return least / 4;
}

// "cpu/fused  p = 0.93 [0.86, 1.00]", the CI left out where the report has none.
std::string exponent_label(const ReportResult& r) {
  const FitResult& f = r.fit->power;
  return r.label() + "  p = " + exponent_with_ci(f.exponent, f.ci95_low, f.ci95_high, 2);
}

std::string legend_label(const ReportResult& r) {
  if (!r.fit) return r.label() + ": points only, no fit";
  const FitResult& f = r.fit->power;
  const AffineFit& a = r.fit->affine;
  std::string s = r.label() + ": " + std::string(to_string(f.regime)) + ", t = t0 + b·L with t0 " +
                  format_fixed_cost(a, true) + ", b = " + format_seconds(a.marginal_s, true) +
                  " per token (dashed, every L)";
  s += strprintf("; fit of %d points (filled; hollow: not fitted)", f.n_points);
  if (r.fit->fit_from > 0) s += " with L ≥ " + format_number(r.fit->fit_from);
  if (!r.fit->asymptote_reached) s += "; asymptote not reached";
  return s;
}

// What is not plotted, or failed: "cuda/gather, cuda/fused: unavailable (no CUDA device)",
// neighbours with the same status and reason on one line.
std::vector<std::string> status_notes(const Report& rep) {
  std::vector<std::pair<std::string, std::string>> lines;  // labels, why
  for (const ReportResult& r : rep.results) {
    if (r.timed()) continue;
    std::string why(r.status == Status::ok ? "nothing timed" : to_string(r.status));
    if (!r.reason.empty()) why += " (" + one_line(r.reason) + ")";
    if (!lines.empty() && lines.back().second == why)
      lines.back().first += ", " + r.label();
    else
      lines.emplace_back(r.label(), why);
  }
  std::vector<std::string> out;
  for (const auto& [labels, why] : lines) out.push_back(labels + ": " + why);
  return out;
}

// Baselines near `want`, at least kLabelGap apart, none below `bottom`.
std::vector<double> spread(const std::vector<double>& want, double bottom) {
  std::vector<std::size_t> order(want.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return want[a] < want[b]; });
  std::vector<double> y = want;
  double prev = -std::numeric_limits<double>::infinity();
  for (std::size_t i : order) prev = y[i] = std::max(y[i], prev + kLabelGap);
  double next = bottom;
  for (auto i = order.rbegin(); i != order.rend(); ++i) {
    y[*i] = std::min(y[*i], next);
    next = y[*i] - kLabelGap;
  }
  return y;
}

std::string line(const char* cls, double x1, double y1, double x2, double y2, const char* style) {
  return strprintf("<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" %s/>\n", cls,
                   x1, y1, x2, y2, style);
}

// `attributes` are written as they are; `content` is escaped.
std::string text(const char* cls, double x, double y, const char* attributes,
                 std::string_view content) {
  return strprintf("<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" %s>", cls, x, y, attributes) +
         escaped(content) + "</text>\n";
}

// A point's marker (class "marker", with a tooltip) or the legend's ("swatch", without).
// A point's marker: filled where the fit used it, hollow (white inside) where it did not.
std::string marker(std::size_t style, double x, double y, const std::string& tip,
                   bool hollow = false) {
  const std::size_t shape = style % std::size(kMarkers);
  const bool cross = shape + 1 == std::size(kMarkers);
  return strprintf("<path class=\"%s\" transform=\"translate(%.1f,%.1f)\" d=\"%s\"%s",
                   tip.empty() ? "swatch"
                   : hollow    ? "marker unfitted"
                               : "marker",
                   x, y, kMarkers[shape],
                   cross    ? (hollow ? " fill=\"none\" stroke-width=\"1\""
                                      : " fill=\"none\" stroke-width=\"2\"")
                   : hollow ? " fill=\"white\" stroke-width=\"1.5\""
                            : " stroke=\"white\" stroke-width=\"0.8\"") +
         (tip.empty() ? "/>" : "><title>" + escaped(tip) + "</title></path>");
}

// Grid lines at the labelled ticks, the frame, the ticks and their labels, the axis titles.
std::string axes(const LogAxis& x, const LogAxis& y, const std::string& statistic) {
  const double left = x.from, right = x.to, top = y.to, bottom = y.from;
  std::string o;
  const std::vector<Tick> xticks = ticks(x), yticks = ticks(y);
  for (const Tick& t : xticks)
    if (t.labelled)
      o += line("grid", x.px(t.value), top, x.px(t.value), bottom, "stroke=\"#e4e4e4\"");
  for (const Tick& t : yticks)
    if (t.labelled)
      o += line("grid", left, y.px(t.value), right, y.px(t.value), "stroke=\"#e4e4e4\"");
  o += strprintf(
      "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
      "fill=\"none\" stroke=\"#444\"/>\n",
      left, top, right - left, bottom - top);
  for (const Tick& t : xticks) {
    const double px = x.px(t.value);
    o += line(t.labelled ? "major" : "minor", px, bottom, px, bottom + (t.labelled ? 6 : 3),
              "stroke=\"#444\"");
    if (t.labelled)
      o += text("xtick", px, bottom + 19, "text-anchor=\"middle\"", length_label(t.value));
  }
  for (const Tick& t : yticks) {
    const double py = y.px(t.value);
    o += line(t.labelled ? "major" : "minor", left, py, left - (t.labelled ? 6 : 3), py,
              "stroke=\"#444\"");
    if (t.labelled)
      o += text("ytick", left - 9, py + 4, "text-anchor=\"end\"", format_seconds(t.value, true));
  }
  o += text("axis-title", (left + right) / 2, bottom + 40, "text-anchor=\"middle\"",
            "history length L (tokens)");
  o += strprintf(
      "<text class=\"axis-title\" transform=\"translate(18,%.1f) rotate(-90)\" "
      "text-anchor=\"middle\">time per call (%s of samples)</text>\n",
      (top + bottom) / 2, escaped(statistic).c_str());
  return o;
}

}  // namespace

std::string plot_svg(const Report& rep) {
  const auto on_log_axis = [&](const ReportResult& r, double length, double seconds) {
    if (!(length > 0 && seconds > 0 && std::isfinite(length) && std::isfinite(seconds)))
      throw InputError(rep.source + ": " + r.label() +
                       strprintf(" has a time of %g s at L = %g, which cannot go on a log axis",
                                 seconds, length));
  };
  std::vector<Series> series;
  std::vector<double> lengths, times;
  for (const ReportResult& r : rep.results) {
    if (!r.timed()) continue;  // listed in the notes instead
    const Series s{&r, series.size(), fit_span(r), grid_span(r)};
    for (const ReportPoint& p : r.points) {
      on_log_axis(r, p.length, p.seconds);
      lengths.push_back(p.length);
      times.push_back(p.seconds);
    }
    if (s.span) {
      for (double length : {s.span->first, s.span->second}) {
        on_log_axis(r, length, fitted(*r.fit, length));
        times.push_back(fitted(*r.fit, length));
      }
      for (const auto& [length, t] : affine_curve(*r.fit, s.grid, curve_floor(r)))
        times.push_back(t);
    }
    series.push_back(s);
  }
  const std::vector<std::string> notes = status_notes(rep);
  if (series.empty()) {
    std::string why;
    for (const std::string& n : notes) why += "; " + n;
    throw InputError(rep.source + ": nothing timed to plot" +
                     (why.empty() ? "" : ": " + why.substr(2)));
  }

  const auto [xmin, xmax] = std::minmax_element(lengths.begin(), lengths.end());
  const auto [ymin, ymax] = std::minmax_element(times.begin(), times.end());
  const double bottom = kTop + kPlotH, right = kLeft + kPlotW;
  const LogAxis x = axis_over(*xmin, *xmax, kLeft, right);
  const LogAxis y = axis_over(*ymin, *ymax, bottom, kTop);

  // Text first, to size the canvas around it.
  const std::string title = rep.machine + ": paged KV-cache read time per call";
  const std::string subtitle =
      rep.config + " · readbench " + rep.git_commit +
      (rep.complete ? "" : " · " + rep.incompleteness()) +
      (rep.quality == QualityVerdict::contended
           ? " · CONTENDED: " + one_line(rep.quality_reasons.empty() ? std::string("see the report")
                                                                     : rep.quality_reasons[0])
           : std::string());
  std::vector<std::string> exponent_labels;
  std::vector<double> label_want;
  double label_w = 0;
  for (const Series& s : series)
    if (s.span) {
      exponent_labels.push_back(exponent_label(*s.result));
      label_want.push_back(y.px(fitted(*s.result->fit, s.span->second)));
      label_w = std::max(label_w, text_width(exponent_labels.back()));
    }
  const std::vector<double> label_y = spread(label_want, bottom);
  double width = right + 24 + label_w;
  // The title is 16 px bold: half as wide again as 12 px text.
  width = std::max({width, 20 + text_width(title) * 1.5, 20 + text_width(subtitle)});
  for (const Series& s : series)
    width = std::max(width, kLeft + 44 + text_width(legend_label(*s.result)));
  for (const std::string& n : notes) width = std::max(width, kLeft + 10 + text_width(n));
  const double legend_top = bottom + 66;
  const double height = legend_top + kRow * double(series.size() + notes.size()) + 8;

  std::ostringstream o;
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << strprintf(
           "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
           "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
           width, height, width, height)
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << text("title", 10, 26, "font-size=\"16\" font-weight=\"bold\"", title)
    << text("subtitle", 10, 46, "fill=\"#555\"", subtitle)
    << axes(x, y, std::string(to_string(rep.statistic)));

  // Each series: its fitted line, the exponent beside the line's end, its markers.
  std::size_t fitted_index = 0;
  for (const Series& s : series) {
    const ReportResult& r = *s.result;
    o << strprintf("<g class=\"series\" fill=\"%s\" stroke=\"%s\">", s.colour(), s.colour())
      << "<title>" << escaped(r.label()) << "</title>\n";
    if (s.span) {
      const double x2 = x.px(s.span->second), y2 = y.px(fitted(*r.fit, s.span->second));
      const double label_at = label_y[fitted_index];
      std::string curve;
      for (const auto& [length, t] : affine_curve(*r.fit, s.grid, curve_floor(r)))
        curve += strprintf("%s%.1f,%.1f", curve.empty() ? "" : " ", x.px(length), y.px(t));
      if (!curve.empty())
        o << "<polyline class=\"affine\" points=\"" << curve
          << "\" fill=\"none\" stroke-width=\"1.2\" stroke-dasharray=\"5,3\"/>\n";
      // Where the fitted region starts: left of it the line is not fitted to the points.
      if (s.span->first > s.grid.first) {
        const double at = x.px(s.span->first);
        o << line("region-start", at, y.to, at, y.from,
                  "stroke-width=\"0.8\" stroke-dasharray=\"1,3\"")
          << text("region-start", at + 3, y.from - 6 - 14 * double(fitted_index),
                  "stroke=\"none\" font-size=\"10\"",
                  "fit from L = " + format_number(s.span->first));
      }
      o << line("fit", x.px(s.span->first), y.px(fitted(*r.fit, s.span->first)), x2, y2,
                "stroke-width=\"1.8\"")
        << line("leader", x2 + 4, y2, right + 6, label_at,
                "stroke-width=\"0.8\" stroke-dasharray=\"2,2\"")
        << text("exponent", right + 10, label_at + 4, "stroke=\"none\" xml:space=\"preserve\"",
                exponent_labels[fitted_index]);
      ++fitted_index;
    }
    for (const ReportPoint& p : r.points) {
      const bool used = s.span && p.length >= s.span->first && p.length <= s.span->second;
      o << marker(s.style, x.px(p.length), y.px(p.seconds),
                  r.label() + strprintf(" at L = %.0f: ", p.length) +
                      format_seconds(p.seconds, true) + (used ? "" : " (not fitted)"),
                  !used)
        << "\n";
    }
    o << "</g>\n";
  }

  // The legend, then what was not timed or failed.
  double row = legend_top;
  for (const Series& s : series) {
    o << strprintf("<g class=\"legend\" fill=\"%s\" stroke=\"%s\">\n", s.colour(), s.colour())
      << line("swatch", kLeft, row - 4, kLeft + 30, row - 4, "stroke-width=\"1.8\"")
      << marker(s.style, kLeft + 15, row - 4, "") << "\n"
      << text("legend", kLeft + 40, row, "fill=\"#222\" stroke=\"none\"", legend_label(*s.result))
      << "</g>\n";
    row += kRow;
  }
  for (const std::string& n : notes) {
    o << text("note", kLeft, row, "fill=\"#555\" font-style=\"italic\"", n);
    row += kRow;
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace readbench

namespace readbench {

std::string svg_escaped(std::string_view s) {
  return escaped(s);
}

}  // namespace readbench
