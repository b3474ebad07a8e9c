// Development driver for the CUDA backend on the H200 (docs/cuda.md): verifies, then
// times kernel variants through the real Backend (prepare / run_for_check / time_calls, cold
// L2), and runs small cases for compute-sanitizer. Not part of readbench; built by
// tools/h200/build.sh with READBENCH_BENCH_VARIANTS. Final numbers come from `readbench run`.
//
//   cuda_variants sanitize [SPEC]   small cases of both kernels, both paths (exit 1 on a failure)
//   cuda_variants bench [CSV]       the target shapes and the variants; CSV rows to CSV
//   cuda_variants profile           one call of each path at B=32 L=16384 (for ncu)
//   cuda_variants b1 CSV SPEC...    the fused read's short-call shapes (B=1 over L, bf16 and
//                                   e4m3 K/V; B=32 L=1024; D=64) under each tuning SPEC
//                                   ("" = the defaults)
//   cuda_variants timeline OUTDIR   where a fused call's time goes: each block's global-timer
//                                   stamps over a replay of a few calls
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "backends/cuda/decode_launch.hpp"
#include "backends/cuda/variants/tunable_backend.hpp"
#include "backends/cuda/variants/tuning_variants.hpp"
#include "core/reference.hpp"

namespace rb = readbench;

