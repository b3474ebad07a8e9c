// `readbench fleet`'s rule on hand-built reports: the median, MAD and robust z in closed form,
// verdicts at the thresholds, groups that must not mix, small groups and their reference, and
// reports that are named rather than judged.
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/statistics.hpp"
#include "report/fleet.hpp"
#include "report/openmetrics.hpp"

using namespace readbench;

namespace {

// One host's report: a GPU of `model` on cuda:0, its fused read at `marginal_s` per token
// reaching `fraction` of a `ceiling_gbps` read ceiling.
Report host(const std::string& name, double marginal_s, double ceiling_gbps = 4000,
            double fraction = 0.9, const std::string& model = "NVIDIA H200") {
  Report r;
  r.source = name + ".json";
  r.hostname = name;
  r.machine = name;
  r.version = "0.1.0";
  r.config = "bf16, B=1 Hq=32 Hkv=8 D=128 S=16, cold cache";
  r.shape = {"bf16", "bf16", 1, 32, 8, 128, 16};
  r.gpus.push_back({0, model});
  r.read_ceilings_gbps["cuda:0"] = ceiling_gbps;
  ReportResult res;
  res.backend = "cuda:0";
  res.path = "fused";
  res.points.push_back({1024, 1e-6, 1e-6, 1e-6, 1, 1});
  ReadFit fit;
  fit.affine.marginal_s = marginal_s;
  fit.affine.fixed_s = 5e-6;
  fit.power.exponent = 0.98;
  fit.ceiling_fraction = fraction;
  res.fit = fit;
  r.results.push_back(res);
  return r;
}

std::vector<Report> fleet_of(int n, double marginal_s = 1e-9) {
  std::vector<Report> out;
  for (int i = 0; i < n; ++i)
    out.push_back(host(std::string("node") + std::to_string(i), marginal_s));
  return out;
}

const FleetDevice& device(const FleetJudgement& j, const std::string& host) {
  for (const FleetDevice& d : j.devices)
    if (d.host == host) return d;
  FAIL("no device of host " << host);
  return j.devices.front();
}

}  // namespace

TEST_CASE("the median of an odd count is its middle value, of an even count the mean of two") {
  CHECK(median_of({3, 1, 2}) == 2);
  CHECK(median_of({4, 1, 3, 2}) == 2.5);
  CHECK(median_of({7}) == 7);
}

TEST_CASE("the MAD is the median distance from the median, and z scales it by 0.6745") {
  const std::vector<double> v = {1, 2, 3, 4, 100};
  const double m = median_of(v);
  CHECK(m == 3);
  CHECK(mad_of(v, m) == 1);  // distances 2, 1, 0, 1, 97
  CHECK(robust_z(100, m, 1) == doctest::Approx(0.6745 * 97));
  CHECK(robust_z(2, m, 1) == doctest::Approx(-0.6745));
}

TEST_CASE("a group without spread gives an infinite z to any other value and 0 to the median") {
  CHECK(std::isinf(robust_z(2, 1, 0)));
  CHECK(robust_z(2, 1, 0) > 0);
  CHECK(robust_z(0, 1, 0) < 0);
  CHECK(robust_z(1, 1, 0) == 0);
}

TEST_CASE("a device 7.5% slower than its group fails, 5% warns, and the rest are ok") {
  std::vector<Report> reports = fleet_of(8);
  reports[0] = host("slow", 1.075e-9);
  reports[1] = host("slower", 1.05e-9);
  const FleetJudgement j = judge_fleet(reports, {}, std::nullopt, {});
  REQUIRE(j.devices.size() == 8);
  CHECK(j.devices[0].host == "slow");  // worst first
  CHECK(j.devices[0].verdict == FleetVerdict::fail);
  CHECK(j.devices[0].marginal.deviation.value() == doctest::Approx(0.075));
  CHECK(j.devices[0].reason.find("marginal cost +7.5%") != std::string::npos);
  CHECK(device(j, "slower").verdict == FleetVerdict::warn);
  CHECK(device(j, "node5").verdict == FleetVerdict::ok);
  CHECK(j.exit_code() == 1);
}

