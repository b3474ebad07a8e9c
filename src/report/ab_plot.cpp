#include "report/ab_plot.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/errors.hpp"
#include "core/strprintf.hpp"
#include "report/plot.hpp"

namespace readbench {

namespace {

constexpr double kPanelLeft = 80, kPanelTop = 40, kPanelW = 560, kPanelH = 220;
constexpr const char* kPairColours[] = {"#0072B2", "#D55E00", "#009E73",
                                        "#CC79A7", "#E69F00", "#56B4E9"};

// The arms' plot without its XML declaration, and its size.
struct Panel {
  std::string svg;
  double width = 0, height = 0;
};

Panel arms_panel(const AbReport& r) {
  Panel p;
  p.svg = plot_svg(arms_as_one_report(r));
  if (const auto at = p.svg.find("<svg"); at != std::string::npos) p.svg.erase(0, at);
  const auto number_after = [&](const char* key) {
    const auto at = p.svg.find(key);
    return at == std::string::npos ? 0.0 : std::atof(p.svg.c_str() + at + std::string(key).size());
  };
  p.width = number_after("width=\"");
  p.height = number_after("height=\"");
  return p;
}

}  // namespace

Report arms_as_one_report(const AbReport& r) {
  Report out = r.base;
  out.source = r.source;
  out.results.clear();
  for (const Report* arm : {&r.base, &r.head})
    for (ReportResult res : arm->results) {
      res.backend = std::string(arm == &r.base ? "base " : "head ") + res.backend;
      out.results.push_back(std::move(res));
    }
  return out;
}

std::string plot_ab_svg(const AbReport& r) {
  const Panel arms = arms_panel(r);
  const AbResult& ab = r.result;
  double lo_len = INFINITY, hi_len = 0, lo = ab.config.thresholds.max_cost_ratio, hi = lo;
  lo = std::min(lo, 1.0);
  for (const AbPairing& p : ab.pairings) {
    if (!p.comparison) continue;
    for (const LengthRatio& lr : p.comparison->lengths) {
      lo_len = std::min(lo_len, double(lr.length));
      hi_len = std::max(hi_len, double(lr.length));
      lo = std::min(lo, lr.ci95 ? lr.ci95->low : lr.ratio);
      hi = std::max(hi, lr.ci95 ? lr.ci95->high : lr.ratio);
    }
  }
  if (hi_len == 0) throw InputError(r.source + ": nothing to plot: no pairing has paired lengths");
  if (hi_len == lo_len) hi_len = lo_len * 4;
  const double pad = 0.08 * (hi - lo + 1e-3);
  lo -= pad;
  hi += pad;
  const double top = arms.height + kPanelTop;
  const auto x = [&](double len) {
    return kPanelLeft + std::log(len / lo_len) / std::log(hi_len / lo_len) * kPanelW;
  };
  const auto y = [&](double v) { return top + (hi - v) / (hi - lo) * kPanelH; };
  const double width = std::max(arms.width, kPanelLeft + kPanelW + 200);
  const double height = top + kPanelH + 40 + 18.0 * double(ab.pairings.size());
  std::ostringstream o;
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << strprintf(
           "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 "
           "%.0f %.0f\" "
           "font-family=\"sans-serif\" font-size=\"12\">\n",
           width, height, width, height)
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << arms.svg << "\n"
    << strprintf(
           "<text x=\"10\" y=\"%.1f\" font-size=\"14\" font-weight=\"bold\">head / base, pair by "
           "pair "
           "(95%% CI band): %s</text>\n",
           top - 14, svg_escaped(std::string(to_string(ab.verdict()))).c_str())
    << strprintf(
           "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
           "stroke=\"#333\"/>\n",
           kPanelLeft, top, kPanelW, kPanelH);
  // Five labelled ticks; the line of equality and the cost bound named at their right ends.
  for (int i = 0; i <= 4; ++i) {
    const double v = lo + (hi - lo) * i / 4;
    o << strprintf(
        "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n"
        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.3f</text>\n",
        kPanelLeft - 4, kPanelLeft, y(v), y(v), kPanelLeft - 6, y(v) + 4, v);
  }
  for (const double v : {1.0, ab.config.thresholds.max_cost_ratio})
    o << strprintf(
        "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-dasharray=\"4 "
        "3\"/>\n"
        "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">%s</text>\n",
        kPanelLeft, kPanelLeft + kPanelW, y(v), y(v), v == 1.0 ? "#888" : "#c00",
        kPanelLeft + kPanelW + 6, y(v) + (v == 1.0 ? 12 : -2), v == 1.0 ? "#555" : "#c00",
        v == 1.0 ? "equal" : strprintf("cost bound %.3g", v).c_str());
  for (double len = lo_len; len <= hi_len * 1.0001; len *= 4)
    o << strprintf("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>\n", x(len),
                   top + kPanelH + 16, len);
  o << strprintf(
      "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">history length L (tokens)</text>\n",
      kPanelLeft + kPanelW / 2, top + kPanelH + 32);
  for (std::size_t i = 0; i < ab.pairings.size(); ++i) {
    const AbPairing& p = ab.pairings[i];
    const char* colour = kPairColours[i % std::size(kPairColours)];
    if (p.comparison) {
      const auto& ls = p.comparison->lengths;
      std::string band, line;
      for (const LengthRatio& lr : ls)
        if (lr.ci95) band += strprintf("%.1f,%.1f ", x(double(lr.length)), y(lr.ci95->high));
      for (auto it = ls.rbegin(); it != ls.rend(); ++it)
        if (it->ci95) band += strprintf("%.1f,%.1f ", x(double(it->length)), y(it->ci95->low));
      for (const LengthRatio& lr : ls) line += strprintf("%.1f,%.1f ", x(double(lr.length)), y(lr.ratio));
      if (!band.empty())
        o << "<polygon points=\"" << band << "\" fill=\"" << colour << "\" fill-opacity=\"0.2\"/>\n";
      o << "<polyline points=\"" << line << "\" fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2\"/>\n";
      for (const LengthRatio& lr : ls)
        o << strprintf("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n", x(double(lr.length)),
                       y(lr.ratio), colour);
      o << strprintf(
          "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#333\" "
          "stroke-dasharray=\"2 2\"/>\n",
          x(std::max(lo_len, p.comparison->fit_from)), x(std::max(lo_len, p.comparison->fit_from)),
          top, top + kPanelH);
    }
    std::string label = p.name() + ": ";
    if (p.comparison && p.comparison->delta_p && p.comparison->cost_ratio)
      label += strprintf("delta p %+.3f, cost ratio %.3f, ", *p.comparison->delta_p, *p.comparison->cost_ratio);
    label += p.comparison ? std::string(to_string(p.comparison->verdict)) : "not compared: " + p.reason;
    o << strprintf("<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"4\" fill=\"%s\"/>\n",
                   kPanelLeft, top + kPanelH + 44 + 18.0 * double(i), colour)
      << strprintf("<text x=\"%.1f\" y=\"%.1f\">", kPanelLeft + 18,
                   top + kPanelH + 50 + 18.0 * double(i))
      << svg_escaped(label) << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace readbench
