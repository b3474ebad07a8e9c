// The bounds of every numeric option (src/cli/options.*): checked on the text, before CLI11
// converts it, so nothing wraps, saturates or reads as 0; and the size limit of any input read
// (src/cli/read_input.*).
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "backends/cpu/cpu_budget.hpp"
#include "cli/options.hpp"
#include "cli/read_input.hpp"
#include "test_support.hpp"

using namespace readbench;
using readbench::test::TempDir;
using namespace readbench::cli;
using readbench::test::error_message;

namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE(
    "integers: empty, not whole, past 64 bits and out of range are refused, naming the value") {
  CHECK(integer_problem("8", 1, 16).empty());
  CHECK(integer_problem("1", 1, 16).empty());
  CHECK(integer_problem("16", 1, 16).empty());
  CHECK(has(integer_problem("", 1, 16), "empty"));
  CHECK(has(integer_problem("17", 1, 16), "'17' is out of range"));
  CHECK(has(integer_problem("0", 1, 16), "'0' is out of range"));
  CHECK(has(integer_problem("-3", 1, 16), "'-3' is out of range"));
  CHECK(has(integer_problem("2.5", 1, 16), "'2.5' is not a whole number from 1 to 16"));
  CHECK(has(integer_problem("8x", 1, 16), "'8x' is not"));
  CHECK(has(integer_problem(" 8", 1, 16), "' 8' is not"));
  CHECK(has(integer_problem("99999999999999999999", 0, 1000), "does not fit"));
  // int options: a value past int is out of range, never narrowed.
  CHECK(has(integer_problem("4294967297", 1, 1 << 20), "out of range"));
}

TEST_CASE("a seed takes the whole unsigned 64-bit range and nothing past it") {
  CHECK(seed_problem("0").empty());
  CHECK(seed_problem("18446744073709551615").empty());
  CHECK(has(seed_problem("18446744073709551616"), "does not fit in 64 bits"));
  CHECK(has(seed_problem("99999999999999999999"), "'99999999999999999999' does not fit"));
  CHECK(has(seed_problem("-1"), "'-1' is not a whole number"));
  CHECK(has(seed_problem(""), "empty"));
  CHECK(has(seed_problem("1e3"), "is not"));
}

TEST_CASE("numbers: inf, nan, 1e309 and empty are refused and bounds are checked") {
  for (const char* ok : {"0.5", "1e-3", "2", ".5", "1e308"})
    CHECK(number_problem(ok, NumberBound::positive).empty());
  for (const char* bad : {"inf", "-inf", "nan", "infinity", "1e309", "-1e309"})
    CHECK_MESSAGE(!number_problem(bad, NumberBound::finite).empty(), bad);
  CHECK(has(number_problem("1e309", NumberBound::positive), "'1e309' does not fit a double"));
  CHECK(has(number_problem("nan", NumberBound::non_negative), "'nan' is not a finite number >= 0"));
  CHECK(has(number_problem("", NumberBound::non_negative), "empty"));
  CHECK(has(number_problem("0", NumberBound::positive), "'0' is out of range"));
  CHECK(has(number_problem("1e-400", NumberBound::positive), "out of range"));  // underflows to 0
  CHECK(number_problem("0", NumberBound::non_negative).empty());
  CHECK(has(number_problem("-0.1", NumberBound::non_negative), "out of range"));
  CHECK(number_problem("-0.1", NumberBound::finite).empty());
  CHECK(has(number_problem("0x10", NumberBound::positive), "is not"));
  CHECK(has(number_problem(" 1", NumberBound::positive), "is not"));
  CHECK(has(number_problem("1.5s", NumberBound::positive), "'1.5s' is not"));
}

TEST_CASE("--threads goes from 0 to 4x the CPUs this process may use") {
  const int cpus = cpu::available_cpus().cpus;
  CHECK(max_threads() == 4 * cpus);
  CLI::Validator v = thread_count();
  std::string text = "0";
  CHECK(v(text).empty());
  text = std::to_string(4 * cpus);
  CHECK(v(text).empty());
  text = std::to_string(4 * cpus + 1);
  CHECK(has(v(text), "out of range"));
  CHECK(has(v(text), std::to_string(cpus) + " CPUs"));
  text = "100000";
  CHECK(has(v(text), "'100000' is out of range"));
}

TEST_CASE("read_input stops at its limit with one message naming the file") {
  TempDir dir;
  const auto small = dir.path / "small.csv";
  std::ofstream(small) << "length,seconds\n16,1e-6\n";
  CHECK(read_input(small.string(), 64) == "length,seconds\n16,1e-6\n");
  const std::string msg = error_message([&] { read_input(small.string(), 10); });
  CHECK(has(msg, "'" + small.string() + "'"));
  CHECK(has(msg, "more than 10 bytes"));

  // A sparse file past the default limit: refused after reading the limit, not all of it.
  const auto big = dir.path / "big.json";
  { std::ofstream(big) << "["; }
  std::filesystem::resize_file(big, kMaxInputBytes + 4096);
  CHECK(has(error_message([&] { read_input(big.string()); }), "more than 67108864 bytes"));
}

TEST_CASE("read_input stops an endless FIFO at its limit") {
  TempDir dir;
  const auto fifo = dir.path / "endless";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // The writer stops when the reader closes the FIFO (EPIPE; SIGPIPE is ignored here).
  std::thread writer([&] {
    std::signal(SIGPIPE, SIG_IGN);
    std::ofstream out(fifo, std::ios::binary);
    const std::string block(4096, 'x');
    while (out.write(block.data(), std::streamsize(block.size()))) {
    }
  });
  CHECK(has(error_message([&] { read_input(fifo.string(), std::size_t(1) << 20); }),
            "more than 1048576 bytes"));
  writer.join();
}
