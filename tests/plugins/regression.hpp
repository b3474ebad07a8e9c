#pragma once
// The extra work of the regression fixtures (regress_cpu.cpp, regress_cuda.cpp): readbench's
// own fused read, plus the same read again over a prefix of the history into a scratch output,
// so the extra time is of the read's own kind and the answer stays right.
//   REGRESS_FRACTION  a constant share of the history read again: the marginal cost x (1 + f)
//   REGRESS_EXPONENT  from READBENCH_REGRESS_FROM tokens on (default 1024), the history read
//                     again (L/FROM)^k - 1 times: the time grows as L^k faster from there
// Built once per variant (tests/CMakeLists.txt), all named "regress", so the two arms of
// `readbench ab` can load two variants of one read.
#include <cmath>
#include <cstdint>
#include <cstdlib>

#ifndef REGRESS_FRACTION
#define REGRESS_FRACTION 0.0
#endif
#ifndef REGRESS_EXPONENT
#define REGRESS_EXPONENT 0.0
#endif

namespace regression {

inline double from_length() {
  const char* text = std::getenv("READBENCH_REGRESS_FROM");
  const double v = text != nullptr ? std::atof(text) : 0;
  return v > 0 ? v : 1024;
}

// Tokens of history the extra call reads at history `length`: 0 for none.
inline std::int64_t extra_tokens(std::int64_t length) {
  double extra = REGRESS_FRACTION * double(length);
  const double from = from_length();
  if (REGRESS_EXPONENT != 0 && double(length) > from)
    extra += double(length) * (std::pow(double(length) / from, REGRESS_EXPONENT) - 1);
  return std::min<std::int64_t>(length, std::llround(extra));
}

}  // namespace regression
