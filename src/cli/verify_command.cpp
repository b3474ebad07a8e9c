// `readbench verify`: the SPEC §2 correctness checks alone, for each backend and dtype asked.
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/errors.hpp"
#include "core/lengths.hpp"
#include "measure/verify.hpp"

namespace readbench::cli {

namespace {

struct VerifyOptions {
  std::string backend = "auto", dtypes = "f32,f16,bf16", lengths;
  Shape shape;
  int threads = 0, device = 0;
  std::uint64_t seed = 7;
};

std::vector<DType> parse_dtypes(const std::string& text) {
  std::vector<DType> out;
  std::size_t pos = 0;
  while (true) {
    const auto comma = text.find(',', pos);
    out.push_back(parse_dtype(text.substr(pos, comma == std::string::npos ? comma : comma - pos)));
    if (comma == std::string::npos) return out;
    pos = comma + 1;
  }
}

int run(const VerifyOptions& o) {
  o.shape.validate();
  const BackendChoice choice = parse_backend_choice(o.backend);
  const auto dtypes = parse_dtypes(o.dtypes);
  const std::int64_t S = o.shape.block_size;
  const std::vector<std::int64_t> lengths =
      o.lengths.empty() ? parse_lengths("1," + std::to_string(S) + "," + std::to_string(S + 1) +
                                        (S + 1 < 1000 ? ",1000" : ""))
                        : parse_lengths(o.lengths);
  std::vector<std::string> names;
  if (choice != BackendChoice::cuda) names.push_back("cpu");
  if (choice != BackendChoice::cpu) names.push_back("cuda");

  bool all_passed = true, header_printed = false;
  for (const std::string& name : names) {
    std::unique_ptr<Backend> backend;
    try {
      backend = name == "cpu" ? make_cpu_backend(o.threads) : make_cuda_backend(o.device);
    } catch (const BackendUnavailable& e) {
      if (choice == BackendChoice::cuda)
        throw InputError("--backend cuda cannot run: " + std::string(e.what()));
      std::printf("%-7s unavailable: %s\n", name.c_str(), e.what());
      continue;
    }
    if (!header_printed) {
      std::printf("%-7s %-5s %-7s %8s %12s %10s  %s\n", "backend", "dtype", "path", "L", "error",
                  "tolerance", "result");
      header_printed = true;
    }
    for (DType t : dtypes)
      for (std::int64_t len : lengths) {
        const Workload w{o.shape, t, len, 1, o.seed};
        for (const CheckResult& c : check_paths(*backend, w, {Path::gather, Path::fused})) {
          all_passed = all_passed && c.passed;
          std::printf("%-7s %-5s %-7s %8lld %12.3e %10.1e  %s\n", name.c_str(),
                      std::string(to_string(t)).c_str(), std::string(to_string(c.path)).c_str(),
                      (long long)len, c.error, c.tolerance, c.passed ? "pass" : "FAIL");
        }
      }
  }
  std::fflush(stdout);
  return all_passed ? 0 : 1;
}

}  // namespace

void setup_verify_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<VerifyOptions>();
  CLI::App* sub = app.add_subcommand(
      "verify", "Check gather and fused against an f64 reference on random inputs (no timing)");
  sub->add_option("--backend", o->backend, "cpu, cuda, all, or auto")->capture_default_str();
  sub->add_option("--dtypes", o->dtypes, "Comma-separated dtypes to check")->capture_default_str();
  sub->add_option("-L,--lengths", o->lengths, "History lengths (default: 1, S, S+1, 1000)");
  add_shape_options(sub, o->shape);
  sub->add_option("--threads", o->threads, "CPU threads (0: all cores)")->capture_default_str();
  sub->add_option("--device", o->device, "CUDA device index")->capture_default_str();
  sub->add_option("--seed", o->seed, "Seed of the random inputs")
      ->check(not_negative())
      ->capture_default_str();
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace readbench::cli