namespace {

rb::Workload make(rb::DType t, int b, int hq, int hkv, int d, int s, std::int64_t l, int replicas) {
  rb::Workload w;
  w.shape = {b, hq, hkv, d, s};
  w.dtype = t;
  w.length = l;
  w.replicas = replicas;
  w.seed = 1234 + std::uint64_t(l) * 7 + std::uint64_t(b);
  return w;
}

std::string name_of(const rb::Workload& w) {
  std::ostringstream os;
  os << rb::to_string(w.dtype) << "_B" << w.shape.batch << "_Hq" << w.shape.q_heads << "_Hkv"
     << w.shape.kv_heads << "_D" << w.shape.head_dim << "_S" << w.shape.block_size << "_L"
     << w.length;
  return os.str();
}

struct Stat {
  double min = 0, median = 0;
  int n = 0;
};

// Seconds per call: `n` samples of `calls` calls after 3 warm-ups.
Stat sample(rb::Backend& be, rb::Path p, int calls, rb::CacheState cache, int n) {
  for (int i = 0; i < 3; ++i) be.time_calls(p, calls, cache);
  std::vector<double> t;
  for (int i = 0; i < n; ++i) t.push_back(be.time_calls(p, calls, cache) / calls);
  std::sort(t.begin(), t.end());
  return {t.front(), t[t.size() / 2], n};
}

// The defaults with `spec` ("key=value,...") applied.
rb::cuda::Tuning tuning_of(const char* spec) {
  rb::cuda::Tuning t;
  if (spec != nullptr) rb::cuda::apply_tuning(t, spec);
  return t;
}

int sanitize(const char* spec) {
  auto be = rb::cuda::make_tunable_cuda_backend(0, tuning_of(spec));
  const std::vector<rb::Workload> cases = {
      make(rb::DType::bf16, 3, 32, 8, 128, 16, 1000, 2),  // mma, split history (B*Hkv small)
      make(rb::DType::bf16, 64, 32, 8, 128, 16, 100, 1),  // mma, unsplit
      make(rb::DType::f32, 3, 32, 8, 128, 16, 1000, 1),   // simt, split
      make(rb::DType::f16, 2, 8, 8, 64, 5, 77, 1),        // mma D=64, odd block, G=1
      make(rb::DType::f32, 2, 32, 2, 256, 8, 300, 1),     // simt D=256, G=16 (two head tiles)
      make(rb::DType::bf16, 1, 32, 8, 128, 16, 4096, 2),  // short splits: eight warps by default
      make(rb::DType::bf16, 1, 8, 1, 128, 16, 20000, 2),  // 79 splits: a merge staged in batches
  };
  int failures = 0;
  for (const auto& w : cases) {
    rb::HostWorkload h = rb::make_host_workload(w);
    const auto ref = rb::reference_attention(h, 0);
    be->prepare(std::move(h));
    for (const rb::Path p : {rb::Path::gather, rb::Path::fused}) {
      const double err = rb::relative_error(be->run_for_check(p), ref);
      be->time_calls(p, 2, rb::CacheState::cold);
      const bool ok = err <= rb::tolerance(w.dtype);
      failures += ok ? 0 : 1;
      std::printf("sanitize %-40s %-6s err=%.3g %s\n", name_of(w).c_str(),
                  std::string(rb::to_string(p)).c_str(), err, ok ? "ok" : "FAIL");
    }
  }
  return failures == 0 ? 0 : 1;
}

struct Variant {
  std::string name;
  std::string spec;  // for rb::cuda::apply_tuning
};

int bench(const char* csv_path) {
  auto be = rb::cuda::make_tunable_cuda_backend(0, rb::cuda::Tuning{});
  const auto info = *be->gpu_info();
  std::printf(
      "device %s sm=%d l2=%lld mem=%lld sm_clock=%d MHz mem_clock=%d MHz bus=%d driver=%s "
      "runtime=%s\n",
      info.name.c_str(), info.sm_count, (long long)info.l2_bytes, (long long)info.memory_bytes,
      info.sm_clock_mhz, info.memory_clock_mhz, info.memory_bus_bits, info.driver_version.c_str(),
      info.runtime_version.c_str());
  const rb::Bandwidths bw = be->measure_bandwidths();
  std::printf("bandwidth read=%.1f GB/s copy=%.1f GB/s buffer=%lld\n", bw.read_gbps, bw.copy_gbps,
              (long long)bw.buffer_bytes);

  std::ofstream csv(csv_path);
  csv << "config,variant,path,calls,cache,samples,min_us,median_us,kv_tbps_min,kv_tbps_median,"
         "splits,err\n";
  std::printf("%-40s %-16s %-6s %5s %9s %9s %7s %7s %6s %9s\n", "config", "variant", "path",
              "calls", "min_us", "med_us", "TB/s", "TB/s_md", "splits", "err");

  const std::vector<Variant> kernel_variants = {
      {"w4", "warps=4"},
      {"w8", "warps=8"},
      {"w4s2", "warps=4,stages=2"},
      {"w4s4", "warps=4,stages=4"},
      {"w8s3", "warps=8,stages=3"},
      {"l1", "l1=1"},
      {"w4_l1", "warps=4,l1=1"},
      {"w8_l1", "warps=8,l1=1"},
      {"kv4", "kv=4"},
      {"kv4_l1", "kv=4,l1=1"},
      {"kv8", "kv=8"},
      {"kv8_l1", "kv=8,l1=1"},
      {"simt", "simt=1"},
      {"waves2", "waves=2"},
      {"minsplit128", "minsplit=128"},
      {"minsplit64", "minsplit=64"},
      {"minsplit128_l1", "minsplit=128,l1=1"},
      {"merge_kernel", "merge=1"},
      {"flushread", "flushread=1"},
  };

  struct Target {
    rb::Workload w;
    int samples;
  };
  const std::vector<Target> targets = {
      {make(rb::DType::bf16, 32, 32, 8, 128, 16, 16384, 1), 20},
      {make(rb::DType::bf16, 32, 32, 8, 128, 16, 4096, 1), 30},
      {make(rb::DType::bf16, 1, 32, 8, 128, 16, 65536, 1), 30},
      {make(rb::DType::bf16, 1, 32, 8, 128, 16, 4096, 8), 50},
      {make(rb::DType::bf16, 1, 32, 8, 128, 16, 1024, 8), 50},
      {make(rb::DType::bf16, 1, 32, 8, 128, 16, 16, 8), 50},
      {make(rb::DType::f32, 32, 32, 8, 128, 16, 4096, 1), 20},
  };

  for (const auto& target : targets) {
    const rb::Workload& w = target.w;
    rb::cuda::Tuning tuning;  // the backend's (the defaults here), for the plan's split count
    rb::HostWorkload h = rb::make_host_workload(w);
    const auto ref = rb::reference_attention(h, 0);
    be->prepare(std::move(h));
    const double kv_bytes = double(w.kv_bytes_per_call());
    const rb::cuda::DecodeProblem prob = rb::cuda::decode_problem(w);
    auto row = [&](const std::string& variant, rb::Path p, int calls, rb::CacheState cache,
                   const Stat& st, double err) {
      const int splits =
          rb::cuda::plan_decode(
              prob,
              p == rb::Path::fused ? rb::cuda::KvLayout::paged : rb::cuda::KvLayout::contiguous,
              info.sm_count, tuning)
              .splits;
      const double tb_min = kv_bytes / st.min / 1e12, tb_med = kv_bytes / st.median / 1e12;
      std::printf("%-40s %-16s %-6s %5d %9.2f %9.2f %7.3f %7.3f %6d %9.2g\n", name_of(w).c_str(),
                  variant.c_str(), std::string(rb::to_string(p)).c_str(), calls, st.min * 1e6,
                  st.median * 1e6, tb_min, tb_med, splits, err);
      csv << name_of(w) << "," << variant << "," << rb::to_string(p) << "," << calls << ","
          << rb::to_string(cache) << "," << st.n << "," << st.min * 1e6 << "," << st.median * 1e6
          << "," << tb_min << "," << tb_med << "," << splits << "," << err << "\n";
      csv.flush();
    };
    auto err_of = [&](rb::Path p) { return rb::relative_error(be->run_for_check(p), ref); };

    for (const rb::Path p : {rb::Path::fused, rb::Path::gather}) {
      const double err = err_of(p);
      if (!(err <= rb::tolerance(w.dtype))) {
        std::printf("%s %s FAILED its check (err %g); not timed\n", name_of(w).c_str(),
                    std::string(rb::to_string(p)).c_str(), err);
        continue;
      }
      row("default", p, 1, rb::CacheState::cold,
          sample(*be, p, 1, rb::CacheState::cold, target.samples), err);
      if (p == rb::Path::fused)
        row("default_hot", p, 1, rb::CacheState::hot,
            sample(*be, p, 1, rb::CacheState::hot, target.samples), err);
    }
    if (w.replicas > 1) {
      for (const bool graph : {false, true}) {  // graph replay is the default
        tuning.graph_replay = graph;
        be->retune(tuning);
        for (const rb::Path p : {rb::Path::fused, rb::Path::gather})
          row(graph ? "batch_graph" : "batch_stream", p, w.replicas, rb::CacheState::cold,
              sample(*be, p, w.replicas, rb::CacheState::cold, target.samples), 0);
      }
      tuning = rb::cuda::Tuning{};
      be->retune(tuning);
    }
    for (const auto& v : kernel_variants) {
      tuning = tuning_of(v.spec.c_str());
      be->retune(tuning);
      const double err = err_of(rb::Path::fused);
      if (!(err <= rb::tolerance(w.dtype))) {
        std::printf("%s %s FAILED its check (err %g); not timed\n", name_of(w).c_str(),
                    v.name.c_str(), err);
        continue;
      }
      row(v.name, rb::Path::fused, 1, rb::CacheState::cold,
          sample(*be, rb::Path::fused, 1, rb::CacheState::cold, target.samples), err);
    }
    be->retune(rb::cuda::Tuning{});
  }
  return 0;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::size_t(q * double(v.size() - 1) + 0.5)];
}

}  // namespace

