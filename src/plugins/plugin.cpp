#include "plugins/plugin.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "core/interrupt.hpp"
#include "core/read_path.hpp"
#include "plugins/elf_check.hpp"
#include "plugins/exit_guard.hpp"
#include "plugins/run_apart.hpp"
#include "plugins/stdout_diversion.hpp"

namespace readbench {

namespace {

rb_dtype to_rb(DType t) {
  switch (t) {
    case DType::f32:
      return RB_DTYPE_F32;
    case DType::f16:
      return RB_DTYPE_F16;
    case DType::bf16:
      return RB_DTYPE_BF16;
    case DType::e4m3:
      return RB_DTYPE_FP8_E4M3;
  }
  return RB_DTYPE_F32;
}

constexpr std::uint32_t bit(unsigned v) {
  return 1u << v;
}
constexpr std::uint32_t kDtypeBits =
    bit(RB_DTYPE_F32) | bit(RB_DTYPE_F16) | bit(RB_DTYPE_BF16) | bit(RB_DTYPE_FP8_E4M3);
constexpr std::uint32_t kLayoutBits = bit(RB_LAYOUT_NHD) | bit(RB_LAYOUT_HND);

// The dlerror text, or `fallback` when there is none.
// A plugin's message as one line: control characters (a newline) become spaces.
std::string one_line(const char* text) {
  std::string out = text[0] != '\0' ? text : "no message";
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return out;
}

std::string dl_error(const char* fallback) {
  const char* e = dlerror();
  return e != nullptr ? e : fallback;
}

}  // namespace

std::string_view to_string(PoolLayout l) {
  return l == PoolLayout::nhd ? "nhd" : "hnd";
}

std::shared_ptr<const Plugin> Plugin::load(const std::string& file, double timeout_s) {
  if (file.empty()) throw InputError("--plugin names no file");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    throw InputError("cannot load plugin " + file + ": " +
                     (std::filesystem::exists(file, ec) ? "not a regular file" : "no such file"));
  require_elf_library(file);
  divert_stdout_to_stderr();
  // First in a child process: constructors (they run inside dlopen) or a readbench_plugin()
  // that crash, exit or hang end the child, not readbench. What the child finds wrong with the
  // library, the load below finds again and says.
  const ChildEnd end = run_apart(
      [&] {
        try {
          load_here(file, false);
        } catch (const InputError&) {
        }
        return std::string();
      },
      timeout_s);
  if (end.how == ChildEnd::How::interrupted) throw Interrupted(interrupt_signal());
  if (end.how != ChildEnd::How::returned)
    throw InputError("cannot load plugin " + file + ": loading it " + how_it_ended(end, timeout_s) +
                     " in a separate process, where it is loaded first; not loaded here");
  return load_here(file, true);
}

std::shared_ptr<const Plugin> Plugin::load_here(const std::string& file, bool guard_exits) {
  const std::string where = "plugin " + file;
  // A name without a slash would be looked up on the library path, not here.
  const std::string path = file.find('/') == std::string::npos ? "./" + file : file;
  if (guard_exits) plugin_library_opening(file);
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const std::string why = dl_error("dlopen failed");
    if (guard_exits) plugin_library_closed();
    throw InputError("cannot load " + where + ": " + why);
  }
  auto plugin = std::make_shared<Plugin>();
  plugin->file_ = file;
  plugin->library_ = std::shared_ptr<void>(handle, [guard_exits](void* h) {
    dlclose(h);
    if (guard_exits) plugin_library_closed();
  });
  dlerror();
  void* entry = dlsym(handle, READBENCH_PLUGIN_ENTRY);
  if (entry == nullptr)
    throw InputError(where + " does not export " READBENCH_PLUGIN_ENTRY ": " +
                     dl_error("symbol not found"));
  const rb_plugin* api = reinterpret_cast<rb_plugin_entry>(entry)();
  if (api == nullptr) throw InputError(where + ": " READBENCH_PLUGIN_ENTRY "() returned NULL");
  if (api->abi_version != READBENCH_PLUGIN_ABI_VERSION)
    throw InputError(where + " was built for plugin ABI version " +
                     std::to_string(api->abi_version) + "; this readbench reads version " +
                     std::to_string(READBENCH_PLUGIN_ABI_VERSION));
  const std::string name = api->name != nullptr ? api->name : "";
  if (!valid_plugin_name(name))
    throw InputError(where + " has name '" + name +
                     "': a plugin's name is 1 to 64 of A-Z, a-z, 0-9, '_', '.' and '-'");
  if (api->backend != RB_BACKEND_CPU && api->backend != RB_BACKEND_CUDA)
    throw InputError(where + " (" + name + ") names backend " + std::to_string(int(api->backend)) +
                     ": expected RB_BACKEND_CPU or RB_BACKEND_CUDA");
  const auto mask_ok = [](std::uint32_t m, std::uint32_t allowed) {
    return m != 0 && (m & ~allowed) == 0;
  };
  if (!mask_ok(api->q_dtypes, kDtypeBits & ~bit(RB_DTYPE_FP8_E4M3)) ||
      !mask_ok(api->out_dtypes, kDtypeBits & ~bit(RB_DTYPE_FP8_E4M3)) ||
      !mask_ok(api->kv_dtypes, kDtypeBits))
    throw InputError(where + " (" + name +
                     ") declares no dtype, or one it cannot mean, in q_dtypes, out_dtypes or "
                     "kv_dtypes (1 << RB_DTYPE_..., fp8 for K/V only)");
  if (!mask_ok(api->layouts, kLayoutBits))
    throw InputError(where + " (" + name + ") declares no layout (1 << RB_LAYOUT_NHD or _HND)");
  if (api->prepare == nullptr || api->run == nullptr || api->release == nullptr)
    throw InputError(where + " (" + name + ") leaves prepare, run or release NULL");
  plugin->api_ = api;
  plugin->name_ = name;
  return plugin;
}

