#include "report/csv_report.hpp"

#include <cstdio>
#include <sstream>

namespace readbench {

namespace {
std::string g(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}
}  // namespace

std::string build_csv(const RunResult& run) {
  std::ostringstream os;
  os << "backend,path,dtype,batch,length,samples,calls_per_sample,min_s,median_s,mean_s,"
        "stddev_s,max_s,bytes,gbps,ceiling_fraction,exponent,per_token_s,regime\n";
  for (const PathResult& r : run.results) {
    for (const PointResult& p : r.points) {
      const SampleSummary& s = p.measurement.per_call;
      os << r.backend << ',' << to_string(r.path) << ',' << to_string(run.config.dtype) << ','
         << run.config.shape.batch << ',' << p.length << ',' << s.count << ','
         << p.measurement.calls_per_sample << ',' << g(s.min) << ',' << g(s.median) << ','
         << g(s.mean) << ',' << g(s.stddev) << ',' << g(s.max) << ',' << p.bytes.total() << ','
         << g(p.gbps) << ',' << g(p.ceiling_fraction) << ',' << (r.fit ? g(r.fit->exponent) : "")
         << ',' << (r.fit ? g(r.fit->per_token_s) : "") << ','
         << (r.fit ? to_string(r.fit->regime) : "") << '\n';
    }
  }
  return os.str();
}

}  // namespace readbench
