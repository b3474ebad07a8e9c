#include "core/report_words.hpp"

#include <string>

#include "core/errors.hpp"

namespace readbench {

Statistic parse_statistic(std::string_view s) {
  if (const auto st = find_named(kStatisticNames, s)) return *st;
  throw InputError("unknown statistic '" + std::string(s) + "' (expected " +
                   names_of(kStatisticNames) + ")");
}

}  // namespace readbench