std::string_view Plugin::backend() const {
  return api_->backend == RB_BACKEND_CUDA ? "cuda" : "cpu";
}

PoolLayout Plugin::layout() const {
  return (api_->layouts & bit(RB_LAYOUT_NHD)) != 0 ? PoolLayout::nhd : PoolLayout::hnd;
}

void Plugin::require_dtypes(DType q, DType kv) const {
  const auto refuse = [&](const char* what, DType t) {
    throw InputError("plugin " + name_ + " (" + file_ + ") does not take " + what + " in " +
                     std::string(readbench::to_string(t)));
  };
  if ((api_->q_dtypes & bit(to_rb(q))) == 0) refuse("q", q);
  if ((api_->out_dtypes & bit(to_rb(q))) == 0) refuse("its output", q);
  if ((api_->kv_dtypes & bit(to_rb(kv))) == 0) refuse("K/V", kv);
}

void require_distinct_names(const Plugins& plugins) {
  for (std::size_t i = 0; i < plugins.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (plugins[i]->name() == plugins[j]->name())
        throw InputError("two plugins are named " + plugins[i]->name() + ": " + plugins[j]->file() +
                         " and " + plugins[i]->file());
}

Plugins load_plugins(const std::vector<std::string>& files, double timeout_s) {
  Plugins out;
  for (const std::string& f : files) out.push_back(Plugin::load(f, timeout_s));
  require_distinct_names(out);
  return out;
}

rb_problem plugin_problem(const Workload& w, PoolLayout layout, int device, int threads) {
  rb_problem p{};
  const Shape& s = w.shape;
  p.batch = s.batch;
  p.q_heads = s.q_heads;
  p.kv_heads = s.kv_heads;
  p.head_dim = s.head_dim;
  p.block_size = s.block_size;
  p.blocks_per_seq = std::int32_t(w.blocks_per_seq());
  p.length = w.length;
  p.num_blocks = w.num_blocks();
  p.q_dtype = to_rb(w.dtype);
  p.out_dtype = to_rb(w.dtype);
  p.kv_dtype = to_rb(w.kv_dtype());
  p.layout = layout == PoolLayout::nhd ? RB_LAYOUT_NHD : RB_LAYOUT_HND;
  p.kv_scale = w.kv_scale();
  p.softmax_scale = float(1.0 / std::sqrt(double(s.head_dim)));
  p.device = device;
  p.threads = threads;
  return p;
}

AlignedBuffer head_major_copy(const AlignedBuffer& pool, const Workload& w) {
  const Shape& s = w.shape;
  const std::size_t row = std::size_t(s.head_dim) * element_size(w.kv_dtype());  // one head
  const std::size_t block = row * std::size_t(s.block_size) * std::size_t(s.kv_heads);
  AlignedBuffer out(pool.size(), "the head-major copy of a pool");
  const std::int64_t blocks = w.num_blocks();
#pragma omp parallel for schedule(static)
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::byte* src = pool.data() + std::size_t(b) * block;
    std::byte* dst = out.data() + std::size_t(b) * block;
    for (int t = 0; t < s.block_size; ++t)
      for (int h = 0; h < s.kv_heads; ++h)
        std::memcpy(dst + (std::size_t(h) * s.block_size + t) * row,
                    src + (std::size_t(t) * s.kv_heads + h) * row, row);
  }
  return out;
}

PreparedPlugin::PreparedPlugin(std::shared_ptr<const Plugin> plugin, const rb_problem& problem)
    : plugin_(std::move(plugin)) {
  char err[512] = {};
  const rb_status st = plugin_->api().prepare(&problem, &state_, err, sizeof err);
  err[sizeof err - 1] = '\0';
  if (st == RB_OK) return;
  if (state_ != nullptr) plugin_->api().release(state_);  // the header asks for NULL; be safe
  state_ = nullptr;
  failure_ = plugin_->path_name() +
             (st == RB_UNSUPPORTED ? " does not support this problem: " : " failed to prepare: ") +
             one_line(err);
}

PreparedPlugin::~PreparedPlugin() {
  if (failure_.empty()) plugin_->api().release(state_);
}

void PreparedPlugin::fail(const std::string& why) {
  if (failure_.empty()) plugin_->api().release(state_);
  state_ = nullptr;
  failure_ = plugin_->path_name() + " " + why;
}

void PreparedPlugin::run(const rb_call& call) const {
  if (!failure_.empty()) throw PluginFailure(failure_);
  char err[512] = {};
  if (plugin_->api().run(state_, &call, err, sizeof err) == RB_OK) return;
  err[sizeof err - 1] = '\0';
  throw PluginFailure(plugin_->path_name() + " failed: " + one_line(err));
}

}  // namespace readbench
