// `readbench ab`: two implementations of the read timed in one interleaved sweep and compared
// pair by pair (measure/ab.hpp); and `readbench ab-worker`, the hidden command each arm runs.
#include <signal.h>
#include <unistd.h>

#include <climits>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/progress_line.hpp"
#include "cli/signal_handlers.hpp"
#include "core/dtype.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/lengths.hpp"
#include "core/strprintf.hpp"
#include "measure/ab.hpp"
#include "measure/ab_worker.hpp"
#include "measure/backend_opening.hpp"
#include "measure/backend_word.hpp"
#include "measure/plugin_check.hpp"
#include "plugins/stdout_diversion.hpp"
#include "report/ab_report.hpp"
#include "report/atomic_write.hpp"
#include "report/distinct_files.hpp"
#include "report/json_report.hpp"
#include "report/json_text.hpp"
#include "report/standard_output.hpp"

namespace readbench::cli {

namespace {

struct AbOptions {
  AbConfig config;
  std::string base = "", head = "", path = "gather,fused", base_path, head_path;
  std::vector<std::string> plugins, base_plugins, head_plugins;
  std::string backend = "auto", lengths = "auto", dtype = "bf16", kv_dtype, cache = "cold",
              statistic = "min", fit_from = "auto";
  int device = 0;
  std::string json_path;
  // Given on the command line, or left to the backend's default (ab_defaults).
  const CLI::Option* slice_given = nullptr;
  const CLI::Option* max_cost_ratio_given = nullptr;
};

// This readbench, for an arm that names no binary.
std::string this_binary() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw InputError("cannot find this readbench's own binary: name --base and --head");
  return std::string(buf, std::size_t(n));
}

std::vector<Path> paths_of(const std::string& option, const std::string& text) {
  std::vector<Path> out;
  for (const std::string& item : comma_items(text)) {
    const Path p = parse_path(item);
    if (std::find(out.begin(), out.end(), p) != out.end())
      throw InputError(option + " lists " + item + " twice");
    out.push_back(p);
  }
  return out;
}

int run(AbOptions& o) {
  AbConfig& c = o.config;
  SweepConfig& s = c.sweep;
  if (o.backend == "auto") o.backend = cuda_device_count() > 0 ? "cuda" : "cpu";
  s.backend = parse_backend_choice(o.backend);
  if (o.slice_given->count() == 0) c.slice_s = ab_defaults(s.backend).slice_s;
  if (o.max_cost_ratio_given->count() == 0) c.thresholds.max_cost_ratio = ab_defaults(s.backend).max_cost_ratio;
  s.devices = {o.device};
  s.auto_lengths = o.lengths == "auto";
  if (!s.auto_lengths) s.lengths = parse_lengths(o.lengths);
  s.fit_from = parse_fit_from(o.fit_from);
  s.dtype = parse_query_dtype(o.dtype);
  if (!o.kv_dtype.empty()) s.kv_storage = parse_dtype(o.kv_dtype);
  s.sampling.cache = parse_cache_state(o.cache);
  s.statistic = parse_statistic(o.statistic);
  c.base.binary = o.base.empty() ? this_binary() : o.base;
  c.head.binary = o.head.empty() ? this_binary() : o.head;
  c.base.plugins = o.plugins;
  c.base.plugins.insert(c.base.plugins.end(), o.base_plugins.begin(), o.base_plugins.end());
  c.head.plugins = o.plugins;
  c.head.plugins.insert(c.head.plugins.end(), o.head_plugins.begin(), o.head_plugins.end());
  c.base.paths = paths_of("--base-path", o.base_path.empty() ? o.path : o.base_path);
  c.head.paths = paths_of("--head-path", o.head_path.empty() ? o.path : o.head_path);
  validate(c);
  std::vector<RolePath> inputs;
  for (const auto& f : c.base.plugins) inputs.push_back({"--base-plugin", f});
  for (const auto& f : c.head.plugins) inputs.push_back({"--head-plugin", f});
  inputs.push_back({"--base", c.base.binary});
  inputs.push_back({"--head", c.head.binary});
  check_distinct_files(inputs, {{"--json", o.json_path}});
  if (!o.json_path.empty()) check_writable(o.json_path);

  const StopSignals stop_signals;
  ProgressLine progress;
  const AbResult result = run_ab(c, [&](std::string_view m) { progress.show(m); });
  progress.done();

  std::vector<std::string> failures;
  const std::string json =
      o.json_path.empty() ? "" : json_text(build_ab_report(result, describe_host(), utc_timestamp()));
  if (!o.json_path.empty() && o.json_path != "-") {
    try {
      std::optional<DeferStop> defer;
      if (!writes_in_place(o.json_path)) defer.emplace();
      write_atomically(o.json_path, json);
    } catch (const OutputError& e) {
      failures.push_back(e.what());
    }
  }
  write_stdout(o.json_path == "-" ? json : format_ab_markdown(result));
  if (!result.complete())
    write_error_line("stopped by " + signal_name(result.signal) +
                     ": the report holds the pairs taken before it, marked incomplete");
  for (const AbPairing& p : result.pairings)
    if (p.status == Status::failed) write_error_line(p.name() + " not compared: " + p.reason);
  for (const std::string& why : failures) write_error_line(why);
  if (const int signal = interrupt_signal(); signal != 0) return exit_status_for_signal(signal);
  if (!failures.empty()) return 3;
  return exit_status_of(result.verdict());
}

}  // namespace

