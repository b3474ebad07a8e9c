#include "report/format.hpp"

#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace readbench {

std::string one_line(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c == '\n' || c == '\r') c = ' ';
  return out;
}

std::string markdown_cell(std::string_view s) {
  std::string out;
  for (char c : one_line(s)) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string format_seconds(double s, bool micro_sign) {
  // Thresholds a rounding short of each unit, so 0.9999e-3 reads "1 ms", not "1e+03 us".
  const double a = std::abs(s);
  if (a >= 0.9995) return strprintf("%.3g s", s);
  if (a >= 0.9995e-3) return strprintf("%.3g ms", s * 1e3);
  if (a >= 0.9995e-6) return strprintf(micro_sign ? "%.3g µs" : "%.3g us", s * 1e6);
  return strprintf("%.3g ns", s * 1e9);
}

std::string format_fixed_cost(const AffineFit& a, bool micro_sign) {
  const auto t = [&](double s) { return format_seconds(s, micro_sign); };
  if (!a.fixed_ci95_low || !a.fixed_ci95_high)
    return "≈ 0 (not resolved: t0 = " + t(a.fixed_s) + " with no CI)";
  const std::string ci = t(*a.fixed_ci95_low) + " .. " + t(*a.fixed_ci95_high);
  if (*a.fixed_ci95_low > 0)
    return t(a.fixed_s) + " [" + t(*a.fixed_ci95_low) + ", " + t(*a.fixed_ci95_high) + "]";
  if (*a.fixed_ci95_high < 0)
    return "none (t0 = " + t(a.fixed_s) + ", CI " + ci +
           " wholly below 0: the line undercuts zero, the time grows faster than it)";
  return "≈ 0 (not resolved, CI " + ci + ")";
}

std::string exponent_with_ci(double p, std::optional<double> low, std::optional<double> high,
                             int decimals) {
  if (low && high)
    return strprintf("%.*f [%.*f, %.*f]", decimals, p, decimals, *low, decimals, *high);
  return strprintf("%.*f", decimals, p);
}

}  // namespace readbench
