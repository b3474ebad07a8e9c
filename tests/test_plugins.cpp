// Plugins (include/readbench/plugin.h) through the real CPU backend: loading and its one-line
// refusals, the pools a plugin is handed, deliberately wrong plugins caught by the check and
// never timed, and plugins that crash or hang kept out of this process. The plugin files are
// built beside this test (examples/plugins, tests/plugins/faulty.c); this file also compiles
// the header as C++ (naive_cpu.c compiles it as C).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "core/host_workload.hpp"
#include "measure/plugin_check.hpp"
#include "measure/sweep.hpp"
#include "plugins/plugin.hpp"
#include "readbench/plugin.h"
#include "test_support.hpp"

using namespace readbench;
using readbench::test::error_message;
using readbench::test::make_shape;
using readbench::test::TempDir;

namespace {

std::string faulty(const std::string& fault) {
  return std::string(READBENCH_TEST_PLUGIN_DIR) + "/libfaulty_" + fault + ".so";
}

// A short explicit sweep of `plugins` on the CPU backend: f32, two threads, hot, small budget.
SweepConfig plugin_sweep(const Plugins& plugins) {
  SweepConfig c;
  c.backend = BackendChoice::cpu;
  c.shape = make_shape(2, 4, 2, 64, 16);
  c.dtype = DType::f32;
  c.auto_lengths = false;
  c.lengths = {16, 40, 100};
  c.threads = 2;
  c.sampling.cache = CacheState::hot;
  c.sampling.budget_s = 0.02;
  c.sampling.min_samples = 3;
  c.sampling.warmup_s = 0.001;
  c.plugins = plugins;
  c.paths = {Path::fused};
  for (const auto& p : plugins) c.paths.push_back(Path::of_plugin(p->name()));
  return c;
}

const PathResult& result_of(const RunResult& run, const Path& p) {
  const auto it = std::find_if(run.results.begin(), run.results.end(),
                               [&](const PathResult& r) { return r.path == p; });
  REQUIRE(it != run.results.end());
  return *it;
}

}  // namespace

TEST_CASE("the plugin header is C: its structs and constants are what the ABI says") {
  CHECK(READBENCH_PLUGIN_ABI_VERSION == 1);
  CHECK(std::string(READBENCH_PLUGIN_ENTRY) == "readbench_plugin");
  CHECK(RB_LAYOUT_NHD != RB_LAYOUT_HND);
  rb_call call{};
  CHECK(call.stream == nullptr);
}

TEST_CASE("a plugin loads with its name, backend and the layout readbench builds for it") {
  const auto naive = Plugin::load(READBENCH_TEST_NAIVE_PLUGIN);
  CHECK(naive->name() == "naive_cpu");
  CHECK(naive->path_name() == "plugin:naive_cpu");
  CHECK(naive->backend() == "cpu");
  CHECK(naive->abi_version() == 1u);
  CHECK(naive->layout() == PoolLayout::nhd);  // it takes both: nhd is preferred
  CHECK(Plugin::load(faulty("hnd_only"))->layout() == PoolLayout::hnd);
}

TEST_CASE("a plugin that cannot be used is a one-line error naming the file and the problem") {
  TempDir dir;
  CHECK(error_message([&] { Plugin::load(dir / "none.so"); }) ==
        "cannot load plugin " + (dir / "none.so") + ": no such file");
  CHECK(error_message([&] { Plugin::load(dir.path.string()); }) ==
        "cannot load plugin " + dir.path.string() + ": not a regular file");
  {
    std::FILE* f = std::fopen((dir / "text.so").c_str(), "w");
    REQUIRE(f != nullptr);
    std::fputs("not a library\n", f);
    std::fclose(f);
  }
  const std::string unloadable = error_message([&] { Plugin::load(dir / "text.so"); });
  CHECK(unloadable.starts_with("cannot load plugin " + (dir / "text.so") + ": "));
  CHECK(unloadable.find('\n') == std::string::npos);
  const std::string nosym = error_message([&] { Plugin::load(faulty("no_symbol")); });
  CHECK(nosym.starts_with("plugin " + faulty("no_symbol") + " does not export readbench_plugin"));
  CHECK(error_message([&] { Plugin::load(faulty("abi")); }) ==
        "plugin " + faulty("abi") +
            " was built for plugin ABI version 999; this readbench reads version 1");
  CHECK(error_message([] { Plugin::load(""); }) == "--plugin names no file");
}

