#pragma once
// The variant build's CUDA backend (tools/h200, docs/cuda.md, "The variant build"): a backend
// planned under any Tuning. Included only by the variant build's sources.
#include <cstdint>
#include <memory>
#include <vector>

#include "backends/backend.hpp"
#include "backends/cuda/decode_launch.hpp"

namespace readbench::cuda {

// A CUDA backend whose plan can be changed, for variant runs (tools/h200): only the variant
// build has it.
class TunableBackend : public Backend {
 public:
  // Plans the prepared workload again under `t`, keeping it uploaded.
  virtual void retune(const Tuning& t) = 0;
  // `calls` fused calls replayed from a graph after a cold flush, as time_calls does, with each
  // decode block's globaltimer stamps: [calls][blocks][start, reads done, end, merged].
  struct Timeline {
    double event_s = 0;  // the events' time of the whole replay
    std::int64_t blocks = 0;
    std::vector<unsigned long long> stamps;
  };
  virtual Timeline timeline(int calls) = 0;
};

// make_cuda_backend planning under `t` rather than the defaults.
std::unique_ptr<TunableBackend> make_tunable_cuda_backend(int device, const Tuning& t);

}  // namespace readbench::cuda
