// The CPU backend: runs the reads of paged_attention.cpp on host memory, timed by a
// monotonic clock, with a cache flush (and a primer call, see prime) between cold samples.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.hpp"
#include "backends/cpu/cache_flusher.hpp"
#include "backends/cpu/cache_topology.hpp"
#include "backends/cpu/contention_probe.hpp"
#include "backends/cpu/cpu_budget.hpp"
#include "backends/cpu/omp_wait_policy.hpp"
#include "backends/cpu/paged_attention.hpp"
#include "backends/cpu/sample_ranges.hpp"
#include "backends/cpu/stream_bandwidth.hpp"
#include "core/errors.hpp"
#include "plugins/plugin.hpp"

namespace readbench {

namespace {

using Clock = std::chrono::steady_clock;

// Smallest non-zero step of the clock seen in a burst of reads: its practical resolution.
double measure_clock_resolution() {
  double best = 1.0;
  for (int i = 0; i < 200; ++i) {
    const auto t0 = Clock::now();
    auto t1 = Clock::now();
    while (t1 == t0) t1 = Clock::now();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
  }
  return best;
}

// How cold samples start cold on this processor, for the report.
std::string cold_flush_description() {
  const std::string_view method = cpu::flush_method();
  if (method == "write") return "write over 1.25x the last-level cache";
  return std::string(method) + " of every line the timed calls touch";
}

// Threads and what set them: the option, else the CPUs this process may really use.
std::pair<int, std::string> threads_for(int asked) {
  if (asked > 0) return {asked, "--threads"};
  const cpu::CpuBudget b = cpu::available_cpus();
  return {b.cpus, b.limited_by == cpu::CpuLimit::quota ? "cgroup quota" : "affinity"};
}

// The plugins' side of one workload: each plugin prepared for it, the pools head-major where a
// plugin takes only that, and the sequence lengths its calls pass.
struct PluginCalls {
  std::map<std::string, std::unique_ptr<PreparedPlugin>> prepared;  // by plugin name
  AlignedBuffer k_hnd, v_hnd;
  std::vector<std::int32_t> seq_lens;

  PluginCalls() = default;
  PluginCalls(const Plugins& plugins, const HostWorkload& h, int threads) {
    const Workload& w = h.workload;
    seq_lens.assign(std::size_t(w.shape.batch), std::int32_t(w.length));
    for (const auto& p : plugins) {
      if (p->layout() == PoolLayout::hnd && k_hnd.size() == 0) {
        k_hnd = head_major_copy(h.k_pool, w);
        v_hnd = head_major_copy(h.v_pool, w);
      }
      prepared[p->name()] =
          std::make_unique<PreparedPlugin>(p, plugin_problem(w, p->layout(), -1, threads));
    }
  }

  const PreparedPlugin& plugin(const std::string& name) const {
    const auto it = prepared.find(name);
    if (it == prepared.end()) throw BackendError("cpu backend: no plugin named " + name);
    return *it->second;
  }

  // The K and V pools plugin `name` reads: `h`'s, or their head-major copies.
  std::pair<const std::byte*, const std::byte*> pools(const std::string& name,
                                                      const HostWorkload& h) const {
    if (plugin(name).plugin().layout() == PoolLayout::hnd) return {k_hnd.data(), v_hnd.data()};
    return {h.k_pool.data(), h.v_pool.data()};
  }

  // One call of plugin `name` on replica `replica` of `h` into `out`.
  void run(const std::string& name, const HostWorkload& h, int replica, std::byte* out) const {
    const auto [k, v] = pools(name, h);
    rb_call call{};
    call.k_pool = k;
    call.v_pool = v;
    call.block_table = h.table(replica);
    call.seq_lens = seq_lens.data();
    call.q = h.query(replica);
    call.out = out;
    plugin(name).run(call);
  }
};

// The gather path's contiguous copy of one call's history, K and V. The CPU backends of one
// process that share a workload (an ab worker's two arms at one length, views of one host
// workload) run one at a time, and those whose copies are of one size share one: they then
// write and read the same pages too, as they read the same pool. A copy goes with the last
// backend that holds it.
struct GatherCopy {
  AlignedBuffer k, v;
};

std::shared_ptr<GatherCopy> gather_copy(std::size_t history) {
  static std::mutex mutex;
  static std::map<std::size_t, std::weak_ptr<GatherCopy>> copies;  // by bytes of K
  const std::lock_guard lock(mutex);
  std::erase_if(copies, [](const auto& c) { return c.second.expired(); });
  std::weak_ptr<GatherCopy>& held = copies[history];
  if (auto copy = held.lock()) return copy;
  auto copy =
      std::make_shared<GatherCopy>(GatherCopy{AlignedBuffer(history, "the gathered K copy"),
                                              AlignedBuffer(history, "the gathered V copy")});
  held = copy;
  return copy;
}

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(std::pair<int, std::string> threads)
      : threads_(threads.first),
        threads_from_(std::move(threads.second)),
        resolution_(measure_clock_resolution()),
        probe_(threads_) {}

