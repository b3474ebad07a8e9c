#include "measure/ab_worker.hpp"

#include <sys/personality.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <memory>

#include "core/dtype.hpp"
#include "core/errors.hpp"
#include "core/host_workload.hpp"
#include "measure/ab_protocol.hpp"
#include "measure/backend_opening.hpp"
#include "measure/backend_word.hpp"
#include "measure/plugin_check.hpp"
#include "measure/sampler.hpp"
#include "measure/sweep.hpp"
#include "measure/verify.hpp"
#include "version.hpp"

namespace readbench {

using nlohmann::json;

json worker_config_to_json(const SweepConfig& c, double plugin_timeout_s,
                           const std::vector<std::string>& plugin_files) {
  json paths = json::array();
  for (const Path& p : c.paths) paths.push_back(to_string(p));
  return {{"backend", to_string(c.backend)},
          {"device", c.devices.empty() ? 0 : c.devices.front()},
          {"threads", c.threads},
          {"batch", c.shape.batch},
          {"q_heads", c.shape.q_heads},
          {"kv_heads", c.shape.kv_heads},
          {"head_dim", c.shape.head_dim},
          {"block_size", c.shape.block_size},
          {"dtype", to_string(c.dtype)},
          {"kv_dtype", c.kv_storage ? json(to_string(*c.kv_storage)) : json(nullptr)},
          {"cache", to_string(c.sampling.cache)},
          {"seed", c.seed},
          {"min_length", c.auto_lengths ? kAutoFirstLength : c.lengths.front()},
          {"max_length", c.auto_lengths ? c.max_length : c.lengths.back()},
          {"paths", paths},
          {"plugins", plugin_files},
          {"plugin_timeout_s", plugin_timeout_s}};
}

WorkerConfig worker_config_from_json(const json& j) {
  try {
    WorkerConfig w;
    SweepConfig& c = w.sweep;
    w.backend = j.at("backend").get<std::string>();
    c.backend = parse_backend_choice(w.backend);
    if (c.backend != BackendChoice::cpu && c.backend != BackendChoice::cuda)
      throw InputError("an ab arm runs on cpu or cuda, not " + w.backend);
    c.devices = {j.at("device").get<int>()};
    c.threads = j.at("threads").get<int>();
    c.shape = Shape{j.at("batch").get<int>(), j.at("q_heads").get<int>(),
                    j.at("kv_heads").get<int>(), j.at("head_dim").get<int>(),
                    j.at("block_size").get<int>()};
    c.dtype = parse_query_dtype(j.at("dtype").get<std::string>());
    if (!j.at("kv_dtype").is_null()) c.kv_storage = parse_dtype(j.at("kv_dtype").get<std::string>());
    c.sampling.cache = parse_cache_state(j.at("cache").get<std::string>());
    c.seed = j.at("seed").get<std::uint64_t>();
    c.auto_lengths = false;
    // Verification runs from the grid's first length to its longest (verify.hpp).
    c.lengths = {j.at("min_length").get<std::int64_t>(), j.at("max_length").get<std::int64_t>()};
    c.paths.clear();
    for (const auto& p : j.at("paths")) c.paths.push_back(parse_path(p.get<std::string>()));
    w.plugin_files = j.at("plugins").get<std::vector<std::string>>();
    w.plugin_timeout_s = j.at("plugin_timeout_s").get<double>();
    return w;
  } catch (const json::exception& e) {
    throw InputError(std::string("the ab setup request is malformed: ") + e.what());
  }
}

json backend_to_json(const BackendResult& b) {
  json j = {{"name", b.name},
            {"timer_resolution_s", b.timer_resolution_s},
            {"cache_bytes", b.cache_bytes},
            {"threads", b.details.threads},
            {"kernels", b.details.kernels},
            {"threads_from", b.details.threads_from},
            {"wait_policy", b.details.wait_policy},
            {"monitor", b.details.monitor},
            {"cache_from", b.details.cache_from},
            {"cold_flush", b.details.cold_flush},
            {"launch", b.details.launch},
            {"read_gbps", b.bandwidths.read_gbps},
            {"copy_gbps", b.bandwidths.copy_gbps},
            {"buffer_bytes", b.bandwidths.buffer_bytes}};
  if (b.gpu)
    j["gpu"] = {{"index", b.gpu->index},
                {"name", b.gpu->name},
                {"compute_major", b.gpu->compute_major},
                {"compute_minor", b.gpu->compute_minor},
                {"sm_count", b.gpu->sm_count},
                {"l2_bytes", b.gpu->l2_bytes},
                {"memory_bytes", b.gpu->memory_bytes},
                {"sm_clock_mhz", b.gpu->sm_clock_mhz},
                {"memory_clock_mhz", b.gpu->memory_clock_mhz},
                {"memory_bus_bits", b.gpu->memory_bus_bits},
                {"driver_version", b.gpu->driver_version},
                {"runtime_version", b.gpu->runtime_version}};
  return j;
}

BackendResult backend_from_json(const json& j) {
  BackendResult b;
  b.name = j.at("name").get<std::string>();
  b.timer_resolution_s = j.at("timer_resolution_s").get<double>();
  b.cache_bytes = j.at("cache_bytes").get<std::int64_t>();
  b.details = {j.at("threads").get<int>(),        j.at("kernels").get<std::string>(),
               j.at("threads_from").get<std::string>(), j.at("wait_policy").get<std::string>(),
               j.at("monitor").get<std::string>(),    j.at("cache_from").get<std::string>(),
               j.at("cold_flush").get<std::string>(), j.at("launch").get<std::string>()};
  b.bandwidths = {j.at("read_gbps").get<double>(), j.at("copy_gbps").get<double>(),
                  j.at("buffer_bytes").get<std::int64_t>()};
  if (j.contains("gpu")) {
    const json& g = j["gpu"];
    b.gpu = GpuInfo{g.at("index").get<int>(),          g.at("name").get<std::string>(),
                    g.at("compute_major").get<int>(),  g.at("compute_minor").get<int>(),
                    g.at("sm_count").get<int>(),       g.at("l2_bytes").get<std::int64_t>(),
                    g.at("memory_bytes").get<std::int64_t>(), g.at("sm_clock_mhz").get<int>(),
                    g.at("memory_clock_mhz").get<int>(), g.at("memory_bus_bits").get<int>(),
                    g.at("driver_version").get<std::string>(),
                    g.at("runtime_version").get<std::string>()};
  }
  return b;
}

json check_result_to_json(const CheckResult& c) {
  return {{"path", to_string(c.path)},       {"length", c.length},
          {"batch", c.batch},                {"dtype", to_string(c.dtype)},
          {"kv_dtype", to_string(c.kv_dtype)}, {"error", c.error},
          {"tolerance", c.tolerance},        {"passed", c.passed},
          {"failure", c.failure}};
}

CheckResult check_result_from_json(const json& j) {
  CheckResult c;
  c.path = parse_path(j.at("path").get<std::string>());
  c.length = j.at("length").get<std::int64_t>();
  c.batch = j.at("batch").get<int>();
  c.dtype = parse_dtype(j.at("dtype").get<std::string>());
  c.kv_dtype = parse_dtype(j.at("kv_dtype").get<std::string>());
  // An infinite error (a call that failed) travels as null.
  c.error = j.at("error").is_number() ? j["error"].get<double>() : HUGE_VAL;
  c.tolerance = j.at("tolerance").get<double>();
  c.passed = j.at("passed").get<bool>();
  c.failure = j.at("failure").get<std::string>();
  return c;
}

namespace {

// Host workloads by length and replicas, built once for the arms of one worker that read them
// in place; each goes with the last slot that holds it.
using SharedHosts = std::map<std::pair<std::int64_t, int>, std::weak_ptr<const HostWorkload>>;

bool same_workload(const Workload& a, const Workload& b) {
  return a.shape == b.shape && a.dtype == b.dtype && a.length == b.length &&
         a.replicas == b.replicas && a.seed == b.seed && a.kv_dtype() == b.kv_dtype();
}

// One length's own backend, prepared with its workload.
struct Slot {
  std::shared_ptr<const HostWorkload> host;  // the pages a backend reads in place of its own
  std::unique_ptr<Backend> backend;          // after host: it goes first
  Workload workload;
  std::map<Path, int> calls;  // calls per sample, by path
};

// One arm: its backend, plugins and workloads. Two arms of one binary can share a worker
// (`shared` set), where each length's host workload is built once and both arms' backends read
// it in place (CPU only: a GPU backend uploads its own copy).
class ArmWorker {
 public:
  ArmWorker(WorkerConfig config, SharedHosts* shared) : config_(std::move(config)), shared_(shared) {}

