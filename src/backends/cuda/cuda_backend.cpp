// The CUDA backend: uploads the paged cache, runs the gather and fused paths, and
// times them with CUDA events, flushing the L2 between cold samples.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.hpp"
#include "backends/cuda/cuda_check.hpp"
#include "backends/cuda/cuda_resources.hpp"
#include "backends/cuda/decode_launch.hpp"
#include "backends/cuda/gpu_monitor.hpp"
#include "backends/cuda/stream_read.hpp"
#include "core/errors.hpp"
#include "plugins/plugin.hpp"
#if defined(READBENCH_BENCH_VARIANTS)  // the variant build's backend (tools/h200)
#include "backends/cuda/variants/tunable_backend.hpp"
#include "backends/cuda/variants/tuning_variants.hpp"
#endif

namespace readbench {

namespace {

using cuda::DeviceBuffer;

// A plugin's calls that recorded nothing on the stream they were given (work on a stream of
// its own, which the events cannot time): its path fails.
class NothingCaptured : public PluginFailure {
 public:
  using PluginFailure::PluginFailure;
};

std::string version_string(int v) {  // 13000 -> "13.0"
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

int device_attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  RB_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

#if defined(READBENCH_BENCH_VARIANTS)
using BackendBase = cuda::TunableBackend;
#else
using BackendBase = Backend;
#endif

class CudaBackend final : public BackendBase {
 public:
  // `variant`: the READBENCH_CUDA_TUNING spec of a variant build's readbench, or empty.
  CudaBackend(int device, const cuda::Tuning& tuning, std::string variant = {})
      : device_(device), tuning_(tuning), variant_(std::move(variant)) {
    RB_CUDA_CHECK(cudaSetDevice(device_));
    cudaDeviceProp prop{};
    RB_CUDA_CHECK(cudaGetDeviceProperties(&prop, device_));
    info_.index = device_;
    info_.name = prop.name;
    info_.compute_major = prop.major;
    info_.compute_minor = prop.minor;
    info_.sm_count = prop.multiProcessorCount;
    if (!cuda::kernels_support_dependent_launch()) tuning_.dependent_launch = false;
    info_.l2_bytes = prop.l2CacheSize;
    info_.memory_bytes = std::int64_t(prop.totalGlobalMem);
    // CUDA 13 dropped the clock fields of cudaDeviceProp; the attributes remain (kHz).
    info_.sm_clock_mhz = device_attribute(cudaDevAttrClockRate, device_) / 1000;
    info_.memory_clock_mhz = device_attribute(cudaDevAttrMemoryClockRate, device_) / 1000;
    info_.memory_bus_bits = device_attribute(cudaDevAttrGlobalMemoryBusWidth, device_);
    int driver = 0, runtime = 0;
    RB_CUDA_CHECK(cudaDriverGetVersion(&driver));
    RB_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    info_.driver_version = version_string(driver);
    info_.runtime_version = version_string(runtime);

    stream_ = std::make_unique<cuda::Stream>();
    start_ = std::make_unique<cuda::Event>();
    stop_ = std::make_unique<cuda::Event>();
    // Twice the L2: a memset that size leaves none of the previous sample's lines behind.
    flush_ = DeviceBuffer(std::size_t(std::max<std::int64_t>(2 * info_.l2_bytes, 16 << 20)),
                          "the L2 flush buffer");
    sink_ = DeviceBuffer(sizeof(unsigned), "the bandwidth sink");
    char pci[32] = {};
    if (cudaDeviceGetPCIBusId(pci, sizeof pci, device_) == cudaSuccess)
      monitor_ = std::make_unique<cuda::GpuMonitor>(pci);
  }

  BackendDetails details() const override {
    BackendDetails d;
    d.monitor = !monitor_               ? "none: the device's PCI bus id is unknown"
                : monitor_->available() ? "nvml"
                                        : "none: " + monitor_->unavailable_reason();
    d.cold_flush = "memset of twice the L2 (at least 16 MiB)";
    d.launch = tuning_.dependent_launch
                   ? "batches replayed from a CUDA graph; each kernel after a sample's first a "
                     "programmatic dependent of the one before: a call's launch and its reads "
                     "of the paged history overlap the end of the call before, q and every "
                     "write wait for it"
                   : "batches replayed from a CUDA graph; each kernel starts when the one "
                     "before has finished";
    if (!variant_.empty()) d.launch += "; variant build, tuning '" + variant_ + "'";
    return d;
  }

  std::string_view name() const override { return "cuda"; }
  double timer_resolution_s() const override { return 0.5e-6; }  // cudaEventElapsedTime
  std::int64_t cache_bytes() const override { return info_.l2_bytes; }
  std::optional<GpuInfo> gpu_info() const override { return info_; }

  Bandwidths measure_bandwidths() override;
  std::int64_t memory_available_bytes() const override;
#if defined(READBENCH_BENCH_VARIANTS)
  void retune(const cuda::Tuning& t) override;
  Timeline timeline(int calls) override;
#endif
  void prepare(HostWorkload&& w) override;
  std::vector<double> run_for_check(Path p) override;
  std::vector<double> read_output(int replica) override;
  double time_calls(Path p, int calls, CacheState cache) override;
  void add_plugin(std::shared_ptr<const Plugin> plugin) override;
  std::string path_note(const Path& p) const override;
  ~CudaBackend() override {
    graphs_.clear();  // graphs hold plugin kernels: gone before any plugin's library is
    prepared_plugins_.clear();
  }

 private:
  struct Prepared;
  void require_prepared() const;
  // `first`: the first call of a sample (or a lone call) is never a programmatic dependent, so
  // nothing of it starts before the event that opens the timed region.
  void enqueue(const Path& p, int replica, bool first);
  void enqueue_plugin(const std::string& name, int replica);
  void prepare_plugins(const HostWorkload& h);
  void flush_l2();
  double elapsed_s();
  cudaGraphExec_t graph_of(const Path& p, int calls);
  cudaGraphExec_t capture(const Path& p, int calls);
  static std::size_t split_state_bytes(const cuda::DecodeProblem& p, const cuda::DecodePlan& a,
                                       const cuda::DecodePlan& b);
  void allocate_split_state(const cuda::DecodeProblem& p, const cuda::DecodePlan& a,
                            const cuda::DecodePlan& b);

  int device_;
  cuda::Tuning tuning_;
  std::string variant_;
#if defined(READBENCH_BENCH_VARIANTS)
  unsigned long long* timeline_next_ = nullptr;  // the stamps of the call being enqueued
#endif
  GpuInfo info_;
  std::unique_ptr<cuda::Stream> stream_;
  std::unique_ptr<cuda::Event> start_, stop_;
  DeviceBuffer flush_, sink_;
#if defined(READBENCH_BENCH_VARIANTS)
  DeviceBuffer flush_clean_;  // the flush_read variant's second buffer
#endif
  unsigned flush_value_ = 0;

  bool prepared_ = false;
  Workload w_;
  cuda::DecodeProblem problem_;
  cuda::DecodePlan fused_plan_, gather_plan_;
  DeviceBuffer k_pool_, v_pool_, q_, table_, out_, workspace_, counters_;
  DeviceBuffer k_contig_, v_contig_;  // the gather path's materialized history
  std::string gather_unavailable_;    // why k_contig_/v_contig_ could not be allocated
  std::map<std::pair<Path, int>, cuda::GraphExec> graphs_;  // (path, calls) -> replay
  Plugins plugins_;
  std::map<std::string, std::unique_ptr<PreparedPlugin>> prepared_plugins_;  // by name
  DeviceBuffer seq_lens_, k_hnd_, v_hnd_;  // the plugins' sequence lengths and head-major pools
  std::map<std::string, std::string>
      not_captured_;                      // plugin name -> why its calls are not in a graph
  std::map<std::string, bool> captured_;  // plugin name -> a graph of its calls ran
  std::unique_ptr<cuda::GpuMonitor> monitor_;

 public:
  std::vector<std::string> device_conditions() const override {
    if (!monitor_) return {};
    if (!monitor_->available()) return {};
    return monitor_->conditions();
  }
};

Bandwidths CudaBackend::measure_bandwidths() {
  RB_CUDA_CHECK(cudaSetDevice(device_));
  // Many times the L2 (2 GiB against 50-60 MB on an H100/H200), or half of what is free.
  std::size_t free_bytes = 0, total_bytes = 0;
  RB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  std::size_t bytes = std::min<std::size_t>(std::size_t(2) << 30, free_bytes / 2);
  bytes = std::max<std::size_t>(bytes / (std::size_t(1) << 20), 1) << 20;  // whole MiB
  DeviceBuffer buf(bytes, "the bandwidth measurement");
  const cudaStream_t s = stream_->get();
  RB_CUDA_CHECK(cudaMemsetAsync(buf.data(), 0x5a, bytes, s));  // never time zeros

  constexpr int kWarmups = 2, kRuns = 10;
  auto best_of = [&](auto&& enqueue_one) {
    double best = std::numeric_limits<double>::infinity();
    for (int i = 0; i < kWarmups + kRuns; ++i) {
      RB_CUDA_CHECK(cudaEventRecord(start_->get(), s));
      enqueue_one();
      RB_CUDA_CHECK(cudaEventRecord(stop_->get(), s));
      const double t = elapsed_s();
      if (i >= kWarmups) best = std::min(best, t);
    }
    return best;
  };
  Bandwidths bw;
  bw.buffer_bytes = std::int64_t(bytes);
  const double read_s = best_of([&] {
    RB_CUDA_CHECK(
        cuda::launch_stream_read(buf.data(), bytes, sink_.as<unsigned>(), info_.sm_count, s));
  });
  bw.read_gbps = double(bytes) / read_s / 1e9;
  const std::size_t half = bytes / 2;
  const double copy_s = best_of([&] {
    RB_CUDA_CHECK(
        cudaMemcpyAsync(buf.data() + half, buf.data(), half, cudaMemcpyDeviceToDevice, s));
  });
  bw.copy_gbps = 2.0 * double(half) / copy_s / 1e9;  // bytes read plus bytes written
  return bw;
}

std::int64_t CudaBackend::memory_available_bytes() const {
  RB_CUDA_CHECK(cudaSetDevice(device_));
  std::size_t free_bytes = 0, total_bytes = 0;
  RB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return std::int64_t(free_bytes);
}

void CudaBackend::prepare(HostWorkload&& host) {
  RB_CUDA_CHECK(cudaSetDevice(device_));
  const HostWorkload h = std::move(host);  // the host copy goes once uploaded (its mappings to
                                           // the cache, for the next length's)
  const Workload& w = h.workload;
  w.shape.validate();
  const Shape& s = w.shape;
  // The kernels count tokens in int: a split's end, rounded up to a tile, and the blocks of a
  // sequence, rounded up, must stay below 2^31 too.
  constexpr std::int64_t kMaxLength = std::numeric_limits<int>::max() - (std::int64_t(1) << 21);
  if (w.length <= 0 || w.length > kMaxLength)
    throw InputError("history length " + std::to_string(w.length) +
                     " is outside the CUDA backend's range (1 to 2^31 - 2^21 - 1)");
  // Planning first refuses a head dim no kernel is compiled for.
  const cuda::DecodeProblem p = cuda::decode_problem(w);
  const cuda::DecodePlan fused =
      cuda::plan_decode(p, cuda::KvLayout::paged, info_.sm_count, tuning_);
  const cuda::DecodePlan gather =
      cuda::plan_decode(p, cuda::KvLayout::contiguous, info_.sm_count, tuning_);
  if (s.batch > 65535)
    throw InputError("--batch " + std::to_string(s.batch) +
                     " exceeds the CUDA backend's limit of 65535 sequences");
  constexpr auto kRowLimit = std::int64_t(std::numeric_limits<std::uint32_t>::max());
  if (w.num_blocks() * s.block_size > kRowLimit || std::int64_t(s.batch) * w.length > kRowLimit)
    throw InputError("the cache holds " + std::to_string(w.num_blocks() * s.block_size) +
                     " token rows, more than the CUDA backend's 32-bit row index addresses");

  prepared_ = false;
  graphs_.clear();
  prepared_plugins_.clear();  // released before the buffers they were prepared for
  seq_lens_.reset(), k_hnd_.reset(), v_hnd_.reset();
  k_pool_.reset(), v_pool_.reset(), q_.reset(), table_.reset(), out_.reset(), workspace_.reset();
  counters_.reset();
  k_contig_.reset(), v_contig_.reset();
  gather_unavailable_.clear();

  if (p.kv_heads * fused.head_tiles > 65535)
    throw InputError("--kv-heads " + std::to_string(p.kv_heads) +
                     " exceeds the CUDA backend's limit of 65535 thread-block rows");

  const std::size_t pool_bytes = std::size_t(w.pool_elements()) * element_size(w.kv_dtype());
  const std::size_t io_bytes =
      std::size_t(w.replicas) * std::size_t(w.io_elements()) * element_size(w.dtype);
  const std::size_t table_bytes = h.block_table.size() * sizeof(std::int32_t);
  const std::size_t ws_bytes = split_state_bytes(p, fused, gather);
  const std::size_t needed = 2 * pool_bytes + 2 * io_bytes + table_bytes + ws_bytes;
  std::size_t free_bytes = 0, total_bytes = 0;
  RB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (needed > free_bytes)
    throw BackendError(cuda::memory_shortfall(needed, "the workload (K/V pools of " +
                                                          std::to_string(pool_bytes) +
                                                          " bytes each, queries, outputs)"));
  if (h.k_pool.size() != pool_bytes || h.v_pool.size() != pool_bytes || h.q.size() != io_bytes ||
      h.block_table.size() != std::size_t(w.replicas) * s.batch * std::size_t(w.blocks_per_seq()))
    throw InputError("the host workload's buffers do not match its shape");

  k_pool_ = DeviceBuffer(pool_bytes, "the K pool");
  v_pool_ = DeviceBuffer(pool_bytes, "the V pool");
  q_ = DeviceBuffer(io_bytes, "the queries");
  out_ = DeviceBuffer(io_bytes, "the outputs");
  table_ = DeviceBuffer(table_bytes, "the block tables");
  allocate_split_state(p, fused, gather);
  RB_CUDA_CHECK(cudaMemcpy(k_pool_.data(), h.k_pool.data(), pool_bytes, cudaMemcpyHostToDevice));
  RB_CUDA_CHECK(cudaMemcpy(v_pool_.data(), h.v_pool.data(), pool_bytes, cudaMemcpyHostToDevice));
  RB_CUDA_CHECK(cudaMemcpy(q_.data(), h.q.data(), io_bytes, cudaMemcpyHostToDevice));
  RB_CUDA_CHECK(
      cudaMemcpy(table_.data(), h.block_table.data(), table_bytes, cudaMemcpyHostToDevice));

  // The gather path's contiguous copy may not fit where the fused path does: then only gather
  // fails, with the reason.
  const std::size_t contig_bytes = std::size_t(s.batch) * std::size_t(w.length) * s.kv_heads *
                                   s.head_dim * element_size(w.kv_dtype());
  try {
    k_contig_ = DeviceBuffer(contig_bytes, "the gather path's contiguous K");
    v_contig_ = DeviceBuffer(contig_bytes, "the gather path's contiguous V");
  } catch (const BackendError& e) {
    k_contig_.reset(), v_contig_.reset();
    gather_unavailable_ = e.what();
  }

  w_ = w;
  problem_ = p;
  fused_plan_ = fused;
  gather_plan_ = gather;
  prepare_plugins(h);
  // The uploads and the counters' memset went to the legacy stream, which the timing stream
  // (non-blocking) does not wait for, and a pageable upload may return before its last bytes
  // land: every one of them is done before the first call.
  RB_CUDA_CHECK(cudaDeviceSynchronize());
  prepared_ = true;
}

void CudaBackend::add_plugin(std::shared_ptr<const Plugin> plugin) {
  if (plugin->backend() != name())
    throw BackendError("plugin " + plugin->name() + " runs on " + std::string(plugin->backend()) +
                       ", not the cuda backend");
  plugins_.push_back(std::move(plugin));
}

// Each plugin prepared for the uploaded workload (current device set), with the sequence
// lengths its calls pass and, where one takes only head-major pools, a head-major copy.
void CudaBackend::prepare_plugins(const HostWorkload& h) {
  if (plugins_.empty()) return;
  const Workload& w = h.workload;
  const std::vector<std::int32_t> lens(std::size_t(w.shape.batch), std::int32_t(w.length));
  seq_lens_ = DeviceBuffer(lens.size() * sizeof(std::int32_t), "the plugins' sequence lengths");
  RB_CUDA_CHECK(
      cudaMemcpy(seq_lens_.data(), lens.data(), seq_lens_.size(), cudaMemcpyHostToDevice));
  for (const auto& plugin : plugins_) {
    if (plugin->layout() == PoolLayout::hnd && !k_hnd_) {
      for (auto [pool, out] : {std::pair{&h.k_pool, &k_hnd_}, std::pair{&h.v_pool, &v_hnd_}}) {
        const AlignedBuffer copy = head_major_copy(*pool, w);
        *out = DeviceBuffer(copy.size(), "a head-major pool for a plugin");
        RB_CUDA_CHECK(cudaMemcpy(out->data(), copy.data(), copy.size(), cudaMemcpyHostToDevice));
      }
    }
    auto prepared =
        std::make_unique<PreparedPlugin>(plugin, plugin_problem(w, plugin->layout(), device_, 0));
    // An error the plugin left behind would otherwise surface at the next built-in launch and
    // fail the whole backend.
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess)
      prepared->fail(std::string("left a CUDA error behind in prepare: ") + cudaGetErrorString(e));
    prepared_plugins_[plugin->name()] = std::move(prepared);
  }
}

std::string CudaBackend::path_note(const Path& p) const {
  if (!p.is_plugin()) return {};
  if (const auto it = not_captured_.find(p.plugin); it != not_captured_.end())
    return std::string(captured_.contains(p.plugin)
                           ? "calls replayed from the CUDA graphs captured first, then "
                           : "calls ") +
           "launched one by one: capturing them in a CUDA graph failed (" + it->second + ")";
  if (captured_.contains(p.plugin))
    return "calls replayed from a CUDA graph, as the built-in paths";
  return {};
}

#if defined(READBENCH_BENCH_VARIANTS)
// Plans again under `t`, growing the split workspace if needed.
void CudaBackend::retune(const cuda::Tuning& t) {
  RB_CUDA_CHECK(cudaSetDevice(device_));
  require_prepared();
  tuning_ = t;
  if (!cuda::kernels_support_dependent_launch()) tuning_.dependent_launch = false;
  fused_plan_ = cuda::plan_decode(problem_, cuda::KvLayout::paged, info_.sm_count, tuning_);
  gather_plan_ = cuda::plan_decode(problem_, cuda::KvLayout::contiguous, info_.sm_count, tuning_);
  allocate_split_state(problem_, fused_plan_, gather_plan_);
  graphs_.clear();
}

CudaBackend::Timeline CudaBackend::timeline(int calls) {
  RB_CUDA_CHECK(cudaSetDevice(device_));
  require_prepared();
  Timeline t;
  t.blocks = std::int64_t(fused_plan_.splits) *
             (problem_.kv_heads / fused_plan_.kernel.kv_per_block) * fused_plan_.head_tiles *
             problem_.batch;
  const std::size_t per_call = std::size_t(t.blocks) * cuda::kTimelineStamps;
  DeviceBuffer stamps(per_call * std::size_t(calls) * sizeof(unsigned long long), "the timeline");
  const cudaStream_t s = stream_->get();
  cudaGraph_t graph = nullptr;
  RB_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  try {
    for (int i = 0; i < calls; ++i) {
      timeline_next_ = stamps.as<unsigned long long>() + per_call * std::size_t(i);
      enqueue(Path::fused, i % w_.replicas, i == 0);
    }
  } catch (...) {  // no later call may write into the stamps, freed on the way out
    timeline_next_ = nullptr;
    cudaStreamEndCapture(s, &graph);
    if (graph != nullptr) cudaGraphDestroy(graph);
    throw;
  }
  timeline_next_ = nullptr;
  RB_CUDA_CHECK(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec = nullptr;
  const cudaError_t status = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  RB_CUDA_CHECK(status);
  const cuda::GraphExec owned(exec);
  RB_CUDA_CHECK(cudaGraphUpload(exec, s));
  flush_l2();
  RB_CUDA_CHECK(cudaEventRecord(start_->get(), s));
  RB_CUDA_CHECK(cudaGraphLaunch(exec, s));
  RB_CUDA_CHECK(cudaEventRecord(stop_->get(), s));
  t.event_s = elapsed_s();
  t.stamps.resize(per_call * std::size_t(calls));
  RB_CUDA_CHECK(cudaMemcpy(t.stamps.data(), stamps.data(), stamps.size(), cudaMemcpyDeviceToHost));
  return t;
}
#endif

std::size_t CudaBackend::split_state_bytes(const cuda::DecodeProblem& p, const cuda::DecodePlan& a,
                                           const cuda::DecodePlan& b) {
  const auto floats = std::max(cuda::workspace_floats(p, a), cuda::workspace_floats(p, b));
  const auto counters = std::max(cuda::split_counter_count(p, a), cuda::split_counter_count(p, b));
  return std::size_t(floats) * sizeof(float) + std::size_t(counters) * sizeof(int);
}

// Partial outputs of split histories, and the zeroed counters of the in-kernel merge.
void CudaBackend::allocate_split_state(const cuda::DecodeProblem& p, const cuda::DecodePlan& a,
                                       const cuda::DecodePlan& b) {
  const auto floats = std::max(cuda::workspace_floats(p, a), cuda::workspace_floats(p, b));
  const auto counters = std::max(cuda::split_counter_count(p, a), cuda::split_counter_count(p, b));
  if (std::size_t(floats) * sizeof(float) > workspace_.size())
    workspace_ = DeviceBuffer(std::size_t(floats) * sizeof(float), "the split-history workspace");
  if (std::size_t(counters) * sizeof(int) > counters_.size())
    counters_ = DeviceBuffer(std::size_t(counters) * sizeof(int), "the split counters");
  if (counters_) RB_CUDA_CHECK(cudaMemset(counters_.data(), 0, counters_.size()));
  RB_CUDA_CHECK(cudaDeviceSynchronize());  // the timing stream does not wait for the memset
}

void CudaBackend::require_prepared() const {
  if (!prepared_) throw BackendError("the CUDA backend was asked to run before prepare()");
}

// One call of plugin `name` on replica `replica`, enqueued on the stream by the plugin.
void CudaBackend::enqueue_plugin(const std::string& name, int replica) {
  const auto it = prepared_plugins_.find(name);
  if (it == prepared_plugins_.end()) throw BackendError("cuda backend: no plugin named " + name);
  const std::size_t io = std::size_t(w_.io_elements()) * element_size(w_.dtype);
  const bool hnd = it->second->plugin().layout() == PoolLayout::hnd;
  rb_call call{};
  call.k_pool = hnd ? k_hnd_.data() : k_pool_.data();
  call.v_pool = hnd ? v_hnd_.data() : v_pool_.data();
  call.block_table =
      table_.as<std::int32_t>() + std::size_t(replica) * w_.shape.batch * w_.blocks_per_seq();
  call.seq_lens = seq_lens_.as<std::int32_t>();
  call.q = q_.data() + std::size_t(replica) * io;
  call.out = out_.data() + std::size_t(replica) * io;
  call.stream = stream_->get();
  it->second->run(call);
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess)
    throw PluginFailure(it->second->plugin().path_name() +
                        " left a CUDA error behind: " + cudaGetErrorString(e));
}

// One call of path `p` on replica `replica`, enqueued on the stream.
void CudaBackend::enqueue(const Path& p, int replica, bool first) {
  if (p.is_plugin()) return enqueue_plugin(p.plugin, replica);
  const std::size_t io = std::size_t(w_.io_elements()) * element_size(w_.dtype);
  cuda::DecodeParams params;
  params.q = q_.data() + std::size_t(replica) * io;
  params.out = out_.data() + std::size_t(replica) * io;
  params.block_table =
      table_.as<std::int32_t>() + std::size_t(replica) * w_.shape.batch * w_.blocks_per_seq();
  cuda::DecodePlan plan = p == Path::fused ? fused_plan_ : gather_plan_;
  params.partial_out = workspace_.as<float>();
  params.partial_lse = params.partial_out + std::int64_t(w_.io_elements()) * plan.splits;
  params.split_counters = counters_.as<int>();
#if defined(READBENCH_BENCH_VARIANTS)
  if (cuda::variants_of(tuning_).merge_kernel) params.split_counters = nullptr;
  if (p == Path::fused) params.timeline = timeline_next_;
#endif
  if (p == Path::fused) {
    params.k = k_pool_.data();
    params.v = v_pool_.data();
    if (first) plan.dependent_launch = false;
  } else {  // the gather kernel opens the call; the decode after it is its dependent
    RB_CUDA_CHECK(cuda::launch_block_gather(problem_, k_pool_.data(), v_pool_.data(),
                                            params.block_table, k_contig_.data(), v_contig_.data(),
                                            plan.dependent_launch && !first, stream_->get()));
    params.k = k_contig_.data();
    params.v = v_contig_.data();
    params.block_table = nullptr;
  }
  RB_CUDA_CHECK(cuda::launch_decode(problem_, plan, params, stream_->get()));
}

void CudaBackend::flush_l2() {
  // Not timed: the start event is recorded after it on the same stream.
  flush_value_ = (flush_value_ + 1) & 0xffu;
  RB_CUDA_CHECK(cudaMemsetAsync(flush_.data(), int(flush_value_), flush_.size(), stream_->get()));
#if defined(READBENCH_BENCH_VARIANTS)
  // variant: leave the L2 holding clean lines, not dirty ones
  if (cuda::variants_of(tuning_).flush_read) {
    if (!flush_clean_) flush_clean_ = DeviceBuffer(flush_.size(), "the L2 flush read buffer");
    RB_CUDA_CHECK(cuda::launch_stream_read(flush_clean_.data(), flush_clean_.size(),
                                           sink_.as<unsigned>(), info_.sm_count, stream_->get()));
  }
#endif
}

double CudaBackend::elapsed_s() {
  RB_CUDA_CHECK(cudaEventSynchronize(stop_->get()));
  float ms = 0;
  RB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_->get(), stop_->get()));
  return double(ms) * 1e-3;
}

