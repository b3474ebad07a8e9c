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

// Throws CannotJudge naming the report when the baseline or the current report is incomplete,
// or contended by more than its points (a GPU's other work or held clocks), or when `costs` are
// judged across a read ceiling that moved during a run, and that is not allowed. Points that kept
// disturbed samples are judged row by row instead (contended_points), and a moved ceiling alone
// leaves the exponents to judge. Otherwise returns one note per such report judged anyway or
// left to its rows.
std::vector<std::string> judged_anyway(const Report& baseline, const Report& current,
                                       const Allowances& allow, bool costs = false);

// Where a row's fitted region holds two neighbouring points that kept disturbed samples: their
// lengths ("L=4096 and L=16384"), or empty. A disturbed point outside the region, or one among
// clean neighbours, leaves the fit to the clean points around it.
std::string contended_points(const ReportResult& r);

}  // namespace readbench