TEST_CASE("two plugins of one name are refused, naming both files") {
  TempDir dir;
  std::filesystem::copy_file(READBENCH_TEST_NAIVE_PLUGIN, dir / "copy.so");
  CHECK(error_message([&] {
          load_plugins({READBENCH_TEST_NAIVE_PLUGIN, dir / "copy.so"});
        }) == std::string("two plugins are named naive_cpu: ") + READBENCH_TEST_NAIVE_PLUGIN +
                  " and " + (dir / "copy.so"));
}

TEST_CASE(
    "a run's dtypes, paths and backend are checked against its plugins before anything runs") {
  SweepConfig c = plugin_sweep({Plugin::load(faulty("none"))});
  c.dtype = DType::bf16;
  CHECK(error_message([&] { validate(c); }) ==
        "plugin faulty_none (" + faulty("none") + ") does not take q in bf16");
  c.dtype = DType::f32;
  c.kv_storage = DType::e4m3;
  CHECK(error_message([&] { validate(c); }) ==
        "plugin faulty_none (" + faulty("none") + ") does not take K/V in fp8_e4m3");
  c.kv_storage.reset();
  c.backend = BackendChoice::cuda;
  CHECK(error_message([&] { validate(c); }) ==
        "plugin faulty_none (" + faulty("none") + ") runs on cpu, which --backend cuda leaves out");
  c.backend = BackendChoice::cpu;
  c.paths.push_back(Path::of_plugin("elsewhere"));
  CHECK(error_message([&] { validate(c); }) ==
        "--path plugin:elsewhere names no plugin loaded with --plugin");
}

TEST_CASE("a head-major pool holds the same values as the token-major one") {
  Workload w{make_shape(1, 6, 3, 8, 5), DType::f16, 12, 2, 9, {}};
  const HostWorkload h = make_host_workload(w);
  const AlignedBuffer hnd = head_major_copy(h.k_pool, w);
  REQUIRE(hnd.size() == h.k_pool.size());
  const auto* a = reinterpret_cast<const std::uint16_t*>(h.k_pool.data());
  const auto* b = reinterpret_cast<const std::uint16_t*>(hnd.data());
  const int S = 5, H = 3, D = 8;
  for (std::int64_t blk = 0; blk < w.num_blocks(); ++blk)
    for (int t = 0; t < S; ++t)
      for (int hh = 0; hh < H; ++hh)
        for (int d = 0; d < D; ++d)
          REQUIRE(b[((blk * H + hh) * S + t) * D + d] == a[((blk * S + t) * H + hh) * D + d]);
}

TEST_CASE("the problem a plugin is handed describes the workload") {
  Workload w{make_shape(3, 8, 2, 64, 16), DType::bf16, 33, 4, 1, DType::e4m3};
  const rb_problem p = plugin_problem(w, PoolLayout::hnd, -1, 2);
  CHECK(p.batch == 3);
  CHECK(p.q_heads == 8);
  CHECK(p.kv_heads == 2);
  CHECK(p.head_dim == 64);
  CHECK(p.block_size == 16);
  CHECK(p.blocks_per_seq == 3);
  CHECK(p.length == 33);
  CHECK(p.num_blocks == w.num_blocks());
  CHECK(p.q_dtype == RB_DTYPE_BF16);
  CHECK(p.out_dtype == RB_DTYPE_BF16);
  CHECK(p.kv_dtype == RB_DTYPE_FP8_E4M3);
  CHECK(p.layout == RB_LAYOUT_HND);
  CHECK(p.kv_scale == w.kv_scale());
  CHECK(p.softmax_scale == doctest::Approx(0.125));
  CHECK(p.device == -1);
  CHECK(p.threads == 2);
}

TEST_CASE("correct plugins pass the check and are timed and fitted beside the built-in path") {
  // naive_cpu in every dtype pair it is given; faulty_hnd_only reads head-major pools.
  for (const auto& [q, kv] :
       {std::pair{DType::f32, DType::f32}, {DType::bf16, DType::bf16}, {DType::f16, DType::e4m3}}) {
    const Plugins plugins = q == DType::f32 ? Plugins{Plugin::load(READBENCH_TEST_NAIVE_PLUGIN),
                                                      Plugin::load(faulty("hnd_only"))}
                                            : Plugins{Plugin::load(READBENCH_TEST_NAIVE_PLUGIN)};
    SweepConfig c = plugin_sweep(plugins);
    c.dtype = q;
    if (kv != q) c.kv_storage = kv;
    const RunResult run = run_sweep(c);
    for (const auto& p : plugins) {
      const PathResult& r = result_of(run, Path::of_plugin(p->name()));
      CAPTURE(to_string(r.path));
      CAPTURE(r.reason);
      CHECK(r.backend == "cpu");
      CHECK(r.status == Status::ok);
      CHECK(r.checks.size() == 3);  // 16, 17 and 100
      for (const CheckResult& check : r.checks) CHECK(check.passed);
      CHECK(r.points.size() == 3);
      CHECK(r.fit.has_value());
    }
  }
}

