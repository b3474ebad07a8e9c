#include "core/lengths.hpp"

#include <charconv>
#include <string>

#include "core/errors.hpp"

namespace readbench {

namespace {

std::int64_t parse_positive(std::string_view s, std::string_view what) {
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range && ptr == s.data() + s.size())
    throw InputError("--lengths: " + std::string(what) +
                     (s.front() == '-' ? " must be positive, got " + std::string(s)
                                       : " '" + std::string(s) + "' is too large"));
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size())
    throw InputError("--lengths: " + std::string(what) + " '" + std::string(s) +
                     "' is not a whole number");
  if (v <= 0)
    throw InputError("--lengths: " + std::string(what) + " must be positive, got " +
                     std::string(s));
  return v;
}

std::vector<std::int64_t> parse_range(std::string_view text) {
  const auto c1 = text.find(':'), c2 = text.find(':', c1 + 1);
  if (c2 == std::string_view::npos || text.find(':', c2 + 1) != std::string_view::npos)
    throw InputError("--lengths: range '" + std::string(text) + "' must be START:END:xFACTOR");
  const std::int64_t start = parse_positive(text.substr(0, c1), "range start");
  const std::int64_t end = parse_positive(text.substr(c1 + 1, c2 - c1 - 1), "range end");
  std::string_view factor_text = text.substr(c2 + 1);
  if (factor_text.empty() || factor_text.front() != 'x')
    throw InputError("--lengths: range factor '" + std::string(factor_text) +
                     "' must be written xN, e.g. x4");
  const std::int64_t factor = parse_positive(factor_text.substr(1), "range factor");
  if (factor < 2)
    throw InputError("--lengths: range factor must be at least 2, got x" + std::to_string(factor));
  if (end < start)
    throw InputError("--lengths: range end " + std::to_string(end) + " is below its start " +
                     std::to_string(start));
  std::vector<std::int64_t> out;
  for (std::int64_t v = start; v <= end; v *= factor) {
    out.push_back(v);
    if (v > end / factor) break;
  }
  return out;
}

}  // namespace

std::vector<std::int64_t> parse_lengths(std::string_view text) {
  if (text.empty()) throw InputError("--lengths is empty");
  if (text.find(':') != std::string_view::npos) return parse_range(text);
  std::vector<std::int64_t> out;
  std::size_t pos = 0;
  while (true) {
    const auto comma = text.find(',', pos);
    const auto item = text.substr(pos, comma == std::string_view::npos ? text.npos : comma - pos);
    const std::int64_t v = parse_positive(item, "length");
    if (!out.empty() && v == out.back())
      throw InputError("--lengths: " + std::to_string(v) + " appears twice");
    if (!out.empty() && v < out.back())
      throw InputError("--lengths must be increasing: " + std::to_string(v) + " follows " +
                       std::to_string(out.back()));
    out.push_back(v);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return out;
}

}  // namespace readbench
