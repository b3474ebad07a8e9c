// The host memory model (measure/run_memory.hpp) against the peak resident memory of real runs:
// each shape runs `readbench run` in a child process and compares the child's peak (ru_maxrss
// after wait4) with the model's figure for the same configuration. A cold run's replicas come
// from its report. Prints one table row per shape; fails a shape off by more than 10%.
// Each shape stays well under 1 GB; all of them take tens of seconds (ctest label `slow`).
#include <doctest/doctest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "measure/run_memory.hpp"
#include "plugins/plugin.hpp"

using namespace readbench;

namespace {

// The lengths and replicas of the points in a report: {length: replicas}.
std::map<std::int64_t, int> replicas_in(const std::string& json) {
  std::map<std::int64_t, int> out;
  const std::regex point(R"re("length": (\d+),[^{}]*?"replicas": (\d+))re");
  for (auto it = std::sregex_iterator(json.begin(), json.end(), point);
       it != std::sregex_iterator(); ++it)
    out[std::stoll((*it)[1])] = std::stoi((*it)[2]);
  return out;
}

// Peak resident bytes of `readbench run ARGS`, and its report's text.
std::pair<std::int64_t, std::string> measure(const std::vector<std::string>& args) {
  char dir[] = "/tmp/readbench-memory.XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  const std::string json = std::string(dir) + "/r.json";
  std::vector<std::string> all{READBENCH_BINARY, "run",  "--backend", "cpu",
                               "--budget",       "0.02", "--json",    json};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);  // else the child writes this process's buffered lines again
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // The child's table and progress go to a file: this test prints its own table.
    if (std::freopen((std::string(dir) + "/out").c_str(), "w", stdout) == nullptr ||
        std::freopen((std::string(dir) + "/err").c_str(), "w", stderr) == nullptr)
      ::_exit(126);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int status = 0;
  rusage usage{};
  REQUIRE(::wait4(pid, &status, 0, &usage) == pid);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  std::ifstream f(json);
  std::stringstream text;
  text << f.rdbuf();
  std::remove(json.c_str());
  std::remove((std::string(dir) + "/out").c_str());
  std::remove((std::string(dir) + "/err").c_str());
  ::rmdir(dir);
  return {std::int64_t(usage.ru_maxrss) * 1024, text.str()};
}

SweepConfig config(std::vector<std::int64_t> lengths, std::vector<Path> paths, int batch, int block,
                   DType dtype, std::optional<DType> kv, CacheState cache, int kv_heads = 8,
                   int rounds = 1) {
  SweepConfig c;
  c.backend = BackendChoice::cpu;
  c.auto_lengths = false;
  c.lengths = std::move(lengths);
  c.paths = std::move(paths);
  c.shape.batch = batch;
  c.shape.block_size = block;
  c.shape.kv_heads = kv_heads;
  c.dtype = dtype;
  c.kv_storage = kv;
  c.sampling.cache = cache;
  c.rounds = rounds;
  return c;
}

std::vector<std::string> args_of(const SweepConfig& c) {
  std::string lengths, paths;
  // Appended piece by piece: GCC 12 warns (-Wrestrict, wrongly) on "," + string.
  for (auto l : c.lengths) {
    if (!lengths.empty()) lengths += ',';
    lengths += std::to_string(l);
  }
  for (const Path& p : c.paths) {
    if (!paths.empty()) paths += ',';
    paths += to_string(p);
  }
  std::vector<std::string> a{"-L",           lengths,
                             "--path",       paths,
                             "-b",           std::to_string(c.shape.batch),
                             "--block-size", std::to_string(c.shape.block_size),
                             "--kv-heads",   std::to_string(c.shape.kv_heads),
                             "--dtype",      std::string(to_string(c.dtype)),
                             "--cache",      c.sampling.cache == CacheState::hot ? "hot" : "cold",
                             "--rounds",     std::to_string(*c.rounds)};
  if (c.kv_storage) a.insert(a.end(), {"--kv-dtype", std::string(to_string(*c.kv_storage))});
  for (const auto& plugin : c.plugins) a.insert(a.end(), {"--plugin", plugin->file()});
  return a;
}