  // Validates the arm's config, loads its plugins and runs their checks apart. Before any
  // thread or CUDA context: the checks fork.
  void load() {
    SweepConfig& c = config_.sweep;
    c.shape.validate();
    validate_dtypes(c.dtype, c.workload(0).kv_dtype());
    validate_backend_options(c.threads, c.devices.front());
    c.plugins = load_plugins(config_.plugin_files, config_.plugin_timeout_s);
    validate_plugins(c);
    if (!c.plugins.empty()) c.plugins_not_called = check_plugins_apart(c, config_.plugin_timeout_s);
  }

  json handle(const std::string& op, const json& request) {
    if (op == "bytes") return bytes(request.at("length").get<std::int64_t>());
    if (op == "prepare") return prepare(request.at("length").get<std::int64_t>());
    if (op == "sample")
      return sample(request.at("length").get<std::int64_t>(),
                    parse_path(request.at("path").get<std::string>()),
                    request.at("seconds").get<double>());
    if (op == "ceiling") return ceiling();
    throw InputError("unknown ab request '" + op + "'");
  }

  // Opens the arm's backend and verifies its paths.
  json setup() {
    const SweepConfig& c = config_.sweep;
    factory_ = default_backend_factory(c.threads, c.devices);
    probe_ = open();
    info_.name = config_.backend;
    info_.timer_resolution_s = probe_->timer_resolution_s();
    info_.cache_bytes = probe_->cache_bytes();
    info_.gpu = probe_->gpu_info();
    info_.details = probe_->details();
    info_.bandwidths = probe_->measure_bandwidths();
    json checks = json::array();
    Workload w = c.workload(0);
    w.seed ^= 0x5eedc0de;  // fresh inputs for the checks, as the sweep's
    std::vector<Path> to_check;
    for (const Path& p : c.paths) {
      if (const auto it = c.plugins_not_called.find(p.plugin);
          p.is_plugin() && it != c.plugins_not_called.end()) {
        failed_.insert(p);
        checks.push_back(check_result_to_json(failed_check(c.workload(c.lengths.front()), p, it->second)));
      } else {
        to_check.push_back(p);
      }
    }
    for (std::int64_t len : verification_lengths(c)) {
      std::erase_if(to_check, [&](const Path& p) { return failed_.contains(p); });
      if (to_check.empty()) break;
      w.length = len;
      for (const CheckResult& r : check_paths(*probe_, w, to_check)) {
        checks.push_back(check_result_to_json(r));
        if (!r.passed) failed_.insert(r.path);
      }
    }
    json notes = json::object();
    for (const Path& p : c.paths) notes[to_string(p)] = probe_->path_note(p);
    return {{"backend", backend_to_json(info_)},
            {"checks", checks},
            {"notes", notes},
            {"memory_available", probe_->memory_available_bytes()},
            {"address_layout", address_layout()}};
  }

