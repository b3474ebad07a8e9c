// The enums' word tables: every value has its word, every word parses back to its value, and
// the messages list the words the parsers accept.
#include <doctest/doctest.h>

#include <string>

#include "backends/cpu/cpu_budget.hpp"
#include "core/dtype.hpp"
#include "core/enum_names.hpp"
#include "core/power_law_fit.hpp"
#include "core/read_path.hpp"
#include "core/report_words.hpp"
#include "measure/backend_word.hpp"
#include "report/check.hpp"
#include "test_support.hpp"

using namespace readbench;
using readbench::test::error_message;

namespace {

// Every value from the first to `last` has a word of its own, and the table parses it back.
template <class E, std::size_t N>
void check_table(const Named<E> (&table)[N], E last) {
  CHECK(std::size_t(last) + 1 == N);
  for (std::size_t i = 0; i < N; ++i) {
    CAPTURE(table[i].name);
    CHECK(std::size_t(table[i].value) == i);  // in declaration order, none missing
    CHECK(find_named(table, table[i].name) == table[i].value);
    CHECK(name_in(table, table[i].value) == table[i].name);
  }
  CHECK_FALSE(find_named(table, "").has_value());
}

}  // namespace

TEST_CASE("every report word table is complete and parses back") {
  check_table(kStatusNames, Status::failed);
  check_table(kStatisticNames, Statistic::median);
  check_table(kGridStopNames, GridStop::interrupted);
  check_table(kQualityVerdictNames, QualityVerdict::contended);
  check_table(kPathNames, Path::Kind::fused);
  check_table(kCacheStateNames, CacheState::hot);
}

TEST_CASE("every enum prints its word") {
  CHECK(to_string(DType::f32) == "f32");
  CHECK(to_string(DType::bf16) == "bf16");
  CHECK(to_string(Regime::superlinear) == "superlinear");
  CHECK(to_string(Verdict::regression) == "regression");
  CHECK(to_string(cpu::CpuLimit::quota) == "quota");
  CHECK(to_string(BackendChoice::auto_) == "auto");
  CHECK(to_string(GridStop::explicit_lengths) == "explicit");
  for (DType t : {DType::f32, DType::f16, DType::bf16}) CHECK(parse_dtype(to_string(t)) == t);
  for (BackendChoice b :
       {BackendChoice::cpu, BackendChoice::cuda, BackendChoice::all, BackendChoice::auto_})
    CHECK(parse_backend_choice(to_string(b)) == b);
}

TEST_CASE("a path prints as it parses: the built-in two and plugin:NAME") {
  for (const Path& p : {Path::gather, Path::fused, Path::of_plugin("x.1-y_z")})
    CHECK(parse_path(to_string(p)) == p);
  CHECK(to_string(Path::of_plugin("naive")) == "plugin:naive");
  CHECK(parse_path("plugin:naive").is_plugin());
  CHECK(Path::gather < Path::fused);
  CHECK(Path::fused < Path::of_plugin("a"));
  CHECK(Path::of_plugin("a") != Path::of_plugin("b"));
}

TEST_CASE("a parser's error lists the words it accepts") {
  CHECK(names_of(kStatusNames) == "ok, unavailable or failed");
  CHECK(error_message([] { parse_statistic("mean"); }) ==
        "unknown statistic 'mean' (expected min or median)");
  CHECK(error_message([] { parse_dtype("fp8"); }) ==
        "unknown dtype 'fp8' (expected f32, f16, bf16 or fp8_e4m3)");
  CHECK(error_message([] { parse_backend_choice("tpu"); }) ==
        "unknown backend 'tpu' (expected cpu, cuda, all or auto)");
  CHECK(error_message([] { parse_path("both"); }) ==
        "unknown path 'both' (expected gather, fused or plugin:NAME or all)");
  CHECK(error_message([] { parse_path("plugin:"); }) ==
        "unknown path 'plugin:' (expected gather, fused or plugin:NAME or all)");
  CHECK(error_message([] { parse_cache_state("warm"); }) ==
        "unknown cache state 'warm' (expected cold or hot)");
}