std::vector<double> CudaBackend::run_for_check(Path p) {
  RB_CUDA_CHECK(cudaSetDevice(device_));
  require_prepared();
  if (p == Path::gather && !gather_unavailable_.empty()) throw BackendError(gather_unavailable_);
  const std::size_t bytes = std::size_t(w_.io_elements()) * element_size(w_.dtype);
  RB_CUDA_CHECK(cudaMemsetAsync(out_.data(), 0xff, bytes, stream_->get()));  // NaN in every dtype
  enqueue(p, 0, true);
  return read_output(0);
}

std::vector<double> CudaBackend::read_output(int replica) {
  RB_CUDA_CHECK(cudaSetDevice(device_));
  require_prepared();
  if (replica < 0 || replica >= w_.replicas)
    throw InputError("replica " + std::to_string(replica) + " is outside 0.." +
                     std::to_string(w_.replicas - 1));
  const std::size_t n = std::size_t(w_.io_elements());
  const std::size_t bytes = n * element_size(w_.dtype);
  std::vector<std::byte> raw(bytes);
  RB_CUDA_CHECK(cudaMemcpyAsync(raw.data(), out_.data() + std::size_t(replica) * bytes, bytes,
                                cudaMemcpyDeviceToHost, stream_->get()));
  RB_CUDA_CHECK(cudaStreamSynchronize(stream_->get()));
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = double(load_as(w_.dtype, raw.data(), i));
  return out;
}