 private:
  std::unique_ptr<Backend> open() {
    auto b = factory_(config_.backend);
    for (const auto& plugin : config_.sweep.plugins)
      if (!config_.sweep.plugins_not_called.contains(plugin->name())) b->add_plugin(plugin);
    return b;
  }

  // "fixed" when this process runs without address-space randomization (ab_arm.cpp asks for it).
  static std::string address_layout() {
    const int p = ::personality(0xffffffff);
    return p != -1 && (p & ADDR_NO_RANDOMIZE) != 0 ? "fixed" : "randomized";
  }

  Workload workload_of(std::int64_t length) const {
    Workload w = config_.sweep.workload(length);
    w.replicas = config_.sweep.sampling.cache == CacheState::hot
                     ? 1
                     : cold_replicas(w, info_.cache_bytes, info_.timer_resolution_s,
                                     info_.bandwidths.read_gbps);
    return w;
  }

  json bytes(std::int64_t length) const {
    const Workload w = workload_of(length);
    return {{"host", host_workload_bytes(w)}, {"backend", probe_->workload_bytes(w)}};
  }

  // Prepares `s.backend` for `s.workload`: over the shared host workload of that length and
  // replicas where the arms share them (built here if the other arm holds none), else over a
  // workload of its own.
  void prepare_backend(Slot& s) {
    if (shared_ == nullptr || config_.sweep.backend != BackendChoice::cpu) {
      s.host.reset();
      s.backend->prepare(make_host_workload(s.workload));
      return;
    }
    std::weak_ptr<const HostWorkload>& held = (*shared_)[{s.workload.length, s.workload.replicas}];
    std::shared_ptr<const HostWorkload> host = held.lock();
    if (!host || !same_workload(host->workload, s.workload)) {
      // A workload replaced by one of more replicas goes before the next is built.
      s.backend->release();
      s.host.reset();
      host = std::make_shared<const HostWorkload>(make_host_workload(s.workload));
      held = host;
    }
    s.host = host;
    s.backend->prepare(view_of(*s.host));
  }