TEST_CASE("the default thresholds: 2% is ok, 3% warns, 6.5% fails, and faster counts too") {
  const double cases[][2] = {{1.02, 0}, {1.03, 1}, {1.065, 2}, {0.97, 1}, {0.93, 2}};
  for (const auto& [factor, want] : cases) {
    std::vector<Report> reports = fleet_of(6);
    reports[0] = host("odd", factor * 1e-9);
    const FleetJudgement j = judge_fleet(reports, {}, std::nullopt, {});
    CHECK(int(device(j, "odd").verdict) == int(want));  // ok 0, warn 1, fail 2
  }
}

TEST_CASE("a deviation inside the group's own spread is not flagged, however large") {
  // Marginal costs spread 10% apart: MAD 0.1e-9 about the median 1e-9, so a device 7.5% off
  // has z 0.6745 * 0.075 / 0.1 = 0.51, under 3.5.
  std::vector<Report> reports;
  const double costs[] = {0.8, 0.9, 1.0, 1.1, 1.2, 1.075};
  for (int i = 0; i < 6; ++i)
    reports.push_back(host(std::string("n") + std::to_string(i), costs[i] * 1e-9));
  const FleetJudgement j = judge_fleet(reports, {}, std::nullopt, {});
  CHECK(device(j, "n5").verdict == FleetVerdict::ok);
  CHECK(device(j, "n5").marginal.z.value() < 3.5);
  // Its reason says the deviation and why it is not flagged, not "within 2.5%".
  CHECK(device(j, "n5").reason.find("marginal cost +3.6% (z +0.") == 0);  // median 1.0375
  CHECK(device(j, "n5").reason.find("within the group's own spread") != std::string::npos);
}

TEST_CASE("a lower read ceiling fails a device whose marginal cost is in line") {
  std::vector<Report> reports = fleet_of(6);
  reports[2] = host("badmem", 1e-9, 3600);  // 10% below 4000
  const FleetJudgement j = judge_fleet(reports, {}, std::nullopt, {});
  const FleetDevice& d = device(j, "badmem");
  CHECK(d.verdict == FleetVerdict::fail);
  CHECK(d.reason.find("read ceiling -10.0%") != std::string::npos);
  // A higher ceiling is no fault.
  reports[2] = host("fastmem", 1e-9, 4400);
  CHECK(device(judge_fleet(reports, {}, std::nullopt, {}), "fastmem").verdict == FleetVerdict::ok);
}

TEST_CASE("devices of different models are never mixed, and the difference is named") {
  std::vector<Report> reports = fleet_of(6);
  for (int i = 0; i < 5; ++i)
    reports.push_back(host(std::string("a") + std::to_string(i), 2e-9, 2000, 0.9, "NVIDIA A100"));
  const FleetJudgement j = judge_fleet(reports, {}, std::nullopt, {});
  REQUIRE(j.groups.size() == 2);
  CHECK(j.groups[0].members == 6);
  CHECK(j.groups[1].difference.find("model 'NVIDIA A100' vs 'NVIDIA H200'") != std::string::npos);
  for (const FleetDevice& d : j.devices) CHECK(d.verdict == FleetVerdict::ok);
  CHECK(j.exit_code() == 0);
}

TEST_CASE("a different readbench version makes a group of its own") {
  std::vector<Report> reports = fleet_of(5);
  reports.push_back(host("newer", 1e-9));
  reports.back().version = "0.2.0";
  const FleetJudgement j = judge_fleet(reports, {}, std::nullopt, {});
  REQUIRE(j.groups.size() == 2);
  CHECK(j.groups[1].difference == "version '0.2.0' vs '0.1.0'");
  CHECK(device(j, "newer").verdict == FleetVerdict::unjudged);
  CHECK(j.exit_code() == 4);
}

TEST_CASE("a group smaller than the minimum is judged against the reference, without z") {
  std::vector<Report> reports = fleet_of(2);
  reports.push_back(host("slow", 1.08e-9));
  const Report reference = host("ref", 1e-9);
  const FleetJudgement j = judge_fleet(reports, {}, reference, {});
  CHECK(j.groups[0].basis.find("reference ref.json") == 0);
  const FleetDevice& d = device(j, "slow");
  CHECK(d.verdict == FleetVerdict::fail);
  CHECK(d.marginal.deviation.value() == doctest::Approx(0.08));
  CHECK_FALSE(d.marginal.z.has_value());
  CHECK(device(j, "node0").verdict == FleetVerdict::ok);
}