double CudaBackend::time_calls(Path p, int calls, CacheState cache) {
  RB_CUDA_CHECK(cudaSetDevice(device_));
  require_prepared();
  if (calls < 1) throw InputError("calls must be positive, got " + std::to_string(calls));
  if (p == Path::gather && !gather_unavailable_.empty()) throw BackendError(gather_unavailable_);
  const cudaStream_t s = stream_->get();
  const cudaGraphExec_t graph = tuning_.graph_replay && calls > 1 ? graph_of(p, calls) : nullptr;
  if (cache == CacheState::cold) flush_l2();
  RB_CUDA_CHECK(cudaEventRecord(start_->get(), s));
  if (graph != nullptr) {
    RB_CUDA_CHECK(cudaGraphLaunch(graph, s));
  } else {
    for (int i = 0; i < calls; ++i) enqueue(p, i % w_.replicas, i == 0);
  }
  RB_CUDA_CHECK(cudaEventRecord(stop_->get(), s));
  const double seconds = elapsed_s();
  if (monitor_) monitor_->sample();  // after the timed region, its clocks as they were
  return seconds;
}

// The `calls` calls of time_calls captured once into a graph, replayed with less launch overhead.
// A plugin whose calls cannot be captured (it synchronises or allocates in run) gets null, and
// its calls are launched one by one from then on; path_note says so.
cudaGraphExec_t CudaBackend::graph_of(const Path& p, int calls) {
  const auto key = std::make_pair(p, calls);
  auto it = graphs_.find(key);
  if (it != graphs_.end()) return it->second.get();
  if (!p.is_plugin()) return capture(p, calls);
  if (not_captured_.contains(p.plugin)) return nullptr;
  try {
    const cudaGraphExec_t exec = capture(p, calls);
    captured_[p.plugin] = true;
    return exec;
  } catch (const NothingCaptured&) {
    throw;  // launched one by one its calls would time an empty stream
  } catch (const BackendError& e) {
    cudaGetLastError();  // a failed capture leaves its error behind
    not_captured_[p.plugin] = e.what();
    return nullptr;
  }
}

