// readbench's own CUDA fused read as a plugin: the same kernels and launch plan as the built-in
// fused path, called through the plugin interface on the stream readbench hands it. Timed beside
// the built-in path (`readbench run --backend cuda --plugin libreadbench_fused_cuda.so`), the
// difference is what the boundary costs.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <new>

#include "backends/cuda/decode_launch.hpp"
#include "plugin_support.hpp"

namespace {

namespace cuda = readbench::cuda;

struct State {
  cuda::DecodeProblem problem;
  cuda::DecodePlan plan;
  float* workspace = nullptr;  // partial outputs and log-sum-exps of split histories
  int* counters = nullptr;     // the in-kernel merge's counters, zero between calls
};

bool failed(cudaError_t e, char* err, std::size_t size) {
  if (e == cudaSuccess) return false;
  std::snprintf(err, size, "%s", cudaGetErrorString(e));
  return true;
}

void release(void* state) {
  auto* s = static_cast<State*>(state);
  if (s == nullptr) return;
  cudaFree(s->workspace);
  cudaFree(s->counters);
  delete s;
}

rb_status prepare(const rb_problem* p, void** state, char* err, std::size_t err_size) {
  const auto w = readbench::examples::workload_of(*p, err, err_size);
  if (!w) return RB_UNSUPPORTED;
  if (p->length > 0x7fffffff) {
    std::snprintf(err, err_size, "histories past 2^31 - 1 tokens");
    return RB_UNSUPPORTED;
  }
  auto* s = new (std::nothrow) State;
  if (s == nullptr) return RB_ERROR;
  int sms = 0;
  if (failed(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, p->device), err,
             err_size)) {
    release(s);
    return RB_ERROR;
  }
  try {
    s->problem = cuda::decode_problem(*w);
    // Plain launches: readbench's own calls are programmatic dependents of the kernel before
    // them (sm_90 on) except the first of a sample, which a plugin cannot tell apart.
    cuda::Tuning tuning;
    tuning.dependent_launch = false;
    s->plan = cuda::plan_decode(s->problem, cuda::KvLayout::paged, sms, tuning);
  } catch (const std::exception& e) {  // a head dim no kernel is compiled for
    std::snprintf(err, err_size, "%s", e.what());
    release(s);
    return RB_UNSUPPORTED;
  }
  const auto floats = cuda::workspace_floats(s->problem, s->plan);
  const auto counters = cuda::split_counter_count(s->problem, s->plan);
  if ((floats > 0 && failed(cudaMalloc(reinterpret_cast<void**>(&s->workspace),
                                       std::size_t(floats) * sizeof(float)),
                            err, err_size)) ||
      (counters > 0 &&
       (failed(
            cudaMalloc(reinterpret_cast<void**>(&s->counters), std::size_t(counters) * sizeof(int)),
            err, err_size) ||
        failed(cudaMemset(s->counters, 0, std::size_t(counters) * sizeof(int)), err, err_size)))) {
    release(s);
    return RB_ERROR;
  }
  *state = s;
  return RB_OK;
}

rb_status run(void* state, const rb_call* c, char* err, std::size_t err_size) {
  const State& s = *static_cast<const State*>(state);
  cuda::DecodeParams params;
  params.q = c->q;
  params.k = c->k_pool;
  params.v = c->v_pool;
  params.block_table = c->block_table;
  params.out = c->out;
  params.partial_out = s.workspace;
  params.partial_lse = s.workspace == nullptr
                           ? nullptr
                           : s.workspace + std::int64_t(s.problem.batch) * s.problem.q_heads *
                                               s.problem.head_dim * s.plan.splits;
  params.split_counters = s.counters;
  const cudaError_t e =
      cuda::launch_decode(s.problem, s.plan, params, static_cast<cudaStream_t>(c->stream));
  return failed(e, err, err_size) ? RB_ERROR : RB_OK;
}

}  // namespace

extern "C" const rb_plugin* readbench_plugin(void) {
  static const rb_plugin plugin =
      readbench::examples::describe("readbench_fused_cuda", RB_BACKEND_CUDA, prepare, run, release);
  return &plugin;
}
