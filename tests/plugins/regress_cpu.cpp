// A CPU regression fixture (regression.hpp): readbench's fused read with known extra work.
#include <cstddef>
#include <cstdio>
#include <exception>
#include <new>
#include <optional>

#include "backends/cpu/paged_attention.hpp"
#include "core/aligned_buffer.hpp"
#include "plugin_support.hpp"
#include "regression.hpp"

namespace {

struct State {
  readbench::Workload workload, extra;  // extra.length == 0: no extra call
  readbench::AlignedBuffer scratch;     // the extra call's output, [B, Hq, D]
  int threads = 1;
};

rb_status prepare(const rb_problem* p, void** state, char* err, std::size_t err_size) {
  const auto w = readbench::examples::workload_of(*p, err, err_size);
  if (!w) return RB_UNSUPPORTED;
  auto* s = new (std::nothrow) State{*w, *w, {}, p->threads > 0 ? p->threads : 1};
  if (s == nullptr) return RB_ERROR;
  s->extra.length = regression::extra_tokens(w->length);
  try {
    if (s->extra.length > 0)
      s->scratch = readbench::AlignedBuffer(
          std::size_t(w->io_elements()) * readbench::element_size(w->dtype), "the scratch output");
  } catch (const std::exception& e) {
    std::snprintf(err, err_size, "%s", e.what());
    delete s;
    return RB_ERROR;
  }
  *state = s;
  return RB_OK;
}

rb_status run(void* state, const rb_call* c, char*, std::size_t) {
  State& s = *static_cast<State*>(state);
  const auto inputs = [&](const readbench::Workload& w) {
    return readbench::cpu::ReadInputs{w, static_cast<const std::byte*>(c->k_pool),
                                      static_cast<const std::byte*>(c->v_pool), c->block_table,
                                      static_cast<const std::byte*>(c->q)};
  };
  readbench::cpu::fused_read(inputs(s.workload), static_cast<std::byte*>(c->out), s.threads);
  if (s.extra.length > 0)
    readbench::cpu::fused_read(inputs(s.extra), s.scratch.data(), s.threads);
  return RB_OK;
}

void release(void* state) {
  delete static_cast<State*>(state);
}

}  // namespace

extern "C" const rb_plugin* readbench_plugin(void) {
  static const rb_plugin plugin =
      readbench::examples::describe("regress", RB_BACKEND_CPU, prepare, run, release);
  return &plugin;
}