cudaGraphExec_t CudaBackend::capture(const Path& p, int calls) {
  const auto key = std::make_pair(p, calls);
  const cudaStream_t s = stream_->get();
  cudaGraph_t graph = nullptr;
  RB_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  try {
    for (int i = 0; i < calls; ++i) enqueue(p, i % w_.replicas, i == 0);
  } catch (...) {
    cudaStreamEndCapture(s, &graph);
    if (graph != nullptr) cudaGraphDestroy(graph);
    throw;
  }
  RB_CUDA_CHECK(cudaStreamEndCapture(s, &graph));
  // Work a plugin put on another stream is not in the graph: timing the rest would time nothing.
  std::size_t nodes = 0;
  const cudaError_t counted = cudaGraphGetNodes(graph, nullptr, &nodes);
  if (counted != cudaSuccess || nodes == 0) {
    cudaGraphDestroy(graph);
    RB_CUDA_CHECK(counted);
    throw NothingCaptured(
        to_string(p) + " put no work on the stream it was given: " + "its calls cannot be timed");
  }
  cudaGraphExec_t exec = nullptr;
  const cudaError_t status = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  RB_CUDA_CHECK(status);
  cuda::GraphExec owned(exec);
  RB_CUDA_CHECK(cudaGraphUpload(exec, s));
  graphs_.emplace(key, std::move(owned));
  return exec;
}

}  // namespace

