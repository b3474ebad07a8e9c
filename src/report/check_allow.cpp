#include "report/check_allow.hpp"

#include "core/errors.hpp"
#include "core/power_law_fit.hpp"

namespace readbench {

std::vector<std::string> Allowances::words() const {
  std::vector<std::string> out;
  if (incomplete) out.push_back("incomplete");
  if (contended) out.push_back("contended");
  if (not_reached) out.push_back("not-reached");
  return out;
}

Allowances parse_allowances(std::string_view list) {
  // `--allow "$UNSET"` would otherwise allow nothing quietly, while `--allow incomplete,` is
  // refused.
  if (list.empty())
    throw InputError(
        "--allow: the value is empty (expected incomplete, contended or not-reached, "
        "comma-separated)");
  Allowances a;
  while (true) {
    const std::size_t comma = list.find(',');
    const std::string_view word = list.substr(0, comma);
    if (word == "incomplete")
      a.incomplete = true;
    else if (word == "contended")
      a.contended = true;
    else if (word == "not-reached")
      a.not_reached = true;
    else
      throw InputError("--allow: unknown word '" + std::string(word) +
                       "' (expected incomplete, contended or not-reached, comma-separated)");
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
    if (list.empty()) throw InputError("--allow: an empty word after the last comma");
  }
  return a;
}

namespace {

// The words the sweep's quality verdict uses for what the rows can judge themselves.
bool about_points(const std::string& reason) {
  return reason.find("kept samples whose threads lost their cores") != std::string::npos;
}
bool about_ceiling(const std::string& reason) {
  return reason.find("read ceiling moved") != std::string::npos;
}

}  // namespace

std::string contended_points(const ReportResult& r) {
  if (!r.fit) return {};
  const ReportPoint* before = nullptr;
  for (const ReportPoint& p : r.points) {
    if (p.length < r.fit->fit_from) continue;
    if (p.contended && before != nullptr && before->contended)
      return "L=" + format_number(before->length) + " and L=" + format_number(p.length);
    before = &p;
  }
  return {};
}

std::vector<std::string> judged_anyway(const Report& baseline, const Report& current,
                                       const Allowances& allow, bool costs) {
  std::vector<std::string> notes;
  for (const auto& [what, report] :
       {std::pair{"the current report", &current}, std::pair{"the baseline", &baseline}}) {
    if (!report->complete) {
      const std::string which =
          std::string(what) + " " + report->source + " is " + report->incompleteness();
      if (!allow.incomplete)
        throw CannotJudge("cannot judge: " + which +
                          " (its sweep ended early; --allow incomplete judges it anyway)");
      notes.push_back(which + ": judged anyway (--allow incomplete)");
    }
    // A contended report's numbers carry the machine's other work: neither a pass nor a fail
    // from it means anything about the read.
    // Disturbed points are the rows' to judge (contended_points), and a ceiling that moved
    // leaves exponents fitted over interleaved rounds to judge, but not costs.
    if (report->quality == QualityVerdict::contended) {
      std::string why;
      bool rows_judge = true;
      for (const std::string& r : report->quality_reasons) {
        why += (why.empty() ? "" : "; ") + r;
        rows_judge = rows_judge && (about_points(r) || (about_ceiling(r) && !costs));
      }
      const std::string which = std::string(what) + " " + report->source + " is contended" +
                                (why.empty() ? std::string() : " (" + why + ")");
      if (allow.contended)
        notes.push_back(which + ": judged anyway (--allow contended)");
      else if (rows_judge)
        notes.push_back(which + ": each row judged on its fitted region's points");
      else
        throw CannotJudge("cannot judge: " + which + "; --allow contended judges it anyway");
    }
  }
  return notes;
}

}  // namespace readbench
