#pragma once
// `check --allow WORD,...`: reports a gate refuses to judge unless told to. An incomplete report
// (a run a signal stopped) lacks the lengths it never reached, so its exponents say less than
// the baseline's; the gate exits 4 on one rather than pass or fail it quietly.
#include <string>
#include <string_view>
#include <vector>

#include "report/report_input.hpp"

namespace readbench {

struct Allowances {
  bool incomplete = false;                 // judge incomplete reports anyway
  bool contended = false;                  // judge reports measured on a contended machine anyway
  bool not_reached = false;                // pass rows whose current fit is not at its asymptote
  std::vector<std::string> words() const;  // the words given, in the order above
};

// A comma-separated list of `incomplete`, `contended` and `not-reached` (--allow not given
// allows nothing). Throws InputError naming any other word, and on an empty list or word.
Allowances parse_allowances(std::string_view list);

// Throws CannotJudge naming the report when the baseline or the current report is incomplete
// or contended and that is not allowed. Otherwise returns one note per such report judged
// anyway.
std::vector<std::string> judged_anyway(const Report& baseline, const Report& current,
                                       const Allowances& allow);

}  // namespace readbench
