// readbench's own CPU fused read as a plugin. Timed beside the built-in fused path
// (`readbench run --backend cpu --plugin libreadbench_fused_cpu.so`), the difference is what the
// plugin boundary costs: the call through a function pointer, the pointers it is handed and the
// code in a shared library.
#include <cstddef>
#include <new>

#include "backends/cpu/paged_attention.hpp"
#include "plugin_support.hpp"

namespace {

struct State {
  readbench::Workload workload;
  int threads = 1;
};

rb_status prepare(const rb_problem* p, void** state, char* err, std::size_t err_size) {
  const auto w = readbench::examples::workload_of(*p, err, err_size);
  if (!w) return RB_UNSUPPORTED;
  auto* s = new (std::nothrow) State{*w, p->threads > 0 ? p->threads : 1};
  if (s == nullptr) return RB_ERROR;
  *state = s;
  return RB_OK;
}

rb_status run(void* state, const rb_call* c, char*, std::size_t) {
  const State& s = *static_cast<const State*>(state);
  const readbench::cpu::ReadInputs in{s.workload, static_cast<const std::byte*>(c->k_pool),
                                      static_cast<const std::byte*>(c->v_pool), c->block_table,
                                      static_cast<const std::byte*>(c->q)};
  readbench::cpu::fused_read(in, static_cast<std::byte*>(c->out), s.threads);
  return RB_OK;
}

void release(void* state) {
  delete static_cast<State*>(state);
}

}  // namespace

extern "C" const rb_plugin* readbench_plugin(void) {
  static const rb_plugin plugin =
      readbench::examples::describe("readbench_fused_cpu", RB_BACKEND_CPU, prepare, run, release);
  return &plugin;
}
