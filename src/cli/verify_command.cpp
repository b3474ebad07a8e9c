// `readbench verify`: the correctness checks alone, for each backend and dtype asked.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "backends/registry.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/errors.hpp"
#include "core/lengths.hpp"
#include "core/strprintf.hpp"
#include "measure/backend_word.hpp"
#include "measure/plugin_check.hpp"
#include "measure/sweep.hpp"
#include "measure/verify.hpp"
#include "report/standard_output.hpp"

namespace readbench::cli {

namespace {

struct VerifyOptions {
  std::string backend = "auto", dtypes = "f32,f16,bf16", kv_dtypes = "same,fp8_e4m3", lengths;
  Shape shape;
  int threads = 0, device = 0;
  std::uint64_t seed = 7;
  std::vector<std::string> plugin_files;
  double plugin_timeout_s = kPluginCheckTimeout;
  const CLI::Option* device_given = nullptr;
};

// Comma-separated items of `option`'s `text`, each through `parse`; one listed twice is refused,
// as `run --path gather,gather` is.
template <class Parse>
auto parse_list(const char* option, const std::string& text, Parse parse) {
  std::vector<decltype(parse(std::string_view{}))> out;
  for (const std::string& item : comma_items(text)) {
    out.push_back(parse(item));
    if (std::find(out.begin(), out.end() - 1, out.back()) != out.end() - 1)
      throw InputError(std::string(option) + " lists " + item + " twice");
  }
  return out;
}

// A K/V type of --kv-dtypes: "same" (empty) stores K/V in the query's type.
std::optional<DType> parse_kv_item(std::string_view s) {
  if (s == "same") return std::nullopt;
  return parse_dtype(s, "same");
}

// printf-style, through write_stdout: each line is checked as it goes out, so a failed write
// is reported with its reason.
template <class... Args>
void print(const char* format, Args... args) {
  write_stdout(strprintf(format, args...));
}

int run(const VerifyOptions& o) {
  o.shape.validate();
  validate_backend_options(o.threads, o.device);
  const BackendChoice choice = parse_backend_choice(o.backend);
  check_device_applies(choice, o.device_given->count() > 0);
  // Each (q, K/V) pair once, in the order asked; a pair the kernels do not read is refused
  // before anything runs.
  std::vector<std::pair<DType, DType>> pairs;
  const auto query_types = parse_list("--dtypes", o.dtypes, parse_query_dtype);
  const auto kv_types = parse_list("--kv-dtypes", o.kv_dtypes, parse_kv_item);
  for (DType t : query_types)
    for (const std::optional<DType>& kv : kv_types) {
      const std::pair pair{t, kv.value_or(t)};
      validate_dtypes(pair.first, pair.second);
      if (std::find(pairs.begin(), pairs.end(), pair) == pairs.end()) pairs.push_back(pair);
    }
  std::vector<std::int64_t> lengths;
  if (o.lengths.empty()) {  // 1, S, S+1, 1000 (S = 1 makes the first two the same)
    const std::int64_t S = o.shape.block_size;
    lengths = {1, S, S + 1, 1000};
    std::sort(lengths.begin(), lengths.end());
    lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
  } else {
    lengths = parse_lengths(o.lengths);
  }
  // With --plugin, the plugins' reads alone; each is first checked in a separate process, and
  // one that crashes or hangs there is a failure, not called here.
  SweepConfig plugin_run;
  plugin_run.plugins = load_plugins(o.plugin_files, o.plugin_timeout_s);
  for (const auto& plugin : plugin_run.plugins) {
    for (const auto& [t, kv] : pairs) plugin->require_dtypes(t, kv);
    plugin_run.paths.push_back(Path::of_plugin(plugin->name()));
  }
  if (!plugin_run.plugins.empty()) {
    plugin_run.backend = choice;
    plugin_run.dtype = pairs.front().first;
    if (pairs.front().second != pairs.front().first) plugin_run.kv_storage = pairs.front().second;
    validate_plugins(plugin_run);
    plugin_run.shape = o.shape;
    plugin_run.auto_lengths = false;
    plugin_run.lengths = lengths;
    std::sort(plugin_run.lengths.begin(), plugin_run.lengths.end());
    plugin_run.threads = o.threads;
    plugin_run.devices = {o.device};
    plugin_run.seed = o.seed;
    plugin_run.plugins_not_called = check_plugins_apart(plugin_run, o.plugin_timeout_s);
  }
  bool all_passed = true, header_printed = false;
  const auto check = [&](const std::string& name, Backend& backend) {
    std::vector<Path> paths{Path::gather, Path::fused};
    if (!plugin_run.plugins.empty()) {
      paths.clear();
      for (const auto& plugin : plugin_run.plugins) {
        if (plugin->backend() != find_backend_kind(name)->name) continue;
        if (const auto it = plugin_run.plugins_not_called.find(plugin->name());
            it != plugin_run.plugins_not_called.end()) {
          all_passed = false;
          print("%-7s %s: FAIL: %s\n", name.c_str(), plugin->path_name().c_str(),
                it->second.c_str());
          continue;
        }
        backend.add_plugin(plugin);
        paths.push_back(Path::of_plugin(plugin->name()));
      }
      if (paths.empty()) return true;
    }
    for (const auto& [t, kv] : pairs) {
      for (std::int64_t len : lengths) {
        const Workload w{o.shape, t, len, 1, o.seed, kv};
        const auto checks = check_paths(backend, w, paths);
        if (!header_printed) {
          print("%-7s %-5s %-8s %-7s %8s %12s %10s  %s\n", "backend", "dtype", "kv", "path", "L",
                "error", "tolerance", "result");
          header_printed = true;
        }
        for (const CheckResult& c : checks) {
          all_passed = all_passed && c.passed;
          print("%-7s %-5s %-8s %-7s %8lld %12.3e %10.1e  %s\n", name.c_str(),
                std::string(to_string(t)).c_str(), std::string(to_string(c.kv_dtype)).c_str(),
                std::string(to_string(c.path)).c_str(), (long long)len, c.error, c.tolerance,
                c.passed ? "pass" : ("FAIL" + (c.failure.empty() ? "" : ": " + c.failure)).c_str());
        }
      }
    }
    return true;
  };
  // Under auto or all, a backend that cannot run is reported and the others still checked.
  const auto skipped = [&](const std::string& name, Status status, const std::string& why) {
    print("%-7s %s: %s\n", name.c_str(), std::string(to_string(status)).c_str(), why.c_str());
  };
  for_each_backend(choice, default_backend_factory(o.threads, {o.device}), check, skipped);
  return all_passed ? 0 : 1;
}

}  // namespace

void setup_verify_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<VerifyOptions>();
  CLI::App* sub = app.add_subcommand(
      "verify", "Check gather and fused against an f64 reference on random inputs (no timing)");
  sub->add_option("--backend", o->backend, "cpu, cuda, all, or auto")->capture_default_str();
  sub->add_option("--dtypes", o->dtypes, "Comma-separated types of q and the output to check")
      ->capture_default_str();
  sub->add_option("--kv-dtypes", o->kv_dtypes,
                  "Comma-separated K/V storage types to check with each (same: the query's type)")
      ->capture_default_str();
  sub->add_option("-L,--lengths", o->lengths, "History lengths (default: 1, S, S+1, 1000)");
  add_shape_options(sub, o->shape);
  add_threads_option(sub, o->threads);
  o->device_given = sub->add_option("--device", o->device, "CUDA device index")
                        ->check(integer_in(0, std::numeric_limits<int>::max()))
                        ->capture_default_str();
  add_plugin_options(sub, o->plugin_files, o->plugin_timeout_s,
                     "Check this plugin's read (include/readbench/plugin.h) instead of gather "
                     "and fused (repeatable)");
  sub->add_option("--seed", o->seed, "Seed of the random inputs")
      ->check(seed_value())
      ->capture_default_str();
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace readbench::cli