namespace {

// Refuses a missing driver, a missing device and a device older than the kernels' sm_80.
void require_device(int device) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    // The runtime reports a missing driver library as an insufficient driver.
    if (status == cudaErrorInsufficientDriver)
      throw BackendUnavailable(
          "no CUDA driver: libcuda is not installed, or is older than the CUDA runtime " +
          std::to_string(CUDART_VERSION / 1000) + "." + std::to_string(CUDART_VERSION % 1000 / 10));
    if (status == cudaErrorNoDevice) throw BackendUnavailable("no CUDA device found");
    throw BackendUnavailable(std::string("no usable CUDA driver or device: ") +
                             cudaGetErrorString(status));
  }
  if (count == 0) throw BackendUnavailable("no CUDA device found");
  if (device < 0 || device >= count)
    throw InputError("CUDA device " + std::to_string(device) +
                     " does not exist: this machine has " + std::to_string(count) + " CUDA device" +
                     (count == 1 ? "" : "s") + ", numbered from 0");
  cudaDeviceProp prop{};
  RB_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  if (prop.major < 8)
    throw BackendUnavailable("CUDA device " + std::to_string(device) + " (" + prop.name +
                             ") has compute capability " + std::to_string(prop.major) + "." +
                             std::to_string(prop.minor) +
                             "; readbench's CUDA kernels need 8.0 or newer");
}

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(int device) {
  require_device(device);
  cuda::Tuning t;
  std::string variant;
#if defined(READBENCH_BENCH_VARIANTS)
  // tools/h200 only: readbench's own sweep of a kernel variant (a variant build is no product;
  // the report's launch entry names the tuning).
  if (const char* spec = std::getenv("READBENCH_CUDA_TUNING"); spec != nullptr && *spec != '\0') {
    cuda::apply_tuning(t, spec);
    variant = spec;
  }
#endif
  return std::make_unique<CudaBackend>(device, t, std::move(variant));
}

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

#if defined(READBENCH_BENCH_VARIANTS)
std::unique_ptr<cuda::TunableBackend> cuda::make_tunable_cuda_backend(int device, const Tuning& t) {
  require_device(device);
  return std::make_unique<CudaBackend>(device, t);
}
#endif

}  // namespace readbench