void setup_ab_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<AbOptions>();
  CLI::App* sub = app.add_subcommand(
      "ab", "Same-runner gate: time two implementations interleaved and compare them pair by pair");
  sub->footer(
      "Each arm runs in a worker process (a readbench binary, with its plugins); the arms of one\n"
      "binary share one, and on a CPU one workload in memory. One arm times at a time. At each\n"
      "length the arms alternate in blocks of four slices (ABBA or BAAB at random), each round\n"
      "visits the lengths in a new random order, so the machine's drift falls on both arms of\n"
      "every pair. Per length: head/base, the median of the pairs' ratios, with a 95% interval\n"
      "between two of their order statistics. Over\n"
      "the base's fitted region: delta p (the slope of log(head/base) against log L) and the\n"
      "marginal-cost ratio, each with a paired-bootstrap 95% CI.\n"
      "A regression: either CI wholly above its bound; a pass: both wholly at or below;\n"
      "else inconclusive, and rounds go on until decided or --sweep-budget is spent.\n"
      "Exit 0: pass; 1: a regression, or a head path that fails its check; 2: bad usage, an arm\n"
      "that cannot start or speaks another ab protocol; 3: the report could not be written;\n"
      "4: inconclusive; 128+N: stopped by signal N (the report holds what was taken).");
  sub->add_option("--base", o->base, "The base arm's readbench binary (default: this one)");
  sub->add_option("--head", o->head, "The head arm's readbench binary (default: this one)");
  sub->add_option("--plugin", o->plugins, "A plugin both arms load (repeatable; docs/plugins.md)");
  sub->add_option("--base-plugin", o->base_plugins, "A plugin the base arm loads (repeatable)");
  sub->add_option("--head-plugin", o->head_plugins, "A plugin the head arm loads (repeatable)");
  sub->add_option("--path", o->path, "Paths both arms time, paired by name: gather, fused, plugin:NAME")
      ->capture_default_str();
  sub->add_option("--base-path", o->base_path, "The base arm's paths, paired by position with --head-path");
  sub->add_option("--head-path", o->head_path, "The head arm's paths, paired by position with --base-path");
  sub->add_option("--backend", o->backend, "cpu, cuda, or auto (cuda where this process sees a device)")
      ->capture_default_str();
  sub->add_option("--device", o->device, "CUDA device index")
      ->check(integer_in(0, 1 << 20))
      ->capture_default_str();
  sub->add_option("-L,--lengths", o->lengths,
                  "History lengths: auto (x4 from 16 until the base reaches its asymptote), a list "
                  "or a geometric range (16:65536:x4)")
      ->capture_default_str();
  sub->add_option("--max-length", o->config.sweep.max_length, "With --lengths auto: the longest length")
      ->check(integer_in(1, std::numeric_limits<std::int64_t>::max()))
      ->capture_default_str();
  o->config.sweep.sweep_budget_s = 60;
  sub->add_option("--sweep-budget", o->config.sweep.sweep_budget_s,
                  "Seconds after which no new round starts (both arms together)")
      ->check(finite_number(NumberBound::positive))
      ->capture_default_str();
  o->slice_given = sub->add_option("--slice", o->config.slice_s,
                                   strprintf("Seconds of samples in one slice [%g on cpu, %g on cuda]",
                                             ab_defaults(BackendChoice::cpu).slice_s,
                                             ab_defaults(BackendChoice::cuda).slice_s))
                       ->check(finite_number(NumberBound::positive));
  sub->add_option("--tolerance", o->config.thresholds.tolerance,
                  "Rise of the exponent p allowed before it counts (delta p's bound)")
      ->check(finite_number(NumberBound::non_negative))
      ->capture_default_str();
  o->max_cost_ratio_given =
      sub->add_option("--max-cost-ratio", o->config.thresholds.max_cost_ratio,
                      strprintf("Head/base marginal cost per token allowed before it counts (>= 1) "
                                "[%g on cpu, %g on cuda]",
                                ab_defaults(BackendChoice::cpu).max_cost_ratio,
                                ab_defaults(BackendChoice::cuda).max_cost_ratio))
          ->check(finite_number(NumberBound::positive));
  add_shape_options(sub, o->config.sweep.shape);
  sub->add_option("--dtype", o->dtype, "Storage type of q and the output (and K/V): f32, f16 or bf16")
      ->capture_default_str();
  sub->add_option("--kv-dtype", o->kv_dtype, "Storage type of K/V: --dtype's or fp8_e4m3");
  sub->add_option("--cache", o->cache, "cold (caches flushed between samples) or hot")->capture_default_str();
  sub->add_option("--statistic", o->statistic, "A slice's time: min (best-of) or median")->capture_default_str();
  sub->add_option("--fit-from", o->fit_from, "The base's fitted region: auto or a length")->capture_default_str();
  add_threads_option(sub, o->config.sweep.threads);
  sub->add_option("--seed", o->config.sweep.seed, "Seed of the inputs and of the slices' order")
      ->check(seed_value())
      ->capture_default_str();
  sub->add_option("--plugin-timeout", o->config.plugin_timeout_s,
                  "Seconds a plugin's checks may take in the process that runs them first")
      ->check(finite_number(NumberBound::positive))
      ->capture_default_str();
  sub->add_flag("--separate-workers", o->config.separate_workers,
               "A worker process for each arm even when both are one binary (which otherwise share one, "
               "and on a CPU one workload in memory)");
  sub->add_option("--json", o->json_path, "Write the ab report to FILE (- for stdout)")->check(output_path());
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

void setup_ab_worker_command(CLI::App& app, int& exit_code) {
  CLI::App* sub = app.add_subcommand("ab-worker", "");  // hidden: readbench ab starts it
  sub->group("");
  sub->callback([&exit_code] {
    // The protocol keeps stdout (a close-on-exec copy the plugins' children do not inherit);
    // whatever a plugin prints goes to stderr instead.
    divert_stdout_to_stderr();
    const int protocol_out = own_stdout_fd();
    // The terminal's interrupt reaches the whole process group: the parent answers it, and its
    // workers end when it closes their input.
    ::signal(SIGINT, SIG_IGN);
    ::signal(SIGHUP, SIG_IGN);
    exit_code = serve_ab_worker(STDIN_FILENO, protocol_out);
  });
}

}  // namespace readbench::cli