// A plugin that takes head-major pools only, beside the fused path: the pools are copied.
SweepConfig hnd_plugin_run() {
  SweepConfig c = config({32768}, {Path::fused}, 1, 16, DType::f32, {}, CacheState::hot);
  c.plugins = load_plugins({READBENCH_TEST_PLUGIN_DIR "/libfaulty_hnd_only.so"});
  c.paths.push_back(Path::of_plugin(c.plugins.front()->name()));
  return c;
}

}  // namespace

TEST_CASE("the memory model is within 10% of the peak resident memory of real runs") {
  const Path g = Path::gather, f = Path::fused;
  const auto hot = CacheState::hot, cold = CacheState::cold;
  const std::vector<std::pair<std::string, SweepConfig>> shapes{
      {"bf16 both hot", config({16384, 65536}, {g, f}, 1, 16, DType::bf16, {}, hot)},
      {"bf16 fused hot", config({16384, 65536}, {f}, 1, 16, DType::bf16, {}, hot)},
      {"bf16 gather hot", config({65536}, {g}, 1, 16, DType::bf16, {}, hot)},
      {"f32 both hot B=2 S=32", config({4096, 16384}, {g, f}, 2, 32, DType::f32, {}, hot)},
      {"fp8 K/V both hot", config({131072}, {g, f}, 1, 16, DType::bf16, DType::e4m3, hot)},
      {"f16 both hot B=4 S=64", config({16384}, {g, f}, 4, 64, DType::f16, {}, hot)},
      {"bf16 both cold", config({16384, 65536}, {g, f}, 1, 16, DType::bf16, {}, cold)},
      {"fp8 K/V fused cold B=2", config({65536}, {f}, 2, 16, DType::bf16, DType::e4m3, cold)},
      {"bf16 both hot 3 rounds", config({1024, 65536}, {g, f}, 1, 16, DType::bf16, {}, hot, 8, 3)},
      {"bf16 both hot B=3 S=256", config({1000, 20000}, {g, f}, 3, 256, DType::bf16, {}, hot)},
      {"f32 fused hot Hkv=2", config({262144}, {f}, 1, 16, DType::f32, {}, hot, 2)},
      {"f16 gather cold B=2 S=128", config({32768}, {g}, 2, 128, DType::f16, {}, cold)},
      {"bf16 fused hot S=1024", config({1024, 100000}, {f}, 1, 1024, DType::bf16, {}, hot)},
      {"bf16 both hot short", config({16, 1024}, {g, f}, 1, 16, DType::bf16, {}, hot)},
      {"f32 head-major plugin hot", hnd_plugin_run()},
  };
  std::printf("%-28s %14s %14s %7s\n", "shape", "model bytes", "measured peak", "ratio");
  for (const auto& [name, c] : shapes) {
    const auto [measured, report] = measure(args_of(c));
    const std::map<std::int64_t, int> replicas = replicas_in(report);
    std::vector<Workload> grid;
    for (std::int64_t len : c.lengths) {
      Workload w = c.workload(len);
      if (const auto it = replicas.find(len); it != replicas.end()) w.replicas = it->second;
      grid.push_back(w);
    }
    const MemoryPeak model = backend_peak(c, "cpu", grid);
    const double ratio = double(model.bytes) / double(measured);
    std::printf("%-28s %14lld %14lld %7.3f  %s\n", name.c_str(), (long long)model.bytes,
                (long long)measured, ratio, model.when.c_str());
    std::fflush(stdout);
    const std::string shape = name;  // a structured binding cannot be captured
    CHECK_MESSAGE(std::abs(ratio - 1.0) <= 0.10, shape);
  }
}