// Where a fused call's time goes: `calls` calls replayed from a graph after a cold flush (as a
// sample runs them), each decode block stamping the global timer (DecodeParams::timeline) at its
// start, when its reads are done, when its outputs are written and fenced, when it begins a
// split merge, at its end; best of 7 replays by the events' time. Per call: block starts, reads
// done and ends (min / median / max, us after the first block of the first call started), the
// split merge's end and the merging blocks' steps. Raw stamps of the best replay go to
// OUTDIR/timeline-SHAPE.csv.
int timeline(const std::string& outdir, const char* spec) {
  auto be = rb::cuda::make_tunable_cuda_backend(0, tuning_of(spec));
  std::vector<std::pair<rb::Workload, int>> shapes;  // workload, calls
  for (const std::int64_t l : {16, 1024, 16384, 65536})
    shapes.emplace_back(make(rb::DType::bf16, 1, 32, 8, 128, 16, l, 4), 4);
  shapes.emplace_back(make(rb::DType::bf16, 1, 32, 8, 128, 16, 65536, 4), 4);
  shapes.back().first.kv_storage = rb::DType::e4m3;
  shapes.emplace_back(make(rb::DType::bf16, 32, 32, 8, 128, 16, 1024, 4), 4);
  shapes.emplace_back(make(rb::DType::bf16, 32, 32, 8, 64, 16, 4096, 4), 4);
  shapes.emplace_back(make(rb::DType::bf16, 32, 32, 8, 128, 16, 16384, 2), 2);
  for (auto& [w, calls] : shapes) {
    be->prepare(rb::make_host_workload(w));
    const std::string name = name_of(w) + (w.kv_storage ? "_kv_e4m3" : "") +
                             (spec != nullptr ? std::string("_") + spec : "");
    rb::cuda::TunableBackend::Timeline best;
    for (int rep = 0; rep < 7; ++rep) {
      auto t = be->timeline(calls);
      if (rep == 0 || t.event_s < best.event_s) best = std::move(t);
    }
    constexpr int kS = rb::cuda::kTimelineStamps;
    unsigned long long t0 = ~0ull;
    for (std::int64_t i = 0; i < best.blocks; ++i)
      t0 = std::min(t0, best.stamps[std::size_t(i) * kS]);
    std::ofstream csv(outdir + "/timeline-" + name + ".csv");
    csv << "call,block,start_us,reads_done_us,written_us,fenced_us,merge_begun_us,end_us,"
           "landed_us\n";
    std::printf("timeline %s: %d calls, %lld blocks a call, events %.2f us (%.2f us a call)\n",
                name.c_str(), calls, (long long)best.blocks, best.event_s * 1e6,
                best.event_s * 1e6 / calls);
    for (int c = 0; c < calls; ++c) {
      std::vector<double> start, reads, end, merge_end, epilogue, fence, atomic, merge, landed;
      for (std::int64_t i = 0; i < best.blocks; ++i) {
        const unsigned long long* s = &best.stamps[(std::size_t(c) * best.blocks + i) * kS];
        const auto us = [&](unsigned long long x) { return x == 0 ? 0.0 : double(x - t0) * 1e-3; };
        start.push_back(us(s[0]));
        reads.push_back(us(s[1]));
        end.push_back(us(s[5]));
        if (s[4] != 0) {  // the merging block: where its time after the reads went
          merge_end.push_back(us(s[5]));
          epilogue.push_back(us(s[2]) - us(s[1]));
          fence.push_back(us(s[3]) - us(s[2]));
          atomic.push_back(us(s[4]) - us(s[3]));
          merge.push_back(us(s[5]) - us(s[4]));
          if (s[6] != 0) landed.push_back(us(s[6]) - us(s[4]));
        }
        csv << c << "," << i;
        for (int k = 0; k < kS; ++k) csv << "," << us(s[k]);
        csv << "\n";
      }
      std::printf(
          "  call %d: start %7.2f %7.2f %7.2f | reads done %7.2f %7.2f %7.2f | end %7.2f %7.2f "
          "%7.2f | merges %zu, last %7.2f us\n",
          c, quantile(start, 0), quantile(start, 0.5), quantile(start, 1), quantile(reads, 0),
          quantile(reads, 0.5), quantile(reads, 1), quantile(end, 0), quantile(end, 0.5),
          quantile(end, 1), merge_end.size(), merge_end.empty() ? 0.0 : quantile(merge_end, 1));
      if (!merge_end.empty())
        std::printf(
            "          merging blocks, median us: epilogue %.2f, barrier (fence before run 48) "
            "%.2f, fence and atomic %.2f, merge %.2f (partials landed after %.2f)\n",
            quantile(epilogue, 0.5), quantile(fence, 0.5), quantile(atomic, 0.5),
            quantile(merge, 0.5), landed.empty() ? 0.0 : quantile(landed, 0.5));
    }
    std::fflush(stdout);
  }
  return 0;
}