  json prepare(std::int64_t length) {
    if (slots_.contains(length)) throw InputError("L=" + std::to_string(length) + " is prepared already");
    Slot s;
    s.workload = workload_of(length);
    s.backend = open();
    prepare_backend(s);
    const SweepConfig& c = config_.sweep;
    json paths = json::array();
    for (const Path& p : c.paths) {
      if (failed_.contains(p)) continue;
      try {
        int calls = warm_up_and_batch(*s.backend, p, c.sampling);
        // A cold batch must read replicas no earlier call of its sample touched (sweep.cpp).
        if (c.sampling.cache == CacheState::cold && calls > s.workload.replicas &&
            s.workload.replicas < max_replicas(s.workload)) {
          s.workload.replicas = std::min(calls + (calls + 3) / 4, max_replicas(s.workload));
          prepare_backend(s);
          calls = warm_up_and_batch(*s.backend, p, c.sampling);
        }
        s.calls[p] = calls;
        paths.push_back({{"path", to_string(p)}, {"calls_per_sample", calls}});
      } catch (const PluginFailure& e) {
        failed_.insert(p);
        paths.push_back({{"path", to_string(p)}, {"error", e.what()}});
      }
    }
    const int replicas = s.workload.replicas;
    const bool shared = s.host != nullptr;
    slots_[length] = std::move(s);
    return {{"replicas", replicas}, {"paths", paths}, {"shared", shared}};
  }

  json sample(std::int64_t length, const Path& p, double seconds) {
    const auto it = slots_.find(length);
    if (it == slots_.end()) throw InputError("L=" + std::to_string(length) + " is not prepared");
    Slot& s = it->second;
    const auto calls = s.calls.find(p);
    if (calls == s.calls.end() || failed_.contains(p))
      throw InputError(to_string(p) + " cannot be timed at L=" + std::to_string(length));
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    json times = json::array(), disturbed = json::array();
    const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
    try {
      do {
        times.push_back(s.backend->time_calls(p, calls->second, config_.sweep.sampling.cache) /
                        calls->second);
        disturbed.push_back(s.backend->last_sample_disturbed() ? 1 : 0);
      } while (elapsed() < seconds);
    } catch (const PluginFailure& e) {
      failed_.insert(p);
      return {{"path_error", e.what()}};
    }
    return {{"s", times}, {"disturbed", disturbed}};
  }

