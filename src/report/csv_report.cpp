#include "report/csv_report.hpp"

#include <sstream>

#include "report/csv.hpp"
#include "version.hpp"

namespace readbench {

std::string build_csv(const RunResult& run, const std::string& host) {
  std::ostringstream os;
  // `statistic` and `seconds` (the configured statistic's time, the one fitted) last; readers
  // (`readbench fit` among them) find columns by their names. Each row says where it came from
  // (host, commit, the run's quality verdict) and what its fit is (the exponent's 95% CI, the
  // region's first length), so a spreadsheet of several runs keeps them apart.
  os << "backend,path,dtype,kv_dtype,batch,threads,host,commit,quality,length,samples,"
        "calls_per_sample,min_s,median_s,mean_s,stddev_s,max_s,bytes,gbps,ceiling_fraction,"
        "length_dependent_share,exponent,ci95_low,ci95_high,fit_from,per_token_s,regime,"
        "fixed_s,fixed_resolved,marginal_s,asymptote_reached,statistic,seconds\n";
  const auto g = [](double v) { return csv_number(v); };
  const auto og = [](const std::optional<double>& v) { return csv_number(v); };
  const auto yes_no = [](bool b) { return b ? "true" : "false"; };
  const DType kv_dtype = run.config.workload(0).kv_dtype();
  const std::string quality(
      to_string(run.quality.contended ? QualityVerdict::contended : QualityVerdict::clean));
  for (const PathResult& r : run.results) {
    // The threads the CPU backend ran; empty for a GPU's rows.
    std::string threads;
    for (const BackendResult& b : run.backends)
      if (b.name == r.backend && r.backend == "cpu" && b.details.threads > 0)
        threads = std::to_string(b.details.threads);
    for (std::size_t i = 0; i < r.points.size(); ++i) {
      const PointResult& p = r.points[i];
      const SampleSummary& s = p.measurement.per_call;
      const ReadFit* f = r.fit ? &*r.fit : nullptr;
      os << csv_cell(r.backend) << ',' << to_string(r.path) << ',' << to_string(run.config.dtype)
         << ',' << to_string(kv_dtype) << ',' << run.config.shape.batch << ',' << threads << ','
         << csv_cell(host) << ',' << csv_cell(kGitCommit) << ',' << quality << ',' << p.length
         << ',' << s.count << ',' << p.measurement.calls_per_sample << ',' << g(s.min) << ','
         << g(s.median) << ',' << g(s.mean) << ',' << g(s.stddev) << ',' << g(s.max) << ','
         << p.bytes.total() << ',' << g(p.gbps) << ',' << g(p.ceiling_fraction) << ','
         << (f ? g(f->shares[i]) : "") << ',' << (f ? g(f->power.exponent) : "") << ','
         << (f ? og(f->power.ci95_low) : "") << ',' << (f ? og(f->power.ci95_high) : "") << ','
         << (f ? g(f->fit_from) : "") << ',' << (f ? g(f->power.per_token_s) : "") << ','
         << (f ? to_string(f->power.regime) : "") << ',' << (f ? g(f->affine.fixed_s) : "") << ','
         << (f ? yes_no(fixed_cost_resolved(f->affine)) : "") << ','
         << (f ? g(f->affine.marginal_s) : "") << ',' << (f ? yes_no(f->asymptote_reached) : "")
         << ',' << to_string(run.config.statistic) << ',' << g(p.seconds) << '\n';
    }
  }
  return os.str();
}

}  // namespace readbench
