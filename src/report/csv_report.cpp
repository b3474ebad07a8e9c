#include "report/csv_report.hpp"

#include <sstream>

#include "report/csv.hpp"

namespace readbench {

std::string build_csv(const RunResult& run) {
  std::ostringstream os;
  // `statistic` and `seconds` (the configured statistic's time, the one fitted) last; readers
  // (`readbench fit` among them) find columns by their names.
  os << "backend,path,dtype,kv_dtype,batch,length,samples,calls_per_sample,min_s,median_s,mean_s,"
        "stddev_s,max_s,bytes,gbps,ceiling_fraction,length_dependent_share,exponent,per_token_s,"
        "regime,fixed_s,marginal_s,asymptote_reached,statistic,seconds\n";
  const auto g = [](double v) { return csv_number(v); };
  const DType kv_dtype = run.config.workload(0).kv_dtype();
  for (const PathResult& r : run.results) {
    for (std::size_t i = 0; i < r.points.size(); ++i) {
      const PointResult& p = r.points[i];
      const SampleSummary& s = p.measurement.per_call;
      os << csv_cell(r.backend) << ',' << to_string(r.path) << ',' << to_string(run.config.dtype)
         << ',' << to_string(kv_dtype) << ',' << run.config.shape.batch << ',' << p.length << ','
         << s.count << ',' << p.measurement.calls_per_sample << ',' << g(s.min) << ','
         << g(s.median) << ',' << g(s.mean) << ',' << g(s.stddev) << ',' << g(s.max) << ','
         << p.bytes.total() << ',' << g(p.gbps) << ',' << g(p.ceiling_fraction) << ','
         << (r.fit ? g(r.fit->shares[i]) : "") << ',' << (r.fit ? g(r.fit->power.exponent) : "")
         << ',' << (r.fit ? g(r.fit->power.per_token_s) : "") << ','
         << (r.fit ? to_string(r.fit->power.regime) : "") << ','
         << (r.fit ? g(r.fit->affine.fixed_s) : "") << ','
         << (r.fit ? g(r.fit->affine.marginal_s) : "") << ','
         << (r.fit ? (r.fit->asymptote_reached ? "true" : "false") : "") << ','
         << to_string(run.config.statistic) << ',' << g(p.seconds) << '\n';
    }
  }
  return os.str();
}

}  // namespace readbench