  json ceiling() {
    const Bandwidths b = probe_->measure_bandwidths();
    json conditions = json::array();
    for (const auto& [len, s] : slots_)
      for (const std::string& seen : s.backend->device_conditions()) conditions.push_back(seen);
    return {{"read_gbps", b.read_gbps},
            {"copy_gbps", b.copy_gbps},
            {"buffer_bytes", b.buffer_bytes},
            {"device_conditions", conditions}};
  }

  WorkerConfig config_;
  SharedHosts* shared_;  // nullptr: this arm builds its own workloads
  BackendFactory factory_;
  std::unique_ptr<Backend> probe_;  // the checks' backend; sizes workloads and the ceilings
  BackendResult info_;
  std::map<std::int64_t, Slot> slots_;
  std::set<Path> failed_;
};

// The worker's arms by role: one, or both arms of one binary (their workloads shared on a CPU).
class Worker {
 public:
  json handle(const json& request) {
    const std::string op = request.at("op").get<std::string>();
    if (op == "setup") return setup(request.at("arms"));
    if (arms_.empty()) throw InputError("an ab request came before setup");
    const std::string role = request.at("arm").get<std::string>();
    const auto it = arms_.find(role);
    if (it == arms_.end()) throw InputError("this ab worker serves no arm '" + role + "'");
    return it->second.handle(op, request);
  }

 private:
  json setup(const json& arms) {
    if (!arms_.empty()) throw InputError("an ab worker takes one setup");
    if (!arms.is_array() || arms.empty() || arms.size() > 2)
      throw InputError("an ab setup names one or two arms");
    const bool share = arms.size() == 2;
    // Every arm's plugins are checked before any arm opens its backend (the checks fork); the
    // arms then open in the order asked.
    std::vector<std::string> order;
    for (const json& a : arms) {
      const std::string role = a.at("role").get<std::string>();
      if (role != "base" && role != "head") throw InputError("an ab arm is base or head, not '" + role + "'");
      const auto [it, added] =
          arms_.try_emplace(role, worker_config_from_json(a.at("config")), share ? &shared_ : nullptr);
      if (!added) throw InputError("the ab setup names the " + role + " arm twice");
      it->second.load();
      order.push_back(role);
    }
    json reply = json::object();
    for (const std::string& role : order) reply[role] = arms_.at(role).setup();
    return reply;
  }

  SharedHosts shared_;                     // before arms_: their backends read it
  std::map<std::string, ArmWorker> arms_;  // by role
};

}  // namespace

int serve_ab_worker(int in_fd, int out_fd) {
  write_message(out_fd, {{kAbHelloKey, kAbProtocol}, {"version", kVersion}, {"git_commit", kGitCommit}});
  MessageReader reader(in_fd);
  Worker worker;
  while (true) {
    std::optional<json> request;
    try {
      request = reader.next();
    } catch (const InputError& e) {
      write_message(out_fd, {{"error", e.what()}});
      return 2;
    }
    if (!request || request->value("op", "") == "quit") return 0;
    json reply;
    try {
      reply = worker.handle(*request);
    } catch (const json::exception& e) {
      reply = {{"error", std::string("malformed ab request: ") + e.what()}};
    } catch (const std::bad_alloc&) {
      reply = {{"error", "out of host memory: an allocation failed"}};
    } catch (const std::exception& e) {
      reply = {{"error", e.what()}};
    }
    write_message(out_fd, reply);
  }
}

}  // namespace readbench
