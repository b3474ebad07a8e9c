#pragma once
// The f64 reference and the relative Frobenius error used to judge both paths.
#include <vector>

#include "core/host_workload.hpp"

namespace readbench {

// Decode attention for one replica, computed in f64 from the stored (rounded) inputs.
// Returns [B, Hq, D]. Throws Interrupted (interrupt.hpp) once a signal asks the run to stop.
std::vector<double> reference_attention(const HostWorkload& h, int replica = 0);

// ||out - ref||_F / ||ref||_F; NaN or inf anywhere in out gives +inf, so it never passes.
double relative_error(const std::vector<double>& out, const std::vector<double>& ref);

// Tolerances: f32 1e-5, f16 2e-3, bf16 1e-2.
double tolerance(DType t);

}  // namespace readbench
