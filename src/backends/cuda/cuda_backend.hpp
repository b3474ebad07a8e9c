#pragma once
// CUDA-only entry points beyond the Backend interface (make_cuda_backend is in backend.hpp).
#include "backends/backend.hpp"

namespace readbench::cuda {

// Plans a prepared CUDA backend again after cuda::tuning() changed, keeping its uploaded
// workload: for variant runs (bench/h200). Throws InputError for another backend.
void replan_cuda_backend(Backend& backend);

}  // namespace readbench::cuda