  std::string_view name() const override { return "cpu"; }
  double timer_resolution_s() const override { return resolution_; }
  std::int64_t cache_bytes() const override { return cpu::last_level_cache_bytes(); }

  BackendDetails details() const override {
    return {threads_,
            std::string(cpu::instruction_set()),
            threads_from_,
            cpu::wait_policy_in_effect(),
            "per-sample run-queue wait of each worker thread (schedstat)",
            cpu::last_level_cache().source,
            cold_flush_description(),
            {}};  // launch: a GPU's
  }

  Bandwidths measure_bandwidths() override { return cpu::measure_host_bandwidths(threads_); }

  void add_plugin(std::shared_ptr<const Plugin> plugin) override {
    if (plugin->backend() != name())
      throw BackendError("plugin " + plugin->name() + " runs on " + std::string(plugin->backend()) +
                         ", not the cpu backend");
    plugins_.push_back(std::move(plugin));
  }

  void prepare(HostWorkload&& w) override {
    release();
    work_ = std::move(w);
    const Workload& wl = work_->workload;
    out_ = output_buffer(wl);
    if (primer_ && !(primer_->workload.shape == wl.shape && primer_->workload.dtype == wl.dtype &&
                     primer_->workload.kv_dtype() == wl.kv_dtype())) {
      primer_plugin_calls_ = {};
      primer_out_ = {}, primer_k_ = {}, primer_v_ = {};
      primer_.reset();
    }
    if (!plugins_.empty()) plugin_calls_ = PluginCalls(plugins_, *work_, threads_);
  }

  void release() override {
    plugin_calls_ = {};  // released before their workload goes
    gather_.reset();
    out_ = {};
    work_.reset();
  }

