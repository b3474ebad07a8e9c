#include "cli/options.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "backends/cpu/cpu_budget.hpp"
#include "core/errors.hpp"
#include "measure/results.hpp"

namespace readbench::cli {

namespace {

// A value as it came, quoted, so an empty or space-padded one is visible in the message.
std::string quoted(const std::string& text) {
  return "'" + text + "'";
}

}  // namespace

std::string integer_problem(const std::string& text, std::int64_t lo, std::int64_t hi) {
  const std::string range =
      "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
  if (text.empty()) return "the value is empty: expected " + range;
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range)
    return quoted(text) + " does not fit: expected " + range;
  if (ec != std::errc() || end != text.data() + text.size())
    return quoted(text) + " is not " + range;
  if (v < lo || v > hi) return quoted(text) + " is out of range: expected " + range;
  return "";
}

std::string seed_problem(const std::string& text) {
  const std::string range =
      "a whole number from 0 to " + std::to_string(std::numeric_limits<std::uint64_t>::max());
  if (text.empty()) return "the value is empty: expected " + range;
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range)
    return quoted(text) + " does not fit in 64 bits: expected " + range;
  if (ec != std::errc() || end != text.data() + text.size())
    return quoted(text) + " is not " + range;
  return "";
}

std::string number_problem(const std::string& text, NumberBound bound) {
  const char* expected = bound == NumberBound::positive       ? "a finite number > 0"
                         : bound == NumberBound::non_negative ? "a finite number >= 0"
                                                              : "a finite number";
  if (text.empty()) return std::string("the value is empty: expected ") + expected;
  // strtod also skips leading blanks and reads hex, "inf" and "nan": only a decimal number's
  // characters are let through to it, and it must read the whole text.
  if (text.find_first_not_of("0123456789+-.eE") != std::string::npos)
    return quoted(text) + " is not " + expected;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);  // 1e309 gives inf
  if (end != text.c_str() + text.size()) return quoted(text) + " is not " + expected;
  if (!std::isfinite(v)) return quoted(text) + " does not fit a double: expected " + expected;
  if (bound == NumberBound::positive && !(v > 0))
    return quoted(text) + " is out of range: expected " + expected;
  if (bound == NumberBound::non_negative && !(v >= 0))
    return quoted(text) + " is out of range: expected " + expected;
  return "";
}

CLI::Validator integer_in(std::int64_t lo, std::int64_t hi) {
  return CLI::Validator([lo, hi](std::string& s) { return integer_problem(s, lo, hi); },
                        "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

CLI::Validator seed_value() {
  return CLI::Validator([](std::string& s) { return seed_problem(s); }, "64-bit");
}

CLI::Validator finite_number(NumberBound bound) {
  return CLI::Validator([bound](std::string& s) { return number_problem(s, bound); },
                        bound == NumberBound::positive       ? "finite > 0"
                        : bound == NumberBound::non_negative ? "finite >= 0"
                                                             : "finite");
}

int max_threads() {
  return 4 * cpu::available_cpus().cpus;
}

CLI::Validator thread_count() {
  // The CPU budget is read only when --threads is given.
  return CLI::Validator(
      [](std::string& s) {
        const int cpus = cpu::available_cpus().cpus;
        std::string why = integer_problem(s, 0, 4 * std::int64_t(cpus));
        if (!why.empty())
          why += " (0: every CPU; at most 4x the " + std::to_string(cpus) +
                 " CPUs this process may use)";
        return why;
      },
      "[0, 4 x CPUs]");
}

void add_threads_option(CLI::App* app, int& threads) {
  app->add_option("--threads", threads,
                  "CPU threads (0: every CPU this process may use, its affinity mask within its "
                  "cgroup CPU quota)")
      ->check(thread_count())
      ->capture_default_str();
}

std::optional<double> parse_fit_from(const std::string& text) {
  if (text == "auto") return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) ||
      v < 0)
    throw InputError("--fit-from must be auto or a finite length >= 0, got '" + text + "'");
  return v;
}

std::optional<int> parse_rounds(const std::string& text) {
  if (text == "auto") return std::nullopt;
  int v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < 1 ||
      v > kMaxRounds)
    throw InputError("--rounds must be auto or a whole number from 1 to " +
                     std::to_string(kMaxRounds) + ", got '" + text + "'");
  return v;
}

CLI::Validator output_path() {
  return CLI::Validator(
      [](std::string& s) {
        return s.empty() ? std::string("an output path is empty") : std::string();
      },
      "FILE");
}

void add_shape_options(CLI::App* app, Shape& s) {
  app->add_option("-b,--batch", s.batch, "Sequences B")
      ->check(integer_in(1, kMaxBatch))
      ->capture_default_str();
  app->add_option("--q-heads", s.q_heads, "Query heads Hq")
      ->check(integer_in(1, kMaxHeads))
      ->capture_default_str();
  app->add_option("--kv-heads", s.kv_heads, "KV heads Hkv (Hq must be a multiple)")
      ->check(integer_in(1, kMaxHeads))
      ->capture_default_str();
  app->add_option("--head-dim", s.head_dim, "Head dimension D")
      ->check(integer_in(1, kMaxHeadDim))
      ->capture_default_str();
  app->add_option("--block-size", s.block_size, "Tokens per cache block S")
      ->check(integer_in(1, kMaxBlockSize))
      ->capture_default_str();
}

void add_plugin_options(CLI::App* app, std::vector<std::string>& files, double& timeout_s,
                        const std::string& plugin_help) {
  app->add_option("--plugin", files, plugin_help);
  app->add_option("--plugin-timeout", timeout_s,
                  "Seconds loading a plugin, and then its checks, may take in the separate "
                  "process that runs them first, before it is called hung (refused, or left out)")
      ->check(finite_number(NumberBound::positive))
      ->capture_default_str();
}

std::vector<std::string> comma_items(const std::string& text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = text.find(',', pos);
    out.push_back(text.substr(pos, comma == std::string::npos ? comma : comma - pos));
    if (comma == std::string::npos) return out;
    pos = comma + 1;
  }
}

}  // namespace readbench::cli
