#pragma once
// The f64 reference and the relative Frobenius error used to judge both paths.
#include <cstdint>
#include <vector>

#include "core/host_workload.hpp"

namespace readbench {

// Decode attention for one replica, computed in f64 from the stored (rounded) inputs.
// Returns [B, Hq, D]. Throws Interrupted (interrupt.hpp) once a signal asks the run to stop.
std::vector<double> reference_attention(const HostWorkload& h, int replica = 0);

// ||out - ref||_F / ||ref||_F; NaN or inf anywhere in out gives +inf, so it never passes.
double relative_error(const std::vector<double>& out, const std::vector<double>& ref);

// Tolerances by the type of q and the output at history length `length`: f32 1e-5 (2^-23 *
// sqrt(L) past L = 7,000: the f32 sums' rounding grows with the tokens summed), f16 2e-3,
// bf16 1e-2 (the output's own rounding dominates at every length). e4m3 K/V add
// nothing to them: every kernel widens e4m3 exactly (3 mantissa bits and exponents -9..8 fit
// f16, bf16 and f32) and applies the scale once to the scores and once to the output, in f32
// (relative 2^-24 each, against the reference's f64 attention over the dequantized K/V).
double tolerance(DType t, std::int64_t length = 0);

}  // namespace readbench
