// `readbench run`: the sweep, a table on stdout, JSON and CSV on request.
#include <algorithm>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/progress_line.hpp"
#include "cli/signal_handlers.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/lengths.hpp"
#include "measure/backend_word.hpp"
#include "measure/plugin_check.hpp"
#include "measure/sweep.hpp"
#include "plugins/exit_guard.hpp"
#include "report/atomic_write.hpp"
#include "report/csv_report.hpp"
#include "report/distinct_files.hpp"
#include "report/json_report.hpp"
#include "report/json_text.hpp"
#include "report/standard_output.hpp"
#include "report/text_report.hpp"

namespace readbench::cli {

namespace {

struct RunOptions {
  SweepConfig config;
  std::string backend = "auto", path = "all", lengths = "auto", dtype = "bf16", cache = "cold",
              statistic = "min", fit_from = "auto", kv_dtype, devices = "0", rounds = "auto";
  std::string json_path, csv_path;
  std::vector<std::string> plugin_files;
  double plugin_timeout_s = kPluginCheckTimeout;
  const CLI::Option* device_given = nullptr;
  bool require_fit = false;
};

// The paths a run timed without fitting: the answer a CI job asked for is missing.
std::vector<std::string> unfitted_paths(const RunResult& result) {
  std::vector<std::string> out;
  for (const PathResult& r : result.results)
    if (r.status == Status::ok && !r.fit) out.push_back(r.backend + "/" + to_string(r.path));
  return out;
}

// --path: "all" (gather, fused and every plugin), or a list of gather, fused and plugin:NAME.
std::vector<Path> parse_paths(const std::string& text, const Plugins& plugins) {
  if (text == "all") {
    std::vector<Path> out{Path::gather, Path::fused};
    for (const auto& p : plugins) out.push_back(Path::of_plugin(p->name()));
    return out;
  }
  std::vector<Path> out;
  for (const std::string& item : comma_items(text)) {
    if (item == "all")
      throw InputError("--path '" + text +
                       "': all cannot be combined with other paths (it is gather, fused and "
                       "every plugin)");
    const Path p = parse_path(item);
    if (std::find(out.begin(), out.end(), p) != out.end())
      throw InputError("--path lists " + item + " twice");
    out.push_back(p);
  }
  return out;
}

int run(RunOptions& o) {
  SweepConfig& c = o.config;
  c.backend = parse_backend_choice(o.backend);
  c.plugins = load_plugins(o.plugin_files, o.plugin_timeout_s);
  c.paths = parse_paths(o.path, c.plugins);
  c.auto_lengths = o.lengths == "auto";
  if (!c.auto_lengths) c.lengths = parse_lengths(o.lengths);
  c.fit_from = parse_fit_from(o.fit_from);
  c.rounds = parse_rounds(o.rounds);
  c.dtype = parse_query_dtype(o.dtype);
  if (!o.kv_dtype.empty()) c.kv_storage = parse_dtype(o.kv_dtype);
  c.devices = parse_devices(o.devices);
  check_device_applies(c.backend, o.device_given->count() > 0);
  c.sampling.cache = parse_cache_state(o.cache);
  c.statistic = parse_statistic(o.statistic);
  validate(c);
  if (o.json_path == "-" && o.csv_path == "-")
    throw InputError("--json and --csv cannot both write to stdout");
  // Fail before a long sweep, not after it. A report written over a plugin's library would
  // destroy it: the plugins are this command's inputs.
  std::vector<RolePath> inputs;
  for (const std::string& file : o.plugin_files) inputs.push_back({"--plugin", file});
  check_distinct_files(inputs, {{"--json", o.json_path}, {"--csv", o.csv_path}});
  if (!o.json_path.empty()) check_writable(o.json_path);
  if (!o.csv_path.empty()) check_writable(o.csv_path);

  // From here a first SIGINT, SIGTERM or SIGHUP stops the sweep at its next safe point and what
  // was measured is still written, marked incomplete; the exit status is then 128 + N.
  const StopSignals stop_signals;
  ProgressLine progress;
  if (!c.plugins.empty()) {
    progress.show("checking the plugins in a separate process");
    c.plugins_not_called = check_plugins_apart(c, o.plugin_timeout_s);
  }
  // A plugin's exit() mid-sweep ends the process from within the plugin's call (exit status 5):
  // what was measured until then is written as a partial report, marked incomplete, the same
  // way a signal's is.
  // The reports asked for, as text (empty where not asked): the sweep's, or a partial one.
  const auto json_of = [&](const RunResult& r) {
    return o.json_path.empty() ? "" : json_text(build_report(r, describe_host(), utc_timestamp()));
  };
  const auto csv_of = [&](const RunResult& r) {
    return o.csv_path.empty() ? "" : build_csv(r, describe_host().hostname);
  };
  const PluginExitSaver save_partial([&](const std::string& how) -> std::string {
    std::optional<RunResult> so_far = sweep_so_far();
    if (!so_far || (o.json_path.empty() && o.csv_path.empty())) return "";
    so_far->plugin_exit = how;
    std::string written, failed;
    for (const auto& [path, content] :
         {std::pair{o.json_path, json_of(*so_far)}, std::pair{o.csv_path, csv_of(*so_far)}}) {
      if (path.empty()) continue;
      try {
        if (path == "-")
          write_stdout(content);
        else
          write_atomically(path, content);
        written += (written.empty() ? "" : " and ") + (path == "-" ? "stdout" : path);
      } catch (const OutputError& e) {
        failed += std::string(failed.empty() ? "" : "; ") + e.what();
      }
    }
    std::string said;
    if (!written.empty())
      said = "what was measured is in " + written + " (the JSON marked incomplete)";
    if (!failed.empty()) said += (said.empty() ? "" : "; ") + failed;
    return said;
  });
  const RunResult result = run_sweep(c, [&](std::string_view m) { progress.show(m); });
  progress.done();

  // The measurements are the expensive part: a report file that cannot be written costs
  // neither the other report nor the table, and the exit status (3) says so.
  const std::string json = json_of(result);
  const std::string csv = csv_of(result);
  std::vector<std::string> failures;
  auto write_file = [&](const std::string& path, const std::string& content) {
    if (path.empty() || path == "-") return;
    try {
      // A second signal waits until a temporary file is renamed or removed. A FIFO or a device
      // is written in place, leaves nothing behind and may block on its reader: no waiting.
      std::optional<DeferStop> defer;
      if (!writes_in_place(path)) defer.emplace();
      write_atomically(path, content);
    } catch (const OutputError& e) {
      failures.push_back(e.what());
    }
  };
  write_file(o.json_path, json);
  write_file(o.csv_path, csv);
  const int signal = interrupt_signal();
  std::string stopped;
  if (!result.complete())
    stopped = "stopped by " + signal_name(result.signal) +
              ": the reports hold what was measured before it, marked incomplete";
  else if (signal != 0)
    stopped = signal_name(signal) + " came after the sweep ended: the reports are complete";
  std::string table = format_run(result);
  if (!result.complete()) table += "\n" + stopped + "\n";
  // A report on stdout replaces the table there, so the output stays machine-readable.
  try {
    write_stdout(o.json_path == "-" ? json : o.csv_path == "-" ? csv : table);
  } catch (const OutputError& e) {
    if (signal == 0) throw;
    failures.push_back(e.what());  // a hangup takes the terminal with it
  }
  if (!stopped.empty()) write_error_line(stopped);
  if (!result.all_checks_passed())
    write_error_line("a correctness check failed; the failing path was not timed");
  for (const std::string& why : failures) write_error_line(why);
  // A signal wins over the other statuses, also one that came after the sweep ended (its reports
  // are complete): the run was asked to stop.
  if (signal != 0) return exit_status_for_signal(signal);
  if (!failures.empty()) return 3;
  if (!result.all_checks_passed()) return 1;
  // `--backend auto` records a backend that failed (out of memory, say) and goes on; when none
  // timed anything the run answered nothing, and a CI job must not read that as success.
  const bool timed = std::any_of(result.results.begin(), result.results.end(),
                                 [](const PathResult& r) { return !r.points.empty(); });
  if (!timed) {
    const bool none_ran = std::none_of(result.results.begin(), result.results.end(),
                                       [](const PathResult& r) { return r.status == Status::ok; });
    write_error_line(std::string("nothing was measured: ") +
                     (none_ran ? "every backend failed or is unavailable"
                               : "every grid stopped at a bound before its first length") +
                     " (the table and the reports say why)");
    return 2;
  }
  if (o.require_fit) {
    std::string which;
    for (const std::string& label : unfitted_paths(result))
      which += (which.empty() ? "" : ", ") + label;
    if (!which.empty()) {
      write_error_line("no fit for " + which +
                       " (--require-fit): the table says why and what to do next");
      return kExitCannotJudge;
    }
  }
  return 0;
}

}  // namespace

void setup_run_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* sub = app.add_subcommand(
      "run", "Sweep history lengths, time gather and fused reads, fit t = c*L^p");
  sub->add_option("--backend", o->backend,
                  "cpu, cuda, all, or auto (cpu plus cuda where a device works)")
      ->capture_default_str();
  sub->add_option("--path", o->path,
                  "all, or a list of gather, fused and plugin:NAME (all: both and every plugin)")
      ->capture_default_str();
  add_plugin_options(sub, o->plugin_files, o->plugin_timeout_s,
                     "A shared library with a read of its own (include/readbench/plugin.h): "
                     "timed as the path plugin:NAME on its backend (repeatable; see "
                     "docs/plugins.md)");
  sub->add_option("-L,--lengths", o->lengths,
                  "History lengths: auto (x4 from 16 until each path reaches its asymptote), an "
                  "increasing list (16,64,256) or a geometric range (16:65536:x4)")
      ->capture_default_str();
  sub->add_option("--max-length", o->config.max_length,
                  "With --lengths auto: the longest length the grid may time (at least " +
                      std::to_string(kAutoFirstLength) + ")")
      ->check(integer_in(1, std::numeric_limits<std::int64_t>::max()))
      ->capture_default_str();
  sub->add_option("--sweep-budget", o->config.sweep_budget_s,
                  "With --lengths auto: seconds per backend after which no new length starts")
      ->check(finite_number(NumberBound::positive))
      ->capture_default_str();
  sub->add_option("--rounds", o->rounds,
                  "Sampling rounds: after the first, every point is sampled again in each round "
                  "(longest and shortest first in turn) and its time is taken over all of them, "
                  "so a machine that drifts during the run moves every length alike; auto (3 on "
                  "the CPU, 1 on a GPU) or 1 to " +
                      std::to_string(kMaxRounds))
      ->capture_default_str();
  add_shape_options(sub, o->config.shape);
  sub->add_option(
         "--dtype", o->dtype,
         "Storage type of q and the output (and of K/V unless --kv-dtype): f32, f16 or bf16")
      ->capture_default_str();
  sub->add_option("--kv-dtype", o->kv_dtype,
                  "Storage type of K/V: --dtype's (the default) or fp8_e4m3 (with a per-tensor "
                  "scale; see docs/method.md)")
      ->check(CLI::Validator(
          [](const std::string& s) {
            return s.empty() ? std::string("an empty value names no dtype") : "";
          },
          "DTYPE"));
  sub->add_option("--cache", o->cache, "cold (caches flushed between samples) or hot")
      ->capture_default_str();
  sub->add_option(
         "--noise", o->config.sampling.noise_target,
         "Stop sampling a point once the relative standard error of the median is at or under this")
      ->check(finite_number(NumberBound::positive))
      ->capture_default_str();
  sub->add_option("--budget", o->config.sampling.budget_s,
                  "Seconds per point at most (warm-up and flushes included)")
      ->check(finite_number(NumberBound::positive))
      ->capture_default_str();
  sub->add_option("--min-samples", o->config.sampling.min_samples, "Samples per point at least")
      ->check(integer_in(1, o->config.sampling.max_samples))
      ->capture_default_str();
  sub->add_option("--statistic", o->statistic,
                  "Per-point time the fit uses: min (best-of) or median")
      ->capture_default_str();
  sub->add_option("--fit-from", o->fit_from,
                  "Fit lengths >= this: auto (from the first length whose time is at least 80% "
                  "length-dependent and whose cost per token has settled) or a length (0: all)")
      ->capture_default_str();
  add_threads_option(sub, o->config.threads);
  o->device_given =
      sub->add_option(
             "--device", o->devices,
             "CUDA device index, a list of them (0,1) or all: several devices are swept at "
             "the same time, each a backend of its own (cuda:0, cuda:1, ...)")
          ->capture_default_str();
  sub->add_option("--seed", o->config.seed, "Seed of the inputs and the block allocator")
      ->check(seed_value())
      ->capture_default_str();
  sub->add_flag("--require-fit", o->require_fit,
                "Exit " + std::to_string(kExitCannotJudge) +
                    " when a path was timed but not fitted (the reports are still written)");
  sub->add_option("--json", o->json_path, "Write the JSON report to FILE (- for stdout)")
      ->check(output_path());
  sub->add_option("--csv", o->csv_path, "Write the CSV report to FILE (- for stdout)")
      ->check(output_path());
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace readbench::cli
