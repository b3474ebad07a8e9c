#include "cli/parse_error_text.hpp"

#include <regex>

namespace readbench::cli {

namespace {

// CLI11's type names ("FLOAT", "INT:[1, 64]") in words; an unknown one as it comes.
std::string expected_value(const std::string& type) {
  const std::size_t colon = type.find(':');
  const std::string kind = type.substr(0, colon);
  const std::string bound = colon == std::string::npos ? "" : type.substr(colon + 1);
  std::string words = kind == "FLOAT"  ? "a number"
                      : kind == "INT"  ? "a whole number"
                      : kind == "UINT" ? "a whole number >= 0"
                      : kind == "TEXT" ? "a value"
                                       : kind;
  if (!bound.empty()) words += ", " + bound;
  return words;
}

std::string times(const std::string& count) {
  return count == "1" ? "once" : count == "2" ? "twice" : count + " times";
}

}  // namespace

std::string parse_error_text(const std::string& m) {
  static const std::regex missing(R"(^(\S+): (\d+) required (.+) missing$)");
  static const std::regex repeated(R"(^(\S+): At Most (\d+) required but received (\d+)$)");
  std::smatch g;
  if (std::regex_match(m, g, missing))
    return g[1].str() + ": the value is missing (expected " + expected_value(g[3].str()) + ")";
  if (std::regex_match(m, g, repeated))
    return g[2].str() == "1"
               ? g[1].str() + " is given " + times(g[3].str()) + ": give it once"
               : g[1].str() + " takes at most " + g[2].str() + " values, got " + g[3].str();
  return m;
}

}  // namespace readbench::cli
