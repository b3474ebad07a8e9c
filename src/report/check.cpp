#include "report/check.hpp"

#include <algorithm>
#include <tuple>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/asymptote_fit.hpp"
#include "core/enum_names.hpp"
#include "core/errors.hpp"
#include "core/read_path.hpp"
#include "report/fit_json.hpp"
#include "report/format.hpp"
#include "report/setup_match.hpp"

namespace readbench {

namespace {

std::string with_reason(const std::string& what, const std::string& reason) {
  return reason.empty() ? what : what + ": " + one_line(reason);
}

bool positive_finite(double v) {
  return std::isfinite(v) && v > 0;
}

// The exponent at which a regime's band ends (flat < 0.2 <= sublinear < 0.8 <= linear < 1.25).
double regime_upper_edge(Regime r) {
  switch (r) {
    case Regime::flat:
      return 0.2;
    case Regime::sublinear:
      return 0.8;
    case Regime::linear:
      return 1.25;
    case Regime::superlinear:
      break;
  }
  return std::numeric_limits<double>::infinity();
}

// The first length at or above `first` from which every point of the side's series has a
// length-dependent share of at least kAsymptoteShare (by its own fit's shares); infinity if none.
double first_dominant_length(const ReportResult& side, double first) {
  double best = std::numeric_limits<double>::infinity();
  for (const ReportPoint& p : side.points) {
    if (p.length < first || p.length >= best) continue;
    bool dominant = true;
    for (std::size_t i = 0; i < side.points.size() && dominant; ++i)
      if (side.points[i].length >= p.length) dominant = side.fit->shares[i] >= kAsymptoteShare;
    if (dominant) best = p.length;
  }
  return best;
}

// A baseline row the current report lacks: a run that leaves out a path it used to time (or a
// report with the row deleted) would otherwise pass without the path being judged.
void missing(CheckRow& row) {
  row.verdict = Verdict::regression;
  row.reasons.push_back(
      "missing from the current report (in the baseline only; --allow-missing skips it)");
}

// The host set-up a row's numbers depend on: for the CPU backend its threads, CPU model and core
// count (setup_match.hpp); a GPU row's device is its GPU model, compared apart.
std::vector<std::string> host_differences_for(const Report& baseline, const Report& current,
                                              const std::string& backend) {
  if (backend != "cpu") return {};
  return host_setup_differences(baseline.origin(), current.origin());
}

// Whether a row judged ok whose current fit is not at its asymptote compared like with like all
// the same: on one set-up, a current fit that misses it only because its cost per token has not
// settled, against a baseline fit that reached it or misses it the same way, the exponent
// within the tolerance (the trend of current over baseline), and the two of the same shape
// beyond it: current over baseline cost per token at no compared length more than 1 +
// kSettleRise (the noise between a run's lengths) times its mean. A gathered copy outgrowing
// the caches bends both sides' series alike there, so their exponents describe the same change;
// a read that regressed into growing faster, or bends where the baseline did not, stays marked.
bool changes_alike(const CheckRow& row, const CheckOptions& o) {
  const ReadFit& base = *row.baseline->fit;
  return !row.configs_differ && row.extra_bend && *row.extra_bend <= 1 + kSettleRise &&
         row.delta_exponent && *row.delta_exponent <= o.tolerance + kExponentSlack &&
         only_unsettled(*row.current->fit) && (base.asymptote_reached || only_unsettled(base));
}

// A row judged ok whose current fit is not at its asymptote compared an exponent that is not
// the read's alone: marked, and named in the outcome so that the gate does not pass it unless
// --allow not-reached, or its change is the baseline's (changes_alike).
void mark_not_reached(CheckOutcome& out) {
  for (CheckRow& row : out.rows) {
    if (row.verdict != Verdict::ok || !row.current || !row.current->fit ||
        row.current->fit->asymptote_reached)
      continue;
    if (changes_alike(row, out.options)) {
      const std::string but =
          row.bend_left_out
              ? " but L=" + format_number(*row.bend_left_out) +
                    " (left out of that shape: it alone departs past the margin, between lengths "
                    "in shape, a disturbed point, not a bend; without it too the exponent rose "
                    "no more than the tolerance)"
              : std::string();
      row.notes.push_back(strprintf(
          "judged though the current fit is not at its asymptote (%s): over the compared "
          "lengths%s its cost per token over the baseline's is at most %.0f%% above its mean "
          "(a %.0f%% margin), on the same set-up, so both exponents describe the same change",
          one_line(row.current->fit->asymptote_reason).c_str(), but.c_str(),
          100 * (*row.extra_bend - 1), 100 * kSettleRise));
      continue;
    }
    row.notes.push_back(
        "NOT REACHED: the current fit is not at its asymptote (" +
        one_line(row.current->fit->asymptote_reason) + ")" +
        (out.options.allow.not_reached ? ", passed under --allow not-reached" : ", so not a pass"));
    out.not_reached.push_back(row.label());
  }
}

// Where a side whose report is contended has neighbouring disturbed points in the row's fitted
// region: which side and lengths, or empty. A clean report's points are its verdict's to judge.
std::string contended_rows(const CheckRow& row, const Report& baseline, const Report& current) {
  for (const auto& [side, r, report] :
       {std::tuple{"the current fit's", &row.current, &current},
        std::tuple{"the baseline fit's", &row.baseline, &baseline}})
    if (*r && report->quality == QualityVerdict::contended)
      if (const std::string at = contended_points(**r); !at.empty())
        return std::string(side) + " points " + at;
  return {};
}

// Whether both sides of a row are ok and fitted, so that their exponents may be compared; if
// not, the row's verdict (a regression where the current report failed a path the baseline
// timed) and why.
bool both_timed_and_fitted(CheckRow& row) {
  const ReportResult& b = *row.baseline;
  const ReportResult& c = *row.current;
  const std::string base_status(to_string(b.status)), current_status(to_string(c.status));
  if (c.status == Status::failed) {
    if (b.status == Status::ok) {
      row.verdict = Verdict::regression;
      row.reasons.push_back(with_reason("failed in the current report", c.reason));
    } else {
      row.reasons.push_back("failed in the current report, " + base_status + " in the baseline");
    }
    return false;
  }
  if (c.status != Status::ok) {
    row.reasons.push_back(with_reason(current_status + " in the current report", c.reason));
    return false;
  }
  if (b.status != Status::ok) {
    row.reasons.push_back(with_reason(base_status + " in the baseline", b.reason));
    return false;
  }
  if (!b.fit) {
    row.reasons.push_back("no fit in the baseline");
    return false;
  }
  if (!c.fit) {
    row.reasons.push_back("no fit in the current report");
    return false;
  }
  return true;
}

// The points of the lengths both sides timed, at or above `first`: the row's lengths, and each
// side's points there.
struct SharedPoints {
  std::vector<TimedPoint> baseline, current;
};
SharedPoints share_from(CheckRow& row, double first) {
  SharedPoints out;
  row.lengths.clear();
  for (const ReportPoint& p : row.baseline->points) {
    if (p.length < first) continue;
    for (const ReportPoint& q : row.current->points)
      if (q.length == p.length) {
        row.lengths.push_back(p.length);
        out.baseline.push_back({p.length, p.seconds});
        out.current.push_back({q.length, q.seconds});
      }
  }
  return out;
}

// A current region that starts past the baseline's because the current read's cost per token
// no longer settles over the baseline's lengths (it got dearer from some length on) would
// leave the row unjudged: the baseline's lengths are compared instead, from where the current
// read's own length-dependent share reaches kAsymptoteShare. Not when the region moved up
// because the current read's fixed cost grew: its shares below the region stay under the
// threshold, and the exponent there would describe the fixed cost (a lower one, judged ok).
// Nor against a baseline that never reached its asymptote: its region is not the read's.
// Returns why the baseline's lengths were not compared instead, or empty.
std::string fall_back_to_baseline_lengths(CheckRow& row, double from, SharedPoints& shared) {
  const ReadFit& bf = *row.baseline->fit;
  const ReadFit& cf = *row.current->fit;
  if (int(row.lengths.size()) >= kCheckMinLengths || !(cf.fit_from > bf.fit_from)) return {};
  const double shared_from = first_dominant_length(*row.current, bf.fit_from);
  if (!bf.asymptote_reached)
    return "not compared over the baseline's fitted lengths: the baseline did not reach its "
           "asymptote";
  if (!(shared_from < cf.fit_from))
    return "not compared below L=" + format_number(cf.fit_from) +
           ": the current read's length-dependent share is under " +
           format_number(kAsymptoteShare) +
           " there (a fifth or more of its time there is fixed cost)";
  shared = share_from(row, shared_from);
  if (int(row.lengths.size()) >= kCheckMinLengths) {
    row.notes.push_back(
        "compared over the baseline's fitted lengths from L=" + format_number(row.lengths.front()) +
        ": the current fit starts past them, at L=" + format_number(cf.fit_from));
  } else {
    shared = share_from(row, from);
  }
  return {};
}

// How far the current read's shape departs from the baseline's over the shared lengths
// (CheckRow::extra_bend): the log of current over baseline cost per token at each length, its
// highest above its mean. Anchored on the mean, not on the first length, so that one noisy
// point at the first length does not bend the whole comparison.
//
// Where that departs past 1 + kSettleRise, one length between the first and the last may be a
// disturbed point among lengths in shape rather than a bend (a bend persists to the longest
// length): it is left out (CheckRow::bend_left_out) when it alone lies past the margin from
// the rest's mean, above or below, and every other length lies within the margin of that mean,
// above and below (so that an alternating series, which no one length explains, stays a
// bend). Three lengths at least stay. judge() keeps it in where leaving it out would hide an
// exponent rise. `all` is the departure over every length.
struct Bend {
  double departure, all;
  std::optional<double> left_out;
};

// The mean of the log-ratios but the one at `skip` (none where skip is past the end).
double mean_but(const std::vector<double>& log_ratio, std::size_t skip) {
  const double n = double(log_ratio.size() - (skip < log_ratio.size() ? 1 : 0));
  double mean = 0;
  for (std::size_t i = 0; i < log_ratio.size(); ++i)
    if (i != skip) mean += log_ratio[i] / n;
  return mean;
}

// How far the log-ratios but the one at `skip` lie from their mean, in log: the highest above
// it and the farthest either way. Infinite where a ratio is not finite, so that no margin holds
// them.
struct Spread {
  double above, either;
};
Spread spread_but(const std::vector<double>& log_ratio, std::size_t skip) {
  const double mean = mean_but(log_ratio, skip);
  const double inf = std::numeric_limits<double>::infinity();
  if (!std::isfinite(mean)) return {inf, inf};
  Spread out{-inf, 0};
  for (std::size_t i = 0; i < log_ratio.size(); ++i)
    if (i != skip) {
      out.above = std::max(out.above, log_ratio[i] - mean);
      out.either = std::max(out.either, std::abs(log_ratio[i] - mean));
    }
  return out;
}

// A departure in log as a factor, capped where exp would overflow.
double factor(double log_departure) { return std::exp(std::min(log_departure, 690.0)); }

Bend extra_bend(const SharedPoints& shared) {
  const std::map<double, double> b = log_cost_per_token(shared.baseline);
  const std::map<double, double> c = log_cost_per_token(shared.current);
  std::vector<double> lengths, log_ratio;
  for (const auto& [length, cost] : c) {
    lengths.push_back(length);
    log_ratio.push_back(cost - b.at(length));
  }
  const double all = factor(spread_but(log_ratio, log_ratio.size()).above);
  Bend out{all, all, std::nullopt};
  if (!(all > 1 + kSettleRise) || int(log_ratio.size()) <= kCheckMinLengths) return out;
  const double margin = std::log1p(kSettleRise);
  for (std::size_t i = 1; i + 1 < log_ratio.size(); ++i)
    if (const Spread rest = spread_but(log_ratio, i);
        factor(rest.above) < out.departure && rest.either <= margin &&
        std::abs(log_ratio[i] - mean_but(log_ratio, i)) > margin)
      out = {factor(rest.above), all, lengths[i]};
  return out;
}

// The exponent change over the shared lengths but `length`: where leaving a length out of the
// shape test would hide a rise past the tolerance that the other lengths show.
double delta_exponent_without(const SharedPoints& shared, double length) {
  SharedPoints rest;
  for (std::size_t i = 0; i < shared.current.size(); ++i)
    if (shared.current[i].length != length) {
      rest.baseline.push_back(shared.baseline[i]);
      rest.current.push_back(shared.current[i]);
    }
  return fit_power_law(rest.current).exponent - fit_power_law(rest.baseline).exponent;
}

// Too few shared lengths to compare exponents: the row is skipped, unless the cost rule, which
// reads each side's own fit whatever lengths they share, finds a regression.
void judge_too_few_lengths(CheckRow& row, const CheckOptions& o, double from, bool costs,
                           const std::string& not_fallen_back) {
  const ReadFit& bf = *row.baseline->fit;
  const ReadFit& cf = *row.current->fit;
  const std::string skip = strprintf(
      "the reports share %zu length%s at or above both fits' fit_from (L >= %s); %d are "
      "needed to compare exponents",
      row.lengths.size(), row.lengths.size() == 1 ? "" : "s", format_number(from).c_str(),
      kCheckMinLengths);
  if (!not_fallen_back.empty()) row.notes.push_back(not_fallen_back);
  if (o.max_cost_ratio && costs &&
      cf.affine.marginal_s / bf.affine.marginal_s > *o.max_cost_ratio) {
    row.cost_ratio = cf.affine.marginal_s / bf.affine.marginal_s;
    row.verdict = Verdict::regression;
    row.reasons.push_back(
        strprintf("marginal cost per token ratio %.2f > %g", *row.cost_ratio, *o.max_cost_ratio));
    row.notes.push_back("exponents not compared: " + skip);
    return;
  }
  row.reasons.push_back(skip);
}

// The exponent over the shared lengths against the baseline's plus the tolerance.
void judge_exponent(CheckRow& row, const CheckOptions& o) {
  const FitResult& bf = *row.baseline_fit;
  const FitResult& cf = *row.current_fit;
  const double limit = bf.exponent + o.tolerance;
  if (!(cf.exponent > limit + kExponentSlack)) return;
  const bool has_ci = cf.ci95_low && cf.ci95_high;
  // Without a CI the point estimate is all there is; with one, only a CI wholly above
  // the limit says the rise is more than noise.
  if (!has_ci) {
    row.verdict = Verdict::regression;
    row.reasons.push_back(strprintf(
        "exponent %.3f > baseline %.3f + tolerance %g (no CI: the point estimate decides)",
        cf.exponent, bf.exponent, o.tolerance));
  } else if (*cf.ci95_low > limit + kExponentSlack) {
    row.verdict = Verdict::regression;
    row.reasons.push_back(strprintf(
        "exponent %.3f > baseline %.3f + tolerance %g, its 95%% CI [%.3f, %.3f] wholly above",
        cf.exponent, bf.exponent, o.tolerance, *cf.ci95_low, *cf.ci95_high));
  } else {
    row.notes.push_back(strprintf(
        "exponent up %.3f, more than the tolerance, but its 95%% CI reaches down to %.3f, "
        "not wholly above %.3f",
        *row.delta_exponent, *cf.ci95_low, limit));
  }
}

// A worse regime word, with the same evidence as for the exponent: the whole CI past the
// baseline band's upper edge.
void judge_regime(CheckRow& row) {
  const FitResult& bf = *row.baseline_fit;
  const FitResult& cf = *row.current_fit;
  if (!(cf.regime > bf.regime)) return;
  const double edge = regime_upper_edge(bf.regime);
  const double low = cf.ci95_low ? *cf.ci95_low : cf.exponent;
  const std::string change =
      std::string(to_string(bf.regime)) + " -> " + std::string(to_string(cf.regime));
  if (low >= edge) {
    row.verdict = Verdict::regression;
    row.reasons.push_back(strprintf("regime worsened: %s, the 95%% CI wholly at or above %.2f",
                                    change.c_str(), edge));
  } else {
    row.notes.push_back(
        strprintf("regime word %s, but the 95%% CI reaches down to %.3f, below the %.2f band edge",
                  change.c_str(), low, edge));
  }
}

// The marginal cost per token's ratio against --max-cost-ratio, where it is set.
void judge_cost_ratio(CheckRow& row, const CheckOptions& o) {
  if (!o.max_cost_ratio) return;
  if (!row.cost_ratio) {
    row.notes.push_back("no cost ratio: a marginal cost per token is not positive");
  } else if (*row.cost_ratio > *o.max_cost_ratio) {
    row.verdict = Verdict::regression;
    row.reasons.push_back(
        strprintf("marginal cost per token ratio %.2f > %g", *row.cost_ratio, *o.max_cost_ratio));
  }
}

// The rules for one backend/path present in both reports.
void judge(CheckRow& row, const CheckOptions& o) {
  if (!both_timed_and_fitted(row)) return;
  const ReadFit& b = *row.baseline->fit;
  const ReadFit& c = *row.current->fit;
  // Exponents compare only over lengths both timed, past both fits' fixed-cost region.
  const double from = std::max(b.fit_from, c.fit_from);
  SharedPoints shared = share_from(row, from);
  const std::string not_fallen_back = fall_back_to_baseline_lengths(row, from, shared);
  const bool costs = b.affine.marginal_s > 0 && c.affine.marginal_s > 0;
  if (int(row.lengths.size()) < kCheckMinLengths) {
    judge_too_few_lengths(row, o, from, costs, not_fallen_back);
    return;
  }
  row.baseline_fit = fit_power_law(shared.baseline);
  row.current_fit = fit_power_law(shared.current);
  row.verdict = Verdict::ok;
  row.delta_exponent = row.current_fit->exponent - row.baseline_fit->exponent;
  if (costs) row.cost_ratio = c.affine.marginal_s / b.affine.marginal_s;
  const Bend bend = extra_bend(shared);
  // Leaving a length out of the shape test may not hide an exponent rise: where the exponents
  // without it rose past the tolerance, it stays in.
  const bool leave_out =
      bend.left_out && !(delta_exponent_without(shared, *bend.left_out) >
                         o.tolerance + kExponentSlack);
  row.extra_bend = leave_out ? bend.departure : bend.all;
  if (leave_out) row.bend_left_out = bend.left_out;
  judge_exponent(row, o);
  judge_regime(row);
  judge_cost_ratio(row, o);
}

std::string plural(int n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string gate_words(const CheckOptions& o) {
  return "tolerance " + format_number(o.tolerance) + ", cost gate " +
         (o.max_cost_ratio ? format_number(*o.max_cost_ratio) + "x" : std::string("off"));
}

// "0.812 [0.688, 0.930]" over the compared lengths, or what stands in for a fit.
std::string exponent_cell(const std::optional<ReportResult>& side,
                          const std::optional<FitResult>& compared) {
  if (!side) return "absent";
  if (side->status != Status::ok) return std::string(to_string(side->status));
  if (!side->fit) return "no fit";
  const FitResult& f = compared ? *compared : side->fit->power;
  return exponent_with_ci(f.exponent, f.ci95_low, f.ci95_high, 3) + (f.ci95_low ? "" : " (no CI)");
}

std::string regime_cell(const CheckRow& row) {
  const FitResult* b = row.baseline_fit ? &*row.baseline_fit : nullptr;
  const FitResult* c = row.current_fit ? &*row.current_fit : nullptr;
  if (!b && !c) return "-";
  if (b && c && b->regime == c->regime) return std::string(to_string(b->regime));
  const auto word = [](const FitResult* f) { return f ? std::string(to_string(f->regime)) : "-"; };
  return word(b) + " -> " + word(c);
}

const ReadFit* fit_of(const std::optional<ReportResult>& side) {
  return side && side->fit ? &*side->fit : nullptr;
}

std::string cost_cell(const CheckRow& row) {
  const ReadFit* b = fit_of(row.baseline);
  const ReadFit* c = fit_of(row.current);
  const auto cost = [](const ReadFit* f) { return f ? format_seconds(f->affine.marginal_s) : "-"; };
  if (!b && !c) return "-";
  return cost(b) + " -> " + cost(c);
}

std::string lengths_cell(const CheckRow& row) {
  if (row.lengths.empty()) return "-";
  return strprintf("%zu: %.0f..%.0f", row.lengths.size(), row.lengths.front(), row.lengths.back());
}

std::string verdict_cell(const CheckRow& row) {
  std::string out;
  std::string reasons;
  for (const std::string& r : row.reasons) reasons += (reasons.empty() ? "" : "; ") + r;
  switch (row.verdict) {
    case Verdict::ok:
      out = "ok";
      break;
    case Verdict::regression:
      out = "**REGRESSION**: " + reasons;
      break;
    case Verdict::skipped:
      out = "skipped: " + reasons;
      break;
  }
  std::string notes;
  for (const std::string& n : row.notes) notes += (notes.empty() ? "" : "; ") + n;
  if (!notes.empty()) out += " (note: " + notes + ")";
  return markdown_cell(out);
}

std::string describe(const ReportOrigin& s) {
  std::string out = "`" + s.source + "` (" + s.machine;
  if (!s.git_commit.empty()) out += ", readbench " + s.git_commit;
  return out + ")";
}

Json side_to_json(const std::optional<ReportResult>& side) {
  if (!side) return nullptr;
  return {{"status", to_string(side->status)},
          {"reason", side->reason},
          {"fit", side->fit ? fit_to_json(*side->fit) : Json(nullptr)}};
}

Json compared_to_json(const std::optional<FitResult>& f) {
  if (!f) return nullptr;
  return {{"exponent", f->exponent},
          {"ci95", f->ci95_low ? Json::array({*f->ci95_low, *f->ci95_high}) : Json(nullptr)},
          {"regime", to_string(f->regime)}};
}

}  // namespace

void validate(const CheckOptions& o) {
  if (!std::isfinite(o.tolerance) || o.tolerance < 0)
    throw InputError("--tolerance must be a finite number >= 0, got " + format_number(o.tolerance));
  if (o.max_cost_ratio && !positive_finite(*o.max_cost_ratio))
    throw InputError("--max-cost-ratio must be a finite number > 0, got " +
                     format_number(*o.max_cost_ratio));
}

std::string_view to_string(Verdict v) {
  static constexpr Named<Verdict> kNames[] = {
      {Verdict::ok, "ok"}, {Verdict::regression, "regression"}, {Verdict::skipped, "skipped"}};
  return name_in(kNames, v);
}

CheckOutcome check_reports(const Report& baseline, const Report& current, const CheckOptions& o) {
  validate(o);
  CheckOutcome out;
  out.options = o;
  out.baseline = baseline.origin();
  out.current = current.origin();
  out.notes = judged_anyway(baseline, current, o.allow, o.max_cost_ratio.has_value());
  out.incomplete_judged = !baseline.complete || !current.complete;
  out.contended_judged =
      baseline.quality == QualityVerdict::contended || current.quality == QualityVerdict::contended;
  // What changes the numbers must match: the workload (dtype, shape, cache), the statistic the
  // fits use, for GPU rows the GPU model, and how each backend launched its calls.
  std::vector<std::string> differences;
  if (baseline.config != current.config)
    differences.push_back("workload: baseline " + baseline.config + ", current " + current.config);
  if (baseline.statistic != current.statistic)
    differences.push_back("statistic: baseline " + std::string(to_string(baseline.statistic)) +
                          ", current " + std::string(to_string(current.statistic)));
  // The GPU behind each device backend, compared row by row (cuda:1 against cuda:1).
  const auto gpu_difference = [&](const std::string& backend) -> std::string {
    const std::string b = baseline.gpu_model(backend), c = current.gpu_model(backend);
    if (b.empty() || c.empty() || b == c) return {};
    return "GPU model: baseline " + b + ", current " + c;
  };
  // How a backend issued its built-in paths' calls changes their short calls' times (a dependent
  // launch overlaps each call with the end of the one before): compared where both reports say,
  // as recorded. A plugin's path says how its own calls went in its note.
  const auto launch_difference = [&](const std::string& backend,
                                     const std::string& path) -> std::string {
    if (path.rfind(kPluginPathPrefix, 0) == 0) return {};
    const auto b = baseline.launches.find(backend), c = current.launches.find(backend);
    if (b == baseline.launches.end() || c == current.launches.end() || b->second == c->second)
      return {};
    return "launch: baseline \"" + b->second + "\", current \"" + c->second + "\"";
  };
  const auto differences_of = [&](const std::string& backend, const std::string& path) {
    std::vector<std::string> d = differences;
    if (std::string g = gpu_difference(backend); !g.empty()) d.push_back(std::move(g));
    if (std::string l = launch_difference(backend, path); !l.empty()) d.push_back(std::move(l));
    for (std::string& h : host_differences_for(baseline, current, backend))
      d.push_back(std::move(h));
    return d;
  };
  const auto joined = [](const std::vector<std::string>& d) {
    std::string out;
    for (const std::string& x : d) out += (out.empty() ? "" : "; ") + x;
    return out;
  };
  const auto differences_for = [&](const std::string& backend, const std::string& path) {
    return joined(differences_of(backend, path));
  };
  if (o.allow_config_mismatch) {
    std::vector<std::string> all;  // each difference once, over every backend either report has
    for (const Report* r : {&baseline, &current})
      for (const ReportResult& x : r->results)
        for (const std::string& d : differences_of(x.backend, x.path))
          if (std::find(all.begin(), all.end(), d) == all.end()) all.push_back(d);
    if (!all.empty())
      out.notes.push_back(
          "the configurations differ and are judged anyway "
          "(--allow-config-mismatch): " +
          joined(all));
  }

  auto add_row = [&](const ReportResult& any) {
    for (const CheckRow& r : out.rows)
      if (r.backend == any.backend && r.path == any.path) return;  // a repeat: the first counts
    CheckRow row;
    row.backend = any.backend;
    row.path = any.path;
    if (const ReportResult* b = baseline.find(any.backend, any.path)) row.baseline = *b;
    if (const ReportResult* c = current.find(any.backend, any.path)) row.current = *c;
    const std::string mismatch = differences_for(any.backend, any.path);
    row.configs_differ = !mismatch.empty();
    if (!row.baseline)
      row.reasons.push_back("only in the current report");
    else if (!row.current && o.allow_missing)
      row.reasons.push_back("only in the baseline");
    else if (!row.current)
      missing(row);
    else if (!mismatch.empty() && !o.allow_config_mismatch)
      row.reasons.push_back("configurations differ (" + mismatch +
                            "): refused; --allow-config-mismatch judges it anyway");
    else if (const std::string busy = contended_rows(row, baseline, current);
             !busy.empty() && !o.allow.contended) {
      row.reasons.push_back("not judged: " + busy +
                            " kept disturbed samples (a busy machine); --allow contended judges it");
      out.contended.push_back(row.label());
    } else {
      judge(row, o);
    }
    out.rows.push_back(std::move(row));
  };
  for (const ReportResult& c : current.results) add_row(c);
  for (const ReportResult& b : baseline.results) add_row(b);

  std::string why_none;
  for (const CheckRow& r : out.rows) {
    if (r.verdict == Verdict::skipped) {
      ++out.skipped;
      why_none += (why_none.empty() ? "" : "; ") + r.label() + ": " + r.reasons.front();
    } else {
      ++out.compared;
      if (r.verdict == Verdict::regression) ++out.regressions;
    }
  }
  if (out.compared == 0 && !out.contended.empty())
    throw CannotJudge("cannot judge: " + why_none);
  if (out.compared == 0)
    throw InputError("nothing to compare: no backend/path could be judged in both " +
                     baseline.source + " and " + current.source + " (" +
                     (why_none.empty() ? std::string("no results") : why_none) + ")");
  mark_not_reached(out);
  return out;
}

std::string format_check_summary(const CheckOutcome& r) {
  std::string out = "readbench check: ";
  if (!r.judged() && !r.contended.empty()) {
    std::string which;
    for (const std::string& label : r.contended) which += (which.empty() ? "" : ", ") + label;
    out += "CANNOT JUDGE: " + plural(int(r.contended.size()), "row", "rows") + " (" + which +
           ") with neighbouring disturbed points in the fitted region: a busy machine; run again "
           "when it is quieter, or --allow contended judges them";
  } else if (!r.judged()) {
    std::string which;
    for (const std::string& label : r.not_reached) which += (which.empty() ? "" : ", ") + label;
    out += "CANNOT JUDGE: " + plural(int(r.not_reached.size()), "row's", "rows'") +
           " current fit not at its asymptote (" + which +
           "): the exponent compared is not the read's alone; extend the lengths, or --allow "
           "not-reached passes it";
  } else if (r.passed()) {
    out +=
        "PASS: " + plural(r.compared, "backend/path", "backend/paths") + " compared, no regression";
  } else {
    std::string which;
    for (const CheckRow& row : r.rows)
      if (row.verdict == Verdict::regression) which += (which.empty() ? "" : ", ") + row.label();
    out += "FAIL: " + plural(r.regressions, "regression", "regressions") + " in " +
           plural(r.compared, "backend/path", "backend/paths") + " compared: " + which;
  }
  out += " (" + gate_words(r.options) + ")";
  if (r.incomplete_judged) out += "; an incomplete report judged anyway";
  if (r.contended_judged) out += "; a contended report judged anyway";
  if (r.skipped > 0) out += "; " + std::to_string(r.skipped) + " skipped";
  return out;
}

std::string format_check_markdown(const CheckOutcome& r) {
  std::ostringstream os;
  os << "### readbench check: "
     << (r.passed()   ? "PASS"
         : r.judged() ? "FAIL"
                      : "CANNOT JUDGE")
     << "\n\n";
  os << "Current " << describe(r.current) << " against baseline " << describe(r.baseline) << "; "
     << gate_words(r.options) << ".\n\n";
  os << "| backend/path | lengths compared | baseline p [95% CI] | current p [95% CI] | Δp | "
        "regime | marginal cost per token | cost ratio | verdict |\n";
  os << "|---|---|---|---|---:|---|---|---:|---|\n";
  for (const CheckRow& row : r.rows) {
    os << "| " << markdown_cell(row.label()) << " | " << lengths_cell(row) << " | "
       << exponent_cell(row.baseline, row.baseline_fit) << " | "
       << exponent_cell(row.current, row.current_fit) << " | "
       << (row.delta_exponent ? strprintf("%+.3f", *row.delta_exponent) : "-") << " | "
       << regime_cell(row) << " | " << cost_cell(row) << " | "
       << (row.cost_ratio ? strprintf("%.2f", *row.cost_ratio) : "-") << " | " << verdict_cell(row)
       << " |\n";
  }
  os << '\n';
  for (const std::string& n : r.notes) os << "Note: " << one_line(n) << ".\n\n";
  os << format_check_summary(r) << '\n';
  return os.str();
}

Json check_to_json(const CheckOutcome& r) {
  Json rows = Json::array();
  for (const CheckRow& row : r.rows)
    rows.push_back({{"backend", row.backend},
                    {"path", row.path},
                    {"verdict", to_string(row.verdict)},
                    {"reasons", row.reasons},
                    {"notes", row.notes},
                    {"baseline", side_to_json(row.baseline)},
                    {"current", side_to_json(row.current)},
                    {"lengths", row.lengths},
                    {"baseline_compared", compared_to_json(row.baseline_fit)},
                    {"current_compared", compared_to_json(row.current_fit)},
                    {"delta_exponent", number_or_null(row.delta_exponent)},
                    {"extra_bend", number_or_null(row.extra_bend)},
                    {"bend_left_out", number_or_null(row.bend_left_out)},
                    {"cost_ratio", number_or_null(row.cost_ratio)}});
  return {{"verdict", r.passed()   ? "pass"
                      : r.judged() ? "fail"
                                   : "not-judged"},
          {"pass", r.passed()},
          {"tolerance", r.options.tolerance},
          {"max_cost_ratio", number_or_null(r.options.max_cost_ratio)},
          {"allow", r.options.allow.words()},
          {"incomplete_judged", r.incomplete_judged},
          {"contended_judged", r.contended_judged},
          {"not_reached", r.not_reached},
          {"baseline", origin_to_json(r.baseline)},
          {"current", origin_to_json(r.current)},
          {"compared", r.compared},
          {"regressions", r.regressions},
          {"skipped", r.skipped},
          {"notes", r.notes},
          {"rows", rows},
          {"summary", format_check_summary(r)}};
}

}  // namespace readbench