  std::vector<double> run_for_check(Path p) override {
    const Workload& wl = require_workload();
    if (p == Path::gather) gather_workspace();
    const std::int64_t n = wl.io_elements();
    for (std::int64_t i = 0; i < n; ++i)
      store_as(wl.dtype, out_.data(), std::size_t(i), std::numeric_limits<float>::quiet_NaN());
    run(p, 0);
    std::vector<double> out(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
      out[std::size_t(i)] = load_as(wl.dtype, out_.data(), std::size_t(i));
    return out;
  }

  double time_calls(Path p, int calls, CacheState cache) override {
    const Workload& wl = require_workload();
    if (p == Path::gather) gather_workspace();  // before any timer
    if (cache == CacheState::cold) {
      if (!flusher_) flusher_.emplace(threads_);
      flusher_->flush(sample_buffers(p, calls));
      prime(p);
    }
    // The workers' scheduler counters are read outside the timed region, on every worker.
    probe_.before();
    const auto t0 = Clock::now();
    for (int i = 0; i < calls; ++i) run(p, i % wl.replicas);
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    disturbed_ = cpu::is_disturbed(probe_.after(), seconds);
    return seconds;
  }

  bool last_sample_disturbed() const override { return disturbed_; }

 private:
  const Workload& require_workload() const {
    if (!work_) throw BackendError("cpu backend: no workload prepared");
    return work_->workload;
  }

  // What a sample of `calls` calls reads or writes: for each replica they use, its K and V
  // blocks (in the layout the path reads), block table, query and output; the gather path's
  // workspace; a plugin's sequence lengths.
  std::vector<cpu::ByteRange> sample_buffers(const Path& p, int calls) const {
    const HostWorkload& h = *work_;
    const Workload& w = h.workload;
    const auto [k, v] = p.is_plugin() ? plugin_calls_.pools(p.plugin, h)
                                      : std::pair{h.k_pool.data(), h.v_pool.data()};
    const int used = std::min(calls, w.replicas);
    std::vector<cpu::ByteRange> ranges = cpu::kv_block_ranges(h, used, k, v);
    const std::size_t io_bytes = std::size_t(w.io_elements()) * element_size(w.dtype);
    const std::size_t table_bytes =
        std::size_t(w.shape.batch) * std::size_t(w.blocks_per_seq()) * sizeof(std::int32_t);
    for (int r = 0; r < used; ++r) {
      ranges.push_back({h.table(r), table_bytes});
      ranges.push_back({h.query(r), io_bytes});
      ranges.push_back({out_.data() + std::size_t(r) * io_bytes, io_bytes});
    }
    if (p == Path::gather) {
      ranges.push_back({gather_->k.data(), gather_->k.size()});
      ranges.push_back({gather_->v.data(), gather_->v.size()});
    }
    if (p.is_plugin())
      ranges.push_back(
          {plugin_calls_.seq_lens.data(), plugin_calls_.seq_lens.size() * sizeof(std::int32_t)});
    return ranges;
  }

  // A workload's output: [replicas, B, Hq, D].
  static AlignedBuffer output_buffer(const Workload& w) {
    return AlignedBuffer(std::size_t(w.replicas) * w.io_elements() * element_size(w.dtype),
                         "the output buffer");
  }

  // The gather path's workspace for the workload, taken at the first gather call on it: a run
  // without the gather path never takes its memory.
  void gather_workspace() {
    const std::size_t history = std::size_t(work_->workload.kv_bytes_per_call() / 2);
    if (!gather_ || gather_->k.size() != history) gather_ = gather_copy(history);
  }

  // The primer's (its own, not shared).
  static void gather_workspace(const HostWorkload& h, AlignedBuffer& k, AlignedBuffer& v) {
    const std::size_t history = std::size_t(h.workload.kv_bytes_per_call() / 2);
    if (k.size() == history) return;
    k = AlignedBuffer(history, "the gathered K copy");
    v = AlignedBuffer(history, "the gathered V copy");
  }

  // After the flush, one call of the same read on a one-block workload of the same shape with
  // buffers of its own: the code, the thread team and the heap are warm again, as in a serving
  // loop, while everything the timed call reads or writes (its K/V blocks, block table, query
  // and output) stays cold. Without it a cold call also paid for fetching its instructions and
  // the thread runtime's state from memory (fused at L = 16: a third of the best time, and
  // medians 5x the best), a fixed cost that no serving step pays.
  void prime(Path p) {
    if (!primer_) {
      Workload w = work_->workload;
      w.length = w.shape.block_size;
      w.replicas = 1;
      w.seed ^= 0x9e3779b97f4a7c15ull;
      primer_.emplace(make_host_workload(w));
      primer_out_ = output_buffer(w);
      if (!plugins_.empty()) primer_plugin_calls_ = PluginCalls(plugins_, *primer_, threads_);
    }
    if (p == Path::gather) gather_workspace(*primer_, primer_k_, primer_v_);
    try {
      run(*primer_, primer_plugin_calls_, p, 0, primer_out_, primer_k_, primer_v_);
    } catch (const PluginFailure&) {
      // A plugin that will not take the one-block primer: its timed call is then the first
      // call of its code since the flush. Its real calls still fail loudly.
      if (!p.is_plugin()) throw;
    }
  }

  void run(const Path& p, int replica) {
    run(*work_, plugin_calls_, p, replica, out_, gather_ ? gather_->k : no_copy_,
        gather_ ? gather_->v : no_copy_);
  }

  void run(const HostWorkload& h, const PluginCalls& plugin_calls, const Path& p, int replica,
           AlignedBuffer& out_buf, AlignedBuffer& gather_k, AlignedBuffer& gather_v) {
    const Workload& wl = h.workload;
    std::byte* out =
        out_buf.data() + std::size_t(replica) * wl.io_elements() * element_size(wl.dtype);
    if (p.is_plugin())
      plugin_calls.run(p.plugin, h, replica, out);
    else if (p == Path::fused)
      cpu::fused_read(h, replica, out, threads_);
    else
      cpu::gather_read(h, replica, out, {gather_k.data(), gather_v.data()}, threads_);
  }

  int threads_;
  std::string threads_from_;
  double resolution_;
  cpu::TeamProbe probe_;
  bool disturbed_ = false;
  std::optional<HostWorkload> work_;
  AlignedBuffer out_;
  std::shared_ptr<GatherCopy> gather_;  // the gather path's workspace, once it ran
  AlignedBuffer no_copy_;               // in its place before
  std::optional<cpu::CacheFlusher> flusher_;
  std::optional<HostWorkload> primer_;
  AlignedBuffer primer_out_, primer_k_, primer_v_;
  Plugins plugins_;
  PluginCalls plugin_calls_, primer_plugin_calls_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(int threads) {
  return std::make_unique<CpuBackend>(threads_for(threads));
}

}  // namespace readbench