TEST_CASE("a group smaller than the minimum without a reference cannot be judged") {
  const FleetJudgement j = judge_fleet(fleet_of(3), {}, std::nullopt, {});
  for (const FleetDevice& d : j.devices) {
    CHECK(d.verdict == FleetVerdict::unjudged);
    CHECK(d.reason.find("fewer than --min-group 5") != std::string::npos);
  }
  CHECK(j.exit_code() == 4);
  FleetOptions two;
  two.min_group = 2;
  CHECK(judge_fleet(fleet_of(3), {}, std::nullopt, two).exit_code() == 0);
}

TEST_CASE("failed, contended, incomplete and duplicate reports are named, not judged") {
  std::vector<Report> reports = fleet_of(5);
  Report contended = host("busy", 2e-9);
  contended.quality = QualityVerdict::contended;
  contended.quality_reasons = {"run queue wait 12%"};
  Report stopped = host("stopped", 2e-9);
  stopped.complete = false;
  stopped.signal = "SIGTERM";
  Report failed = host("broken", 2e-9);
  failed.results[0].status = Status::failed;
  failed.results[0].reason = "check failed";
  Report again = host("node1", 2e-9);
  again.source = "node1-rerun.json";
  reports.insert(reports.end(), {contended, stopped, failed, again});
  const FleetJudgement j =
      judge_fleet(reports, {{"gone.json", "", "unreadable: no such file"}}, std::nullopt, {});
  CHECK(j.devices.size() == 5);
  REQUIRE(j.skipped.size() == 5);
  CHECK(j.skipped[0].source == "gone.json");
  CHECK(j.skipped[1].reason == "contended: run queue wait 12%");
  CHECK(j.skipped[2].reason == "incomplete: stopped by SIGTERM");
  CHECK(j.skipped[3].reason == "failed: check failed");
  CHECK(j.skipped[4].reason.find("duplicate") == 0);
  const std::string md = fleet_markdown(j, {});
  CHECK(md.find("gone.json: unreadable") != std::string::npos);
  CHECK(md.find("busy.json: contended") != std::string::npos);
}

TEST_CASE("with contended reports allowed, a contended device is judged and says so") {
  std::vector<Report> reports = fleet_of(5);
  Report slow = host("busy", 1.5e-9);
  slow.quality = QualityVerdict::contended;
  slow.quality_reasons = {"run queue wait 12%"};
  reports.push_back(slow);
  FleetOptions o;
  o.judge_contended = true;
  const FleetJudgement j = judge_fleet(reports, {}, std::nullopt, o);
  CHECK(j.skipped.empty());
  REQUIRE(j.devices.size() == 6);
  const FleetDevice& d = device(j, "busy");
  CHECK(d.verdict == FleetVerdict::fail);
  CHECK(d.reason.find("judged as asked though its run was contended: run queue wait 12%") !=
        std::string::npos);
  CHECK(device(j, "node1").reason.find("contended") == std::string::npos);
}

TEST_CASE("the JSON verdict carries every device, the groups and the skipped") {
  std::vector<Report> reports = fleet_of(6);
  reports[0] = host("slow", 1.1e-9);
  const nlohmann::ordered_json j = fleet_to_json(judge_fleet(reports, {}, std::nullopt, {}), {});
  CHECK(j["verdict"] == "fail");
  CHECK(j["devices"].size() == 6);
  CHECK(j["devices"][0]["host"] == "slow");
  CHECK(j["devices"][0]["marginal_s"]["deviation"].get<double>() == doctest::Approx(0.1));
  // Five equal others: MAD 0, so the slow one's z is infinite, written as a word.
  CHECK(j["devices"][0]["marginal_s"]["z"] == "+inf");
}

TEST_CASE("OpenMetrics text types every family, names units and ends with EOF") {
  Report r = host("node\"1", 1e-9);
  const std::string text = openmetrics_text(r);
  CHECK(text.find("# TYPE readbench_marginal_cost_seconds gauge\n") != std::string::npos);
  CHECK(text.find("# UNIT readbench_read_ceiling_bytes_per_second bytes_per_second\n") !=
        std::string::npos);
  CHECK(text.find("readbench_read_ceiling_bytes_per_second{host=\"node\\\"1\"") !=
        std::string::npos);
  CHECK(text.find(" 4e+12\n") != std::string::npos);  // 4000 GB/s in B/s, shortest form
  CHECK(text.substr(text.size() - 6) == "# EOF\n");
  // One series per label set: the same host twice gives one sample.
  const std::string twice = openmetrics_text({&r, &r});
  CHECK(twice == text);
}
