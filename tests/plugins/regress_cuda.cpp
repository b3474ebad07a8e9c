// A CUDA regression fixture (regression.hpp): readbench's fused decode kernels with known extra
// work, the extra launch on the same stream.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <new>

#include "backends/cuda/decode_launch.hpp"
#include "plugin_support.hpp"
#include "regression.hpp"

namespace {

namespace cuda = readbench::cuda;

// One launch: its problem, plan and device buffers.
struct Launch {
  cuda::DecodeProblem problem;
  cuda::DecodePlan plan;
  float* workspace = nullptr;  // partial outputs and log-sum-exps of split histories
  int* counters = nullptr;     // the in-kernel merge's counters, zero between calls
};

struct State {
  Launch main, extra;
  bool has_extra = false;
  void* scratch = nullptr;  // the extra launch's output, [B, Hq, D]
};

bool failed(cudaError_t e, char* err, std::size_t size) {
  if (e == cudaSuccess) return false;
  std::snprintf(err, size, "%s", cudaGetErrorString(e));
  return true;
}

void release(void* state) {
  auto* s = static_cast<State*>(state);
  if (s == nullptr) return;
  for (Launch* l : {&s->main, &s->extra}) {
    cudaFree(l->workspace);
    cudaFree(l->counters);
  }
  cudaFree(s->scratch);
  delete s;
}

bool plan(const readbench::Workload& w, int sms, Launch& l, char* err, std::size_t err_size) {
  try {
    l.problem = cuda::decode_problem(w);
    cuda::Tuning tuning;
    tuning.dependent_launch = false;
    l.plan = cuda::plan_decode(l.problem, cuda::KvLayout::paged, sms, tuning);
  } catch (const std::exception& e) {
    std::snprintf(err, err_size, "%s", e.what());
    return false;
  }
  const auto floats = cuda::workspace_floats(l.problem, l.plan);
  const auto counters = cuda::split_counter_count(l.problem, l.plan);
  return !((floats > 0 && failed(cudaMalloc(reinterpret_cast<void**>(&l.workspace),
                                            std::size_t(floats) * sizeof(float)),
                                 err, err_size)) ||
           (counters > 0 &&
            (failed(cudaMalloc(reinterpret_cast<void**>(&l.counters),
                               std::size_t(counters) * sizeof(int)),
                    err, err_size) ||
             failed(cudaMemset(l.counters, 0, std::size_t(counters) * sizeof(int)), err,
                    err_size))));
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
             err_size) ||
      !plan(*w, sms, s->main, err, err_size)) {
    release(s);
    return RB_ERROR;
  }
  readbench::Workload extra = *w;
  extra.length = regression::extra_tokens(w->length);
  s->has_extra = extra.length > 0;
  if (s->has_extra &&
      (!plan(extra, sms, s->extra, err, err_size) ||
       failed(cudaMalloc(&s->scratch, std::size_t(w->io_elements()) *
                                          readbench::element_size(w->dtype)),
              err, err_size))) {
    release(s);
    return RB_ERROR;
  }
  *state = s;
  return RB_OK;
}

cudaError_t launch(const Launch& l, const rb_call* c, void* out) {
  cuda::DecodeParams params;
  params.q = c->q;
  params.k = c->k_pool;
  params.v = c->v_pool;
  params.block_table = c->block_table;
  params.out = out;
  params.partial_out = l.workspace;
  params.partial_lse = l.workspace == nullptr
                           ? nullptr
                           : l.workspace + std::int64_t(l.problem.batch) * l.problem.q_heads *
                                               l.problem.head_dim * l.plan.splits;
  params.split_counters = l.counters;
  return cuda::launch_decode(l.problem, l.plan, params, static_cast<cudaStream_t>(c->stream));
}

rb_status run(void* state, const rb_call* c, char* err, std::size_t err_size) {
  const State& s = *static_cast<const State*>(state);
  if (failed(launch(s.main, c, c->out), err, err_size)) return RB_ERROR;
  if (s.has_extra && failed(launch(s.extra, c, s.scratch), err, err_size)) return RB_ERROR;
  return RB_OK;
}

}  // namespace

extern "C" const rb_plugin* readbench_plugin(void) {
  static const rb_plugin plugin =
      readbench::examples::describe("regress", RB_BACKEND_CUDA, prepare, run, release);
  return &plugin;
}
