// The interrupt flag and what honours it: the handlers `run` installs, the workload fill, and
// the report of a run a signal stopped, written and read back.
#include <doctest/doctest.h>

#include <cmath>
#include <csignal>
#include <limits>
#include <string>

#include "backends/cpu/paged_attention.hpp"
#include "cli/signal_handlers.hpp"
#include "core/aligned_buffer.hpp"
#include "core/host_workload.hpp"
#include "core/interrupt.hpp"
#include "core/reference.hpp"
#include "measure/sampler.hpp"
#include "measure/verify.hpp"
#include "report/compare.hpp"
#include "report/plot.hpp"
#include "report/report_input.hpp"
#include "report_fixtures.hpp"
#include "test_support.hpp"

using namespace readbench;
using readbench::test::error_message;

namespace {

// The flag is process-wide: each test starts and ends without one.
struct CleanInterrupt {
  CleanInterrupt() { clear_interrupt(); }
  ~CleanInterrupt() { clear_interrupt(); }
};

Workload small_workload() {
  Shape s;
  s.q_heads = 4;
  s.kv_heads = 2;
  s.head_dim = 8;
  s.block_size = 4;
  return Workload{s, DType::f32, 64, 1, 7, std::nullopt};
}

// Calls take 1 ms; the `signal_at`-th call raises the flag, as a handler would mid-call.
class SignalledBackend final : public Backend {
 public:
  explicit SignalledBackend(int signal_at) : signal_at_(signal_at) {}
  std::string_view name() const override { return "fake"; }
  double timer_resolution_s() const override { return 1e-9; }
  std::int64_t cache_bytes() const override { return 1 << 20; }
  Bandwidths measure_bandwidths() override { return {10, 5, 1 << 20}; }
  void prepare(HostWorkload&&) override {}
  std::vector<double> run_for_check(Path) override { return {}; }
  double time_calls(Path, int calls, CacheState) override {
    if (++calls_ == signal_at_) request_interrupt(SIGINT);
    return calls * 1e-3;
  }
  int calls() const { return calls_; }

 private:
  int signal_at_, calls_ = 0;
};

// A check whose call is cut short by a signal: the flag rises during it and the output is
// garbage, as a CPU read that stopped taking work leaves it.
class SignalledCheckBackend final : public Backend {
 public:
  std::string_view name() const override { return "fake"; }
  double timer_resolution_s() const override { return 1e-9; }
  std::int64_t cache_bytes() const override { return 1 << 20; }
  Bandwidths measure_bandwidths() override { return {10, 5, 1 << 20}; }
  void prepare(HostWorkload&& h) override { elements_ = std::size_t(h.workload.io_elements()); }
  std::vector<double> run_for_check(Path) override {
    request_interrupt(SIGINT);
    return std::vector<double>(elements_, std::numeric_limits<double>::quiet_NaN());
  }
  double time_calls(Path, int calls, CacheState) override { return calls * 1e-3; }

 private:
  std::size_t elements_ = 0;
};

// Runs one CPU read of `h` into a NaN-filled output and counts the finite results.
int finite_outputs(const HostWorkload& h, Path p, int threads) {
  const Workload& w = h.workload;
  AlignedBuffer out(std::size_t(w.io_elements()) * element_size(w.dtype)),
      k(std::size_t(w.kv_bytes_per_call() / 2)), v(std::size_t(w.kv_bytes_per_call() / 2));
  for (std::int64_t i = 0; i < w.io_elements(); ++i)
    store_as(w.dtype, out.data(), std::size_t(i), std::numeric_limits<float>::quiet_NaN());
  if (p == Path::gather)
    cpu::gather_read(h, 0, out.data(), {k.data(), v.data()}, threads);
  else
    cpu::fused_read(h, 0, out.data(), threads);
  int finite = 0;
  for (std::int64_t i = 0; i < w.io_elements(); ++i)
    finite += std::isfinite(load_as(w.dtype, out.data(), std::size_t(i))) ? 1 : 0;
  return finite;
}

SamplingPolicy three_samples() {
  SamplingPolicy p;
  p.min_samples = p.max_samples = 3;
  p.warmup_s = p.min_time_s = 0;
  return p;
}

}  // namespace

TEST_CASE("a signal during a point's last sample drops the point") {
  const CleanInterrupt clean;
  SignalledBackend quiet(0);
  CHECK(measure_point(quiet, Path::fused, three_samples()).per_call.count == 3);
  // Three warm-up calls, then samples 4, 5 and 6: the flag rises in the last.
  SignalledBackend fake(6);
  CHECK_THROWS_AS(measure_point(fake, Path::fused, three_samples()), Interrupted);
  CHECK(fake.calls() == 6);
}

TEST_CASE("a signal during the warm-up stops the point before its next call") {
  const CleanInterrupt clean;
  SignalledBackend fake(1);
  CHECK_THROWS_AS(measure_point(fake, Path::fused, three_samples()), Interrupted);
  CHECK(fake.calls() == 1);
}

TEST_CASE("the first signal recorded is the one kept") {
  const CleanInterrupt clean;
  CHECK(interrupt_signal() == 0);
  CHECK_NOTHROW(throw_if_interrupted());
  CHECK(request_interrupt(SIGTERM));
  CHECK_FALSE(request_interrupt(SIGINT));
  CHECK(interrupt_signal() == SIGTERM);
  CHECK(error_message<Interrupted>([] { throw_if_interrupted(); }) == "stopped by SIGTERM");
}

