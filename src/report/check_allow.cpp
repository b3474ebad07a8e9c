#include "report/check_allow.hpp"

#include "core/errors.hpp"

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

std::vector<std::string> judged_anyway(const Report& baseline, const Report& current,
                                       const Allowances& allow) {
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
    if (report->quality == QualityVerdict::contended) {
      std::string why;
      for (const std::string& r : report->quality_reasons) why += (why.empty() ? "" : "; ") + r;
      const std::string which = std::string(what) + " " + report->source + " is contended" +
                                (why.empty() ? std::string() : " (" + why + ")");
      if (!allow.contended)
        throw CannotJudge("cannot judge: " + which + "; --allow contended judges it anyway");
      notes.push_back(which + ": judged anyway (--allow contended)");
    }
  }
  return notes;
}

}  // namespace readbench