// One cold call per (shape, variant), for ncu: the decode kernels of the target shapes.
int profile() {
  auto be = rb::cuda::make_tunable_cuda_backend(0, rb::cuda::Tuning{});
  const std::vector<std::pair<rb::Workload, std::vector<const char*>>> runs = {
      {make(rb::DType::bf16, 32, 32, 8, 128, 16, 16384, 1), {"", "l1=1", "kv=4", "kv=4,l1=1"}},
      {make(rb::DType::bf16, 1, 32, 8, 128, 16, 4096, 1), {"", "l1=1"}},
  };
  for (const auto& [w, specs] : runs) {
    be->prepare(rb::make_host_workload(w));
    for (const char* spec : specs) {
      be->retune(tuning_of(spec));
      std::printf("profile %s [%s]\n", name_of(w).c_str(), spec);
      std::fflush(stdout);
      be->time_calls(rb::Path::fused, 1, rb::CacheState::cold);
    }
    be->retune(rb::cuda::Tuning{});
  }
  return 0;
}

// The fused read's short-call shapes under each tuning spec, cold, graph replay of one call per
// replica, replicas up to 256 MiB but at least three (readbench's sweep batches more): B=1 at L = 16, 64, 256 and over L = 1024..131072 (x2) with
// bf16 and e4m3 K/V (the points of the fixed + marginal fit, made offline), B=32 L=1024, 4096 and
// 16384 (the headline), head dim 64 B=32 L=16384, 4096 and 1024, e4m3 K/V B=32 L=1024.
int b1(const char* csv_path, const std::vector<std::string>& specs) {
  // Calls a sample replays at least (each on a replica of its own), so that every shape's calls
  // overlap their neighbours as readbench's do (before run 56: at least one).
  constexpr double kMinCalls = 3.0;
  auto be = rb::cuda::make_tunable_cuda_backend(0, rb::cuda::Tuning{});
  const int sm_count = be->gpu_info()->sm_count;
  std::vector<rb::Workload> shapes;
  for (const std::int64_t l : {16, 64, 256})
    shapes.push_back(make(rb::DType::bf16, 1, 32, 8, 128, 16, l, 1));
  for (const rb::DType kv : {rb::DType::bf16, rb::DType::e4m3})
    for (std::int64_t l = 1024; l <= 131072; l *= 2) {
      shapes.push_back(make(rb::DType::bf16, 1, 32, 8, 128, 16, l, 1));
      shapes.back().kv_storage = kv;
    }
  shapes.push_back(make(rb::DType::bf16, 32, 32, 8, 128, 16, 1024, 1));
  shapes.push_back(make(rb::DType::bf16, 32, 32, 8, 128, 16, 4096, 1));
  shapes.push_back(make(rb::DType::bf16, 32, 32, 8, 128, 16, 16384, 1));  // the headline
  shapes.push_back(make(rb::DType::bf16, 32, 32, 8, 64, 16, 16384, 1));
  shapes.push_back(make(rb::DType::bf16, 32, 32, 8, 64, 16, 4096, 1));
  shapes.push_back(make(rb::DType::bf16, 32, 32, 8, 64, 16, 1024, 1));
  shapes.push_back(make(rb::DType::bf16, 32, 32, 8, 128, 16, 1024, 1));
  shapes.back().kv_storage = rb::DType::e4m3;
  std::ofstream csv(csv_path);
  csv << "kv,batch,head_dim,spec,length,replicas,samples,min_us,median_us,kv_tbps_min,splits,"
         "err,cluster\n";
  for (rb::Workload w : shapes) {
    const double kv_bytes = double(w.kv_bytes_per_call());
    w.replicas = int(std::clamp(std::ceil(256.0 * (1 << 20) / kv_bytes), kMinCalls, 48.0));
    rb::HostWorkload h = rb::make_host_workload(w);
    const auto ref = rb::reference_attention(h, 0);
    be->prepare(std::move(h));
    const rb::cuda::DecodeProblem prob = rb::cuda::decode_problem(w);
    const std::string kv(rb::to_string(w.kv_dtype()));
    for (const std::string& spec : specs) {
      const rb::cuda::Tuning t = tuning_of(spec.c_str());
      be->retune(t);
      const double err = rb::relative_error(be->run_for_check(rb::Path::fused), ref);
      const bool ok = err <= rb::tolerance(w.dtype);
      const rb::cuda::DecodePlan plan =
          rb::cuda::plan_decode(prob, rb::cuda::KvLayout::paged, sm_count, t);
      const int splits = plan.splits;
      const Stat st =
          ok ? sample(*be, rb::Path::fused, w.replicas, rb::CacheState::cold, 30) : Stat{};
      // Again after the replays: overlapping calls (a dependent launch) share the split
      // workspace and its counters, which must come out of them intact.
      const double err_after = rb::relative_error(be->run_for_check(rb::Path::fused), ref);
      if (!(err_after <= rb::tolerance(w.dtype)))
        std::printf("b1 spec=%s L=%lld FAILED after the replays (err %g)\n", spec.c_str(),
                    (long long)w.length, err_after);
      const double tbps = ok ? kv_bytes / st.min / 1e12 : 0.0;
      std::printf(
          "b1 kv=%-5s B=%2d D=%3d spec=%-22s L=%7lld reps=%2d min=%8.2f us med=%8.2f us "
          "%6.3f TB/s splits=%3d cluster=%d err=%.2g %s\n",
          kv.c_str(), w.shape.batch, w.shape.head_dim, spec.c_str(), (long long)w.length,
          w.replicas, st.min * 1e6, st.median * 1e6, tbps, splits, plan.cluster, err,
          ok ? "ok" : "FAIL");
      std::fflush(stdout);
      csv << kv << "," << w.shape.batch << "," << w.shape.head_dim << ",\"" << spec << "\","
          << w.length << "," << w.replicas << "," << st.n << "," << st.min * 1e6 << ","
          << st.median * 1e6 << "," << tbps << "," << splits << "," << err << "," << plan.cluster
          << "\n";
      csv.flush();
    }
    be->retune(rb::cuda::Tuning{});
  }
  return 0;
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "bench";
  try {
    if (mode == "sanitize") return sanitize(argc > 2 ? argv[2] : nullptr);
    if (mode == "profile") return profile();
    if (mode == "timeline" && argc > 2) return timeline(argv[2], argc > 3 ? argv[3] : nullptr);
    if (mode == "b1" && argc > 2)
      return b1(argv[2], std::vector<std::string>(argv + 3, argv + argc));
    if (mode == "bench") return bench(argc > 2 ? argv[2] : "cuda_variants.csv");
    std::cerr << "usage: cuda_variants sanitize | bench [CSV] | profile | b1 CSV SPEC... | "
                 "timeline OUTDIR\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "cuda_variants: " << e.what() << "\n";
    return 1;
  }
}