TEST_CASE("a deliberately wrong plugin is caught by the check and never timed") {
  for (const std::string fault : {"off_by_one_block", "wrong_scale", "nan"}) {
    CAPTURE(fault);
    const RunResult run = run_sweep(plugin_sweep({Plugin::load(faulty(fault))}));
    const PathResult& r = result_of(run, Path::of_plugin("faulty_" + fault));
    CHECK(r.status == Status::failed);
    CHECK(r.reason.starts_with("verification failed at L="));
    CHECK(r.points.empty());
    CHECK_FALSE(run.all_checks_passed());
    CHECK(result_of(run, Path::fused).status == Status::ok);  // the others go on
    CHECK(result_of(run, Path::fused).points.size() == 3);
  }
}

TEST_CASE("a plugin's own error and refusal fail its path with its message, and nothing else") {
  const RunResult run = run_sweep(
      plugin_sweep({Plugin::load(faulty("run_error")), Plugin::load(faulty("unsupported"))}));
  const PathResult& err = result_of(run, Path::of_plugin("faulty_run_error"));
  CHECK(err.status == Status::failed);
  CHECK(err.reason ==
        "its call failed at L=16: plugin:faulty_run_error failed: deliberate failure");
  CHECK(err.points.empty());
  const PathResult& unsup = result_of(run, Path::of_plugin("faulty_unsupported"));
  CHECK(unsup.status == Status::failed);
  CHECK(unsup.reason ==
        "its call failed at L=16: plugin:faulty_unsupported does not support this problem: head "
        "dim not compiled");
  CHECK(result_of(run, Path::fused).status == Status::ok);
}

TEST_CASE("a plugin that errs while timed fails its path there, untimed, as a failed check") {
  const RunResult run = run_sweep(plugin_sweep({Plugin::load(faulty("fail_later"))}));
  const PathResult& r = result_of(run, Path::of_plugin("faulty_fail_later"));
  CHECK(r.status == Status::failed);
  CHECK(r.reason == "its call failed at L=16: plugin:faulty_fail_later failed: deliberate failure");
  CHECK(r.points.empty());
  REQUIRE_FALSE(r.checks.empty());
  CHECK(r.checks.back().failure == "plugin:faulty_fail_later failed: deliberate failure");
  CHECK_FALSE(run.all_checks_passed());
  CHECK(result_of(run, Path::fused).points.size() == 3);
}

TEST_CASE("a plugin that crashes or hangs in its check is kept out of this process") {
  // Nothing here has started a thread before the fork (CTest runs each case in a process of its
  // own; run after other cases in one process, the child's OpenMP would wait for threads that a
  // fork does not copy).
  SweepConfig c = plugin_sweep(
      {Plugin::load(faulty("crash")), Plugin::load(faulty("hang")), Plugin::load(faulty("none"))});
  const auto out = check_plugins_apart(c, 2.0);
  REQUIRE(out.size() == 2);
  CHECK(out.at("faulty_crash") ==
        "plugin:faulty_crash crashed (SIGSEGV) during its check (run in a separate process); "
        "not called again");
  CHECK(out.at("faulty_hang") ==
        "plugin:faulty_hang did not finish within 2 s during its check (run in a separate "
        "process); not called again");
  // The sweep records them failed, without calling them, and times the rest.
  c.plugins_not_called = out;
  const RunResult run = run_sweep(c);
  for (const char* name : {"faulty_crash", "faulty_hang"}) {
    const PathResult& r = result_of(run, Path::of_plugin(name));
    CHECK(r.status == Status::failed);
    CHECK(r.reason == out.at(name));
    REQUIRE(r.checks.size() == 1);  // the check that never came back
    CHECK_FALSE(r.checks[0].passed);
    CHECK(r.checks[0].failure == out.at(name));
    CHECK(r.points.empty());
  }
  CHECK(result_of(run, Path::of_plugin("faulty_none")).points.size() == 3);
  CHECK_FALSE(run.all_checks_passed());
}
