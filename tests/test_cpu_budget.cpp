// The CPU budget: cgroup quota text parsed, the cgroup tree walked, and the thread count that
// results. Files are written under a temporary directory standing in for /proc and
// /sys/fs/cgroup.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "backends/cpu/cpu_budget.hpp"
#include "test_support.hpp"

using namespace readbench::cpu;
using readbench::test::error_message;
namespace fs = std::filesystem;

namespace {

// A fresh directory, removed with everything in it at the end of the test.
struct TempTree : readbench::test::TempDir {
  void write(const fs::path& relative, const std::string& text) const {
    fs::create_directories((path / relative).parent_path());
    std::ofstream(path / relative) << text;
  }
};

}  // namespace

// --- parse_cpu_max (cgroup v2) ----------------------------------------------------------

TEST_CASE("cpu.max of max means no quota") {
  CHECK_FALSE(parse_cpu_max("max 100000\n").has_value());
}

TEST_CASE("cpu.max gives quota over period in CPUs") {
  CHECK(parse_cpu_max("150000 100000\n") == 1.5);
  CHECK(parse_cpu_max("50000 100000") == 0.5);
  CHECK(parse_cpu_max("400000 100000") == 4.0);
}

TEST_CASE("malformed cpu.max is a format error naming the text") {
  for (const char* bad : {"", "max", "100000", "abc 100000", "150000 0", "150000 -1", "0 100000",
                          "1.5 100000", "150000 100000 7"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_cpu_max(bad), CgroupFormatError);
  }
  CHECK(error_message<CgroupFormatError>([] { parse_cpu_max("abc 100000"); }).find("abc") !=
        std::string::npos);
}

// --- parse_cfs_quota (cgroup v1) --------------------------------------------------------

TEST_CASE("a cfs quota of -1 means no quota") {
  CHECK_FALSE(parse_cfs_quota("-1\n", "100000\n").has_value());
}

TEST_CASE("a cfs quota gives quota over period in CPUs") {
  CHECK(parse_cfs_quota("150000\n", "100000\n") == 1.5);
  CHECK(parse_cfs_quota("50000", "100000") == 0.5);
}

TEST_CASE("a malformed cfs quota or period is a format error") {
  CHECK_THROWS_AS(parse_cfs_quota("x", "100000"), CgroupFormatError);
  CHECK_THROWS_AS(parse_cfs_quota("-2", "100000"), CgroupFormatError);
  CHECK_THROWS_AS(parse_cfs_quota("150000", "0"), CgroupFormatError);
  CHECK_THROWS_AS(parse_cfs_quota("150000", ""), CgroupFormatError);
}

// --- cgroup_path ------------------------------------------------------------------------

TEST_CASE("the v2 entry and a v1 controller are found in /proc/self/cgroup") {
  const std::string text = "4:memory:/a\n3:cpu,cpuacct:/docker/abc\n0::/user.slice/x.scope\n";
  CHECK(cgroup_path(text, "") == "/user.slice/x.scope");
  CHECK(cgroup_path(text, "cpu") == "/docker/abc");
  CHECK(cgroup_path(text, "cpuacct") == "/docker/abc");
  CHECK_FALSE(cgroup_path(text, "pids").has_value());
  CHECK_FALSE(cgroup_path("3:cpu:/a\n", "").has_value());
  CHECK_FALSE(cgroup_path("garbage", "cpu").has_value());
}

// --- budget_of --------------------------------------------------------------------------

TEST_CASE("without a quota the affinity mask sets the CPUs") {
  const CpuBudget b = budget_of(8, std::nullopt);
  CHECK(b.cpus == 8);
  CHECK(b.limited_by == CpuLimit::affinity);
}

TEST_CASE("a quota below the affinity count sets the CPUs, rounded down") {
  const CpuBudget b = budget_of(8, 2.5);
  CHECK(b.cpus == 2);
  CHECK(b.limited_by == CpuLimit::quota);
  CHECK(budget_of(8, 1.5).cpus == 1);
}

TEST_CASE("a quota under one CPU still gives one thread") {
  const CpuBudget b = budget_of(8, 0.5);
  CHECK(b.cpus == 1);
  CHECK(b.limited_by == CpuLimit::quota);
}

TEST_CASE("a quota above the affinity count leaves the affinity count") {
  const CpuBudget b = budget_of(2, 4.0);
  CHECK(b.cpus == 2);
  CHECK(b.limited_by == CpuLimit::affinity);
  CHECK(budget_of(2, 2.0).limited_by == CpuLimit::affinity);  // equal: the mask already says it
}

TEST_CASE("an empty affinity count still gives one CPU") {
  CHECK(budget_of(0, std::nullopt).cpus == 1);
}

// --- read_cgroup_quota ------------------------------------------------------------------

TEST_CASE("missing cgroup files mean no quota") {
  TempTree t;
  CHECK_FALSE(read_cgroup_quota(t.path / "no-such-file", t.path).has_value());
  t.write("proc", "0::/a/b\n");
  CHECK_FALSE(read_cgroup_quota(t.path / "proc", t.path / "fs").has_value());
}

TEST_CASE("the tightest cgroup v2 quota on the path up to the root is taken") {
  TempTree t;
  t.write("proc", "0::/a/b\n");
  t.write("fs/cpu.max", "max 100000\n");
  t.write("fs/a/cpu.max", "150000 100000\n");
  t.write("fs/a/b/cpu.max", "300000 100000\n");
  const auto q = read_cgroup_quota(t.path / "proc", t.path / "fs");
  REQUIRE(q.has_value());
  CHECK(q->first == 1.5);
  CHECK(q->second.find("a/cpu.max") != std::string::npos);
}

TEST_CASE("a malformed cgroup file is skipped, not trusted") {
  TempTree t;
  t.write("proc", "0::/a\n");
  t.write("fs/a/cpu.max", "garbage\n");
  CHECK_FALSE(read_cgroup_quota(t.path / "proc", t.path / "fs").has_value());
}

TEST_CASE("cgroup v1 cfs files are read where there is no v2 quota") {
  TempTree t;
  t.write("proc", "3:cpu,cpuacct:/docker/abc\n0::/\n");
  t.write("fs/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "50000\n");
  t.write("fs/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
  t.write("fs/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
  t.write("fs/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
  const auto q = read_cgroup_quota(t.path / "proc", t.path / "fs");
  REQUIRE(q.has_value());
  CHECK(q->first == 0.5);
}

// --- this process -----------------------------------------------------------------------

TEST_CASE("this process has at least one CPU, within its affinity mask") {
  const CpuBudget b = available_cpus();
  CHECK(b.cpus >= 1);
  CHECK(b.affinity_cpus >= 1);
  CHECK(b.cpus <= b.affinity_cpus);
  CHECK(affinity_cpu_count() == b.affinity_cpus);
}