TEST_CASE("signal names round-trip for the three stop signals") {
  for (int s : {SIGINT, SIGTERM, SIGHUP}) CHECK(signal_number(signal_name(s)) == s);
  CHECK(signal_name(SIGINT) == "SIGINT");
  CHECK(signal_number("SIGKILL") == 0);
  CHECK(cli::exit_status_for_signal(SIGINT) == 130);
  CHECK(cli::exit_status_for_signal(SIGTERM) == 143);
  CHECK(cli::exit_status_for_signal(SIGHUP) == 129);
}

TEST_CASE("a workload is not built once a signal asks the run to stop") {
  const CleanInterrupt clean;
  CHECK_NOTHROW(make_host_workload(small_workload()));
  request_interrupt(SIGINT);
  CHECK(error_message<Interrupted>([] { make_host_workload(small_workload()); }) ==
        "stopped by SIGINT");
}

TEST_CASE("a recorded signal stops both CPU reads before they read any history") {
  // Without the flag every output is finite; with it no task reads a chunk, so the softmax
  // sums stay empty and every output is 0/0. One and two threads; one slice and several.
  const CleanInterrupt clean;
  const Shape s = readbench::test::make_shape(2, 8, 2, 64, 16);
  for (std::int64_t length : {40, 3000})
    for (int threads : {1, 2}) {
      CAPTURE(length);
      CAPTURE(threads);
      clear_interrupt();
      const HostWorkload h =
          make_host_workload(Workload{s, DType::bf16, length, 1, 3, std::nullopt});
      const int all = int(h.workload.io_elements());
      for (const Path& p : {Path::gather, Path::fused}) {
        CAPTURE(to_string(p));
        clear_interrupt();
        CHECK(finite_outputs(h, p, threads) == all);
        request_interrupt(SIGINT);
        CHECK(finite_outputs(h, p, threads) == 0);
      }
    }
}

TEST_CASE("a signal during a check's call stops the check instead of failing it") {
  const CleanInterrupt clean;
  SignalledCheckBackend backend;
  CHECK_THROWS_AS(check_paths(backend, small_workload(), {Path::fused}), Interrupted);
}

TEST_CASE("the first stop signal only sets the flag while the handlers are installed") {
  const CleanInterrupt clean;
  {
    const cli::StopSignals handlers;
    std::raise(SIGINT);  // the process goes on: the handler recorded it
    CHECK(interrupt_signal() == SIGINT);
  }
}

TEST_CASE("a stop signal ignored before the handlers are installed stays ignored") {
  const CleanInterrupt clean;
  struct sigaction ignore {
  }, before{};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGHUP, &ignore, &before);
  {
    const cli::StopSignals handlers;
    std::raise(SIGHUP);
    CHECK(interrupt_signal() == 0);
  }
  ::sigaction(SIGHUP, &before, nullptr);
}

TEST_CASE("a report of a stopped run says incomplete with the signal, and reads back so") {
  RunResult run = readbench::test::synthetic_run();
  const Json complete =
      build_report(run, readbench::test::synthetic_host(), "2026-01-02T03:04:05Z");
  CHECK(complete["complete"] == true);
  CHECK_FALSE(complete.contains("signal"));
  CHECK(readbench::test::report_of(run).complete);

  run.signal = SIGHUP;
  const Json stopped = build_report(run, readbench::test::synthetic_host(), "2026-01-02T03:04:05Z");
  CHECK(stopped["complete"] == false);
  CHECK(stopped["signal"] == "SIGHUP");
  const Report back = readbench::test::report_of(run);
  CHECK_FALSE(back.complete);
  CHECK(back.signal == "SIGHUP");
  CHECK(back.incompleteness() == "incomplete: stopped by SIGHUP");
}

TEST_CASE("a report without the complete field reads as complete and a malformed one is refused") {
  nlohmann::json j = nlohmann::json::parse(readbench::test::synthetic_report().dump());
  j.erase("complete");
  CHECK(report_from_json(j, "old.json").complete);
  j["complete"] = "no";
  CHECK(error_message([&] { report_from_json(j, "bad.json"); }) ==
        "bad.json: complete is not true or false");
  j["complete"] = false;
  CHECK(error_message([&] { report_from_json(j, "bad.json"); }).find("signal is missing") !=
        std::string::npos);
}

TEST_CASE("compare notes an incomplete report under its table") {
  RunResult stopped = readbench::test::synthetic_run();
  stopped.signal = SIGINT;
  const Comparison c =
      compare_reports({readbench::test::report_of(readbench::test::synthetic_run(), "a", "a.json"),
                       readbench::test::report_of(stopped, "b", "b.json")});
  REQUIRE(c.notes.size() == 1);
  CHECK(c.notes[0].find("b.json (b) is incomplete: stopped by SIGINT") == 0);
  const std::string md = format_compare_markdown(c);
  CHECK(md.find("\nNote: b.json (b) is incomplete: stopped by SIGINT") != std::string::npos);
  CHECK(compare_to_json(c)["notes"].size() == 1);
}

TEST_CASE("plot says incomplete in the subtitle of a stopped run's report") {
  RunResult run = readbench::test::synthetic_run();
  CHECK(plot_svg(readbench::test::report_of(run)).find("incomplete") == std::string::npos);
  run.signal = SIGTERM;
  CHECK(plot_svg(readbench::test::report_of(run)).find("incomplete: stopped by SIGTERM") !=
        std::string::npos);
}
