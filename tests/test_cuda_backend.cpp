// The CUDA backend against the f64 reference, and its error cases. Each test needs a
// device; without one it prints "SKIPPED: no CUDA device", which CTest reports as skipped.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "backends/backend.hpp"
#include "core/errors.hpp"
#include "core/reference.hpp"
#include "plugins/plugin.hpp"
#if defined(READBENCH_HAVE_CUDA)  // built with the CUDA backend: its plan
#include "backends/cuda/decode_launch.hpp"
#include "backends/cuda/wave_fill.hpp"
#endif
#if defined(READBENCH_BENCH_VARIANTS)  // and its variants (tools/h200 builds)
#include "backends/cuda/variants/tunable_backend.hpp"
#include "backends/cuda/variants/tuning_variants.hpp"
#endif

namespace rb = readbench;

namespace {

#if defined(READBENCH_HAVE_CUDA)
// The plan's tuning: the defaults. In a variant build, READBENCH_TEST_CUDA_TUNING (e.g.
// "warps=8,l1=1") runs the suite under a kernel variant of tools/h200, so a candidate default
// is checked everywhere before it becomes one.
rb::cuda::Tuning test_tuning() {
  rb::cuda::Tuning t;
#if defined(READBENCH_BENCH_VARIANTS)
  if (const char* spec = std::getenv("READBENCH_TEST_CUDA_TUNING")) rb::cuda::apply_tuning(t, spec);
#endif
  return t;
}
#endif

std::unique_ptr<rb::Backend> cuda_or_skip() {
  try {
#if defined(READBENCH_BENCH_VARIANTS)
    return rb::cuda::make_tunable_cuda_backend(0, test_tuning());
#else
    return rb::make_cuda_backend(0);
#endif
  } catch (const rb::BackendUnavailable&) {
    std::cout << "SKIPPED: no CUDA device" << std::endl;
    return nullptr;
  }
}

struct Case {
  rb::DType dtype = rb::DType::bf16;
  std::optional<rb::DType> kv = std::nullopt;  // K/V storage; empty: dtype
  int batch = 7;
  int q_heads = 32;
  int kv_heads = 8;
  int head_dim = 128;
  int block_size = 16;
  std::int64_t length = 1000;
  int replicas = 1;
};

std::string describe(const Case& c) {
  return std::string(rb::to_string(c.dtype)) +
         (c.kv ? " kv " + std::string(rb::to_string(*c.kv)) : "") +
         " B=" + std::to_string(c.batch) + " Hq=" + std::to_string(c.q_heads) +
         " Hkv=" + std::to_string(c.kv_heads) + " D=" + std::to_string(c.head_dim) +
         " S=" + std::to_string(c.block_size) + " L=" + std::to_string(c.length) +
         " replicas=" + std::to_string(c.replicas);
}

rb::Workload workload_of(const Case& c) {
  static std::uint64_t next_seed = 0x5eed;  // fresh inputs for every check
  rb::Workload w;
  w.shape.batch = c.batch;
  w.shape.q_heads = c.q_heads;
  w.shape.kv_heads = c.kv_heads;
  w.shape.head_dim = c.head_dim;
  w.shape.block_size = c.block_size;
  w.dtype = c.dtype;
  w.kv_storage = c.kv;
  w.length = c.length;
  w.replicas = c.replicas;
  w.seed = next_seed++;
  return w;
}

// Prepares `c` and checks both paths' replica-0 output against the reference.
void check_paths(rb::Backend& backend, const Case& c) {
  rb::HostWorkload h = rb::make_host_workload(workload_of(c));
  const std::vector<double> ref = rb::reference_attention(h, 0);
  backend.prepare(std::move(h));
  for (const rb::Path& p : {rb::Path::gather, rb::Path::fused}) {
    const double err = rb::relative_error(backend.run_for_check(p), ref);
    INFO(describe(c), " path=", rb::to_string(p), " error=", err);
    CHECK(err <= rb::tolerance(c.dtype));
  }
}

#if defined(READBENCH_HAVE_CUDA)
rb::cuda::DecodeProblem problem_of(const Case& c) {
  return rb::cuda::decode_problem(workload_of(c));
}

int splits_of(rb::Backend& backend, const Case& c) {
  return rb::cuda::plan_decode(problem_of(c), rb::cuda::KvLayout::paged,
                               backend.gpu_info()->sm_count, test_tuning())
      .splits;
}
#endif

// q's type and K/V's: each type alone, and e4m3 K/V under each.
struct Types {
  rb::DType q;
  std::optional<rb::DType> kv;
};
const Types kAllTypes[] = {{rb::DType::f32, {}},
                           {rb::DType::f16, {}},
                           {rb::DType::bf16, {}},
                           {rb::DType::f32, rb::DType::e4m3},
                           {rb::DType::f16, rb::DType::e4m3},
                           {rb::DType::bf16, rb::DType::e4m3}};

}  // namespace

TEST_CASE("both paths match the reference in every dtype pair at short and odd lengths") {
  auto backend = cuda_or_skip();
  if (!backend) return;
  for (const Types& t : kAllTypes)
    for (const std::int64_t length : {1, 16, 17, 1000}) {
      const Case c{.dtype = t.q, .kv = t.kv, .length = length};
      check_paths(*backend, c);
    }
}

TEST_CASE("group sizes one, four and eight match the reference") {
  auto backend = cuda_or_skip();
  if (!backend) return;
  for (const Types& t : kAllTypes)
    for (const auto& [hq, hkv] : {std::pair{8, 8}, std::pair{32, 8}, std::pair{32, 4}}) {
      const Case c{.dtype = t.q, .kv = t.kv, .q_heads = hq, .kv_heads = hkv};
      check_paths(*backend, c);
    }
}

TEST_CASE("group sizes without their own kernel still match the reference") {
  auto backend = cuda_or_skip();
  if (!backend) return;
  for (const Types& t : {Types{rb::DType::f32, {}}, Types{rb::DType::bf16, {}},
                         Types{rb::DType::bf16, rb::DType::e4m3}})
    for (const auto& [hq, hkv] : {std::pair{24, 8}, std::pair{32, 2}, std::pair{20, 2}}) {
      const Case c{
          .dtype = t.q, .kv = t.kv, .batch = 2, .q_heads = hq, .kv_heads = hkv, .length = 333};
      check_paths(*backend, c);
    }
}

TEST_CASE("head dims 64, 128 and 256 match the reference") {
  auto backend = cuda_or_skip();
  if (!backend) return;
  for (const Types& t : kAllTypes)
    for (const int d : {64, 128, 256})
      for (const std::int64_t length : {17, 1000}) {
        const Case c{.dtype = t.q, .kv = t.kv, .batch = 3, .head_dim = d, .length = length};
        check_paths(*backend, c);
      }
}

TEST_CASE("16-bit heads of D=64 run as pairs of KV heads on enough rows and match the reference") {
  auto backend = cuda_or_skip();
  if (!backend) return;
  for (const Types& t : {Types{rb::DType::bf16, {}}, Types{rb::DType::f16, {}},
                         Types{rb::DType::f32, {}}, Types{rb::DType::bf16, rb::DType::e4m3}})
    for (const auto& [hq, hkv] :
         {std::pair{8, 8}, std::pair{16, 8}, std::pair{24, 8}, std::pair{32, 8}, std::pair{8, 2},
          std::pair{32, 2}, std::pair{6, 3}, std::pair{64, 8}})
      for (const auto& [batch, length, block_size] :
           {std::tuple{40, 1, 16}, std::tuple{40, 2049, 16}, std::tuple{20, 1000, 5},
            std::tuple{20, 5001, 16}, std::tuple{7, 4099, 16}, std::tuple{1, 20001, 16}}) {
        const Case c{.dtype = t.q,
                     .kv = t.kv,
                     .batch = batch,
                     .q_heads = hq,
                     .kv_heads = hkv,
                     .head_dim = 64,
                     .block_size = block_size,
                     .length = length};
#if defined(READBENCH_HAVE_CUDA)
        // Pairs: 16-bit K/V in q's type, an even number of KV heads, two groups of at most 4
        // query heads (the mma's 8), rows of pairs that cover the SMs split as finely as the
        // history allows a short one (splits of 128 tokens, at most 8) and that the plan leaves
        // unsplit (a block of them an SM, so rows at most half the SMs split a history of two
        // minimum splits or more; pairs never split further to fill a wave), on a device whose
        // blocks may take the pairs' eight warps of three 8 KiB stages (192 KiB and the few
        // bytes of static shared memory: an H100 or H200, not an A100 or a 99 KiB GPU); the
        // grid and the split counters count pairs.
        int optin = 0;
        REQUIRE(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0) ==
                cudaSuccess);
        const rb::cuda::Tuning tuning = test_tuning();
        const int sm_count = backend->gpu_info()->sm_count;
        const std::int64_t rows = std::int64_t(batch) * (hkv / 2);
        const std::int64_t finest =
            tuning.short_split_tokens > 0
                ? std::clamp<std::int64_t>(
                      (length + tuning.short_split_tokens - 1) / tuning.short_split_tokens, 1, 8)
                : 1;
        const bool unsplit = std::int64_t(double(sm_count) * tuning.waves) / rows < 2 ||
                             (length + tuning.min_split_tokens - 1) / tuning.min_split_tokens < 2;
        [[maybe_unused]] const bool paired = t.q != rb::DType::f32 && !t.kv && hkv % 2 == 0 &&
                                             hq / hkv <= 4 && rows * finest >= sm_count &&
                                             unsplit && optin >= 193 * 1024;
        for (const auto layout : {rb::cuda::KvLayout::paged, rb::cuda::KvLayout::contiguous}) {
          const rb::cuda::DecodePlan plan =
              rb::cuda::plan_decode(problem_of(c), layout, sm_count, tuning);
          INFO(describe(c), " splits=", plan.splits, " cluster=", plan.cluster);
#if !defined(READBENCH_BENCH_VARIANTS)  // (a variant may turn the pairs off)
          CHECK(plan.kernel.paired_heads == paired);
#endif
          if (plan.kernel.paired_heads)
            CHECK(
                (plan.kernel.kv_per_block == 2 && plan.kernel.threads == 256 && plan.splits == 1));
        }
#endif
        check_paths(*backend, c);
      }
}

TEST_CASE("block sizes 8, 16, 32 and an odd size match the reference") {
  auto backend = cuda_or_skip();
  if (!backend) return;
  for (const int s : {8, 16, 32, 5})
    for (const std::int64_t length :
         {std::int64_t(1), std::int64_t(s), std::int64_t(s) + 1, std::int64_t(1000)})
      for (const Types& t : kAllTypes) {
        const Case c{.dtype = t.q, .kv = t.kv, .block_size = s, .length = length};
        check_paths(*backend, c);
      }
}

TEST_CASE("a long single sequence splits its history and matches the reference") {
  auto backend = cuda_or_skip();
  if (!backend) return;
  for (const Types& t : kAllTypes) {
    const Case c{.dtype = t.q, .kv = t.kv, .batch = 1, .length = 65537};
#if defined(READBENCH_HAVE_CUDA)
    CHECK(splits_of(*backend, c) > 1);
#endif
    check_paths(*backend, c);
  }
}

TEST_CASE("a short split history merged through a thread block cluster matches the reference") {
  auto backend = cuda_or_skip();
  if (!backend) return;
  for (const Types& t : kAllTypes)
    for (const int head_dim : {64, 128, 256})
      for (const int kv_heads : {8, 2})
        for (const std::int64_t length : {257, 1000, 2048}) {
          const Case c{.dtype = t.q,
                       .kv = t.kv,
                       .batch = 1,
                       .kv_heads = kv_heads,
                       .head_dim = head_dim,
                       .length = length};
#if defined(READBENCH_HAVE_CUDA)
          const rb::cuda::DecodePlan plan =
              rb::cuda::plan_decode(problem_of(c), rb::cuda::KvLayout::paged,
                                    backend->gpu_info()->sm_count, test_tuning());
          INFO(describe(c), " splits=", plan.splits, " cluster=", plan.cluster);
          CHECK(plan.splits > 1);
          CHECK((plan.cluster == 1 || plan.cluster == plan.splits));
          // The shapes the clusters were measured on (16-bit q, and bf16 q with e4m3 K/V, at
          // D=128 Hkv=8) take one on a device of their class (an H100 or H200: 8 clusters of up
          // to 8 blocks, an SM each, resident at once).
          const bool measured_types = t.kv ? t.q == rb::DType::bf16 : t.q != rb::DType::f32;
          if (measured_types && head_dim == 128 && kv_heads == 8 &&
              backend->gpu_info()->sm_count >= 128 &&
              rb::cuda::kernels_support_dependent_launch() && test_tuning().cluster >= 8)
            CHECK(plan.cluster == plan.splits);
#endif
          check_paths(*backend, c);
        }
}

TEST_CASE("few rows run as eight-warp blocks where measured and match the reference") {
  auto backend = cuda_or_skip();
  if (!backend) return;
  for (const Types& t : kAllTypes)
    for (const auto& [hq, hkv, d] :
         {std::tuple{32, 8, 128}, std::tuple{32, 8, 64}, std::tuple{8, 2, 128}})
      for (const std::int64_t length :
           {1024, 2048, 2049, 6144, 6145, 8191, 8192, 16383, 16384, 32767, 32768, 40001}) {
        const Case c{.dtype = t.q,
                     .kv = t.kv,
                     .batch = 1,
                     .q_heads = hq,
                     .kv_heads = hkv,
                     .head_dim = d,
                     .length = length};
#if defined(READBENCH_HAVE_CUDA)
        const int sm_count = backend->gpu_info()->sm_count;
        const rb::cuda::DecodePlan plan = rb::cuda::plan_decode(
            problem_of(c), rb::cuda::KvLayout::paged, sm_count, test_tuning());
        const auto few = rb::cuda::find_paged_few_rows_kernel(problem_of(c), test_tuning());
        INFO(describe(c), " splits=", plan.splits, " cluster=", plan.cluster,
             " threads=", plan.kernel.threads);
        CHECK(plan.splits > 1);
        // Eight warps only for 16-bit q at D=128, K/V in q's type or e4m3 (the long rows: K/V
        // in q's type). Taken where the kernel's range holds the length and each of the B * Hkv
        // rows has 16-31 SMs (the 8 rows of Hkv=8 B=1 on an H100 or H200, whose clusters of 8
        // are resident); never elsewhere (D=64's pairs of KV heads, eight warps too, never split).
        const int sms_per_row = sm_count / (c.batch * c.kv_heads);
        const bool few_rows = sms_per_row >= 16 && sms_per_row < 32;
        const bool taken =
            few && length >= few->min_length && length <= few->max_length && few_rows;
        // From the long-rows kernel's length: a block of it an SM, a split for each SM of the
        // row, one fewer below its full length (on a device whose blocks may take its 192 KiB:
        // an H100 or H200).
        const bool long_taken =
            few && few->long_kernel && length >= few->long_min_length && few_rows;
        int optin = 0;
        REQUIRE(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0) ==
                cudaSuccess);
        // Whether the device lets a block of `k` (its split and unsplit forms) take its shared
        // memory, as the plan asks before it takes a kernel.
        const auto fits = [&](const rb::cuda::DecodeKernel& k) {
          for (const void* function : {k.function, k.unsplit_function}) {
            cudaFuncAttributes a{};
            REQUIRE(cudaFuncGetAttributes(&a, function) == cudaSuccess);
            if (k.smem_bytes + a.sharedSizeBytes > std::size_t(optin)) return false;
          }
          return true;
        };
        [[maybe_unused]] const bool cluster_fits = taken && fits(few->kernel);
        [[maybe_unused]] const bool long_fits = long_taken && fits(*few->long_kernel);
#if !defined(READBENCH_BENCH_VARIANTS)  // (a variant may change the block or the merge)
        CHECK(few.has_value() == (d == 128 && t.q != rb::DType::f32));
        CHECK((few && few->long_kernel.has_value()) ==
              (d == 128 && t.q != rb::DType::f32 && !t.kv));
        if (!taken && !long_fits) CHECK(plan.kernel.threads != 256);
        if (cluster_fits && sm_count >= 128 && rb::cuda::kernels_support_dependent_launch())
          CHECK((plan.kernel.threads == 256 && plan.splits == 8 && plan.cluster == 8));
        if (long_fits) {  // (splits of whole tiles: 28 splits of L=8192 would be 27 of 304)
          const std::int64_t splits = sms_per_row - (length < few->long_full_length ? 1 : 0);
          const std::int64_t tile = few->long_kernel->tile_tokens;
          const std::int64_t tokens = ((length + splits - 1) / splits + tile - 1) / tile * tile;
          CHECK((plan.kernel.threads == 256 && plan.blocks_per_sm == 1 &&
                 plan.splits == (length + tokens - 1) / tokens && plan.cluster == 1));
        }
#endif
#endif
        check_paths(*backend, c);
      }
}

TEST_CASE("a merge of more splits than its block stages at once matches the reference") {
  auto backend = cuda_or_skip();
  if (!backend) return;
  for (const int head_dim : {64, 128, 256})
    for (const Types& t : kAllTypes) {
      // one KV head over a long history: a split for every block the SMs hold
      const Case c{.dtype = t.q,
                   .kv = t.kv,
                   .batch = 1,
                   .q_heads = 8,
                   .kv_heads = 1,
                   .head_dim = head_dim,
                   .length = 65537};
#if defined(READBENCH_HAVE_CUDA)
      // The merging block stages as many splits' partials (D floats and a log-sum-exp for each
      // of its query heads) as its shared memory holds, and merges batch after batch.
      const rb::cuda::DecodePlan plan = rb::cuda::plan_decode(
          problem_of(c), rb::cuda::KvLayout::paged, backend->gpu_info()->sm_count, test_tuning());
      const std::size_t heads =
          std::size_t(std::min(c.q_heads / c.kv_heads, plan.kernel.heads_per_block)) *
          std::size_t(plan.kernel.kv_per_block);
      const std::size_t staged =
          plan.kernel.smem_bytes / sizeof(float) / (heads * (c.head_dim + 1));
      INFO(describe(c), " splits=", plan.splits, " staged at once=", staged);
      if (std::size_t(plan.splits) <= staged) {  // a device with few SMs: no batches to test
        MESSAGE("one batch holds every split on this device: ", describe(c));
        continue;
      }
#endif
      check_paths(*backend, c);
    }
}

TEST_CASE(
    "a batch that fills its last wave in part splits into fuller waves and matches the "
    "reference") {
  auto backend = cuda_or_skip();
  if (!backend) return;
  for (const Types& t : kAllTypes)
    for (const auto& [batch, length] :
         {std::pair{20, std::int64_t(5001)}, std::pair{17, std::int64_t(4099)},
          std::pair{20, std::int64_t(3001)}, std::pair{12, std::int64_t(4099)},
          std::pair{28, std::int64_t(4100)}, std::pair{40, std::int64_t(4099)},
          std::pair{52, std::int64_t(4099)}}) {
      const Case c{.dtype = t.q, .kv = t.kv, .batch = batch, .length = length};
#if defined(READBENCH_HAVE_CUDA)
      // Rows that fill their wave's slots in part (their last wave's, for rows of more than a
      // wave) split into the fewest waves that fill their last one (wave_fill.hpp), from histories
      // of 4096 tokens and as far as the history's minimum splits let them; each split a whole
      // number of tiles.
      const rb::GpuInfo gpu = *backend->gpu_info();
      const int sm_count = gpu.sm_count;
      const rb::cuda::PlanThresholds& th =
          rb::cuda::plan_thresholds({gpu.compute_major, gpu.compute_minor, sm_count});
      const rb::cuda::Tuning tuning = test_tuning();
      const rb::cuda::DecodePlan plan =
          rb::cuda::plan_decode(problem_of(c), rb::cuda::KvLayout::paged, sm_count, tuning);
      const rb::cuda::DecodeKernel& k = plan.kernel;
      const std::int64_t rows =
          std::int64_t(batch) * (c.kv_heads / k.kv_per_block) * plan.head_tiles;
      const auto wave = std::int64_t(double(sm_count) * plan.blocks_per_sm * tuning.waves);
      const std::int64_t most = (length + tuning.min_split_tokens - 1) / tuning.min_split_tokens;
      // (a variant build's own waves keep their one wave)
      const std::int64_t one_wave = std::clamp<std::int64_t>(wave / rows, 1, most);
      const std::int64_t want =
          tuning.waves == rb::cuda::Tuning{}.waves
              ? rb::cuda::wave_filling_splits(
                    th, rows, wave, one_wave, most, length,
                    rb::cuda::kv_row_bytes(length, c.head_dim,
                                           std::int64_t(rb::element_size(c.kv.value_or(c.dtype))),
                                           k.kv_per_block))
              : one_wave;
      const std::int64_t tokens =
          ((length + want - 1) / want + k.tile_tokens - 1) / k.tile_tokens * k.tile_tokens;
      INFO(describe(c), " splits=", plan.splits, " rows=", rows, " wave=", wave);
      CHECK(plan.splits == (length + tokens - 1) / tokens);
#if !defined(READBENCH_BENCH_VARIANTS)  // (a variant may ask for its own waves or splits)
      // The H200's 264 slots of the default four-warp blocks: 160 rows (61% of a wave) in three
      // splits, 480 blocks (91% of two waves); 136 rows of 4099 tokens in seven; 96 rows in two
      // splits (73%) and 224 rows (85%) kept as they are; 320 rows, more than a wave (61% of
      // two), in three splits, 960 blocks (91% of four); 416 rows (79% of two) kept where a row
      // holds under 2 MiB of K/V (e4m3 at L=4099), else in three splits (94.5% of five).
      if (sm_count == 132 && plan.blocks_per_sm == 2 && rows == 8 * batch) {
        if (batch == 20) CHECK(plan.splits == (length >= 4096 ? 3 : 1));
        if (batch == 17) CHECK(plan.splits == 7);
        if (batch == 12) CHECK(plan.splits == 2);
        if (batch == 28) CHECK(plan.splits == 1);
        if (batch == 40) CHECK(plan.splits == 3);
        if (batch == 52) CHECK(plan.splits == (c.kv == rb::DType::e4m3 ? 1 : 3));
      }
#endif
#endif
      check_paths(*backend, c);
    }
}

TEST_CASE("a batch that fills the device runs unsplit and matches the reference") {
  auto backend = cuda_or_skip();
  if (!backend) return;
  const Case c{.batch = 64, .length = 300};
#if defined(READBENCH_HAVE_CUDA)
  CHECK(splits_of(*backend, c) == 1);
#endif
  check_paths(*backend, c);
}

TEST_CASE("calls cycle over every replica and replica zero stays correct") {
  auto backend = cuda_or_skip();
  if (!backend) return;
  const Case c{.length = 1000, .replicas = 3};
  rb::HostWorkload h = rb::make_host_workload(workload_of(c));
  const std::vector<double> ref = rb::reference_attention(h, 0);
  backend->prepare(std::move(h));
  for (const rb::Path& p : {rb::Path::gather, rb::Path::fused}) {
    for (const rb::CacheState cache : {rb::CacheState::cold, rb::CacheState::hot}) {
      const double s = backend->time_calls(p, 7, cache);
      CHECK(std::isfinite(s));
      CHECK(s > 0);
    }
    CHECK(rb::relative_error(backend->run_for_check(p), ref) <= rb::tolerance(c.dtype));
  }
}

// On sm_90 on, batched calls overlap (each kernel after a sample's first a programmatic
// dependent of the one before) and share the split workspace, its counters and the gather
// path's contiguous copy: after replays of more calls than replicas, every replica's output is
// still its own (a call that wrote before waiting, or read another call's copy, would leave
// another replica's or a stale result), and a later call gives the same bits as one before.
TEST_CASE("overlapping back-to-back calls leave every replica's output right") {
  auto backend = cuda_or_skip();
  if (!backend) return;
  const rb::GpuInfo info = *backend->gpu_info();
  const std::string launch = backend->details().launch;
  CHECK(launch.find("CUDA graph") != std::string::npos);
#if !defined(READBENCH_BENCH_VARIANTS)  // variant builds may run with it off
  // The project's builds hold sm_90 code, so the kernels have the instructions from sm_90 on.
  CHECK((launch.find("programmatic dependent") != std::string::npos) == (info.compute_major >= 9));
#endif
  struct Shape {
    int batch;
    std::int64_t length;
    int replicas;
  };
  for (const Types& t : kAllTypes)
    for (const Shape& shape :
         {Shape{1, 65537, 3}, Shape{3, 1000, 3}, Shape{64, 300, 3}, Shape{1, 4099, 1}}) {
      const Case c{.dtype = t.q,
                   .kv = t.kv,
                   .batch = shape.batch,
                   .length = shape.length,
                   .replicas = shape.replicas};
      INFO(describe(c));
      rb::HostWorkload h = rb::make_host_workload(workload_of(c));
      std::vector<std::vector<double>> ref;
      for (int r = 0; r < c.replicas; ++r) ref.push_back(rb::reference_attention(h, r));
      backend->prepare(std::move(h));
      for (const rb::Path& p : {rb::Path::gather, rb::Path::fused}) {
        INFO("path=", rb::to_string(p));
        const std::vector<double> before = backend->run_for_check(p);
        for (const rb::CacheState cache : {rb::CacheState::cold, rb::CacheState::hot}) {
          CHECK(backend->time_calls(p, 7, cache) > 0);
          for (int r = 0; r < c.replicas; ++r) {
            INFO("replica ", r);
            CHECK(rb::relative_error(backend->read_output(r), ref[std::size_t(r)]) <=
                  rb::tolerance(c.dtype));
          }
        }
        CHECK(backend->run_for_check(p) == before);
      }
    }
  CHECK_THROWS_AS(backend->read_output(1), rb::InputError);  // the last case has one replica
}

TEST_CASE("an unsupported head dim is an input error naming it") {
  auto backend = cuda_or_skip();
  if (!backend) return;
  const Case c{.batch = 1, .head_dim = 96, .length = 20};
  CHECK_THROWS_WITH_AS(backend->prepare(rb::make_host_workload(workload_of(c))),
                       doctest::Contains("--head-dim 96"), rb::InputError);
}

TEST_CASE("a workload larger than device memory is a backend error naming the bytes") {
  auto backend = cuda_or_skip();
  if (!backend) return;
  // Only the shape: the backend checks device capacity before it reads the host buffers.
  Case huge;
  huge.dtype = rb::DType::f32;
  huge.batch = 64;
  huge.head_dim = 256;
  huge.length = 1 << 20;  // K/V pools of 64 * 2^20 * 8 * 256 * 4 bytes = 512 GiB each
  rb::HostWorkload h;
  h.workload = workload_of(huge);
  CHECK_THROWS_WITH_AS(backend->prepare(std::move(h)), doctest::Contains("bytes"),
                       rb::BackendError);
  // The backend stays usable.
  check_paths(*backend, Case{});
}

TEST_CASE("a device index out of range is an input error naming it") {
  auto backend = cuda_or_skip();
  if (!backend) return;
  CHECK_THROWS_WITH_AS(rb::make_cuda_backend(1000), doctest::Contains("CUDA device 1000"),
                       rb::InputError);
  CHECK_THROWS_WITH_AS(rb::make_cuda_backend(-1), doctest::Contains("CUDA device -1"),
                       rb::InputError);
}

TEST_CASE("device facts and measured bandwidths are plausible") {
  auto backend = cuda_or_skip();
  if (!backend) return;
  const auto info = backend->gpu_info();
  REQUIRE(info.has_value());
  CHECK(!info->name.empty());
  CHECK(info->sm_count > 0);
  CHECK(info->l2_bytes > 0);
  CHECK(backend->cache_bytes() == info->l2_bytes);
  CHECK(info->memory_bytes > info->l2_bytes);
  CHECK(!info->driver_version.empty());
  const rb::Bandwidths bw = backend->measure_bandwidths();
  CHECK(bw.buffer_bytes >= 8 * info->l2_bytes);
  CHECK(bw.read_gbps > 10);
  CHECK(bw.copy_gbps > 10);
  MESSAGE(info->name, ": read ", bw.read_gbps, " GB/s, copy ", bw.copy_gbps, " GB/s");
}

#if defined(READBENCH_TEST_FUSED_CUDA_PLUGIN)
TEST_CASE("readbench's fused read as a plugin matches the built-in path bit for bit") {
  auto backend = cuda_or_skip();
  if (!backend) return;
  // The build's file, or where READBENCH_FUSED_CUDA_PLUGIN says (a binary carried elsewhere).
  const char* file = std::getenv("READBENCH_FUSED_CUDA_PLUGIN");
  backend->add_plugin(rb::Plugin::load(file != nullptr ? file : READBENCH_TEST_FUSED_CUDA_PLUGIN));
  const rb::Path plugin = rb::Path::of_plugin("readbench_fused_cuda");
  for (const Types& t : kAllTypes)
    for (std::int64_t length : {1, 17, 1000, 65537}) {
      const Case c{.dtype = t.q,
                   .kv = t.kv,
                   .batch = length > 1000 ? 1 : 3,
                   .length = length,
                   .replicas = 2};
      rb::HostWorkload h = rb::make_host_workload(workload_of(c));
      const std::vector<double> ref = rb::reference_attention(h, 0);
      backend->prepare(std::move(h));
      const std::vector<double> got = backend->run_for_check(plugin);
      INFO(describe(c));
      CHECK(rb::relative_error(got, ref) <= rb::tolerance(c.dtype));
      CHECK(got == backend->run_for_check(rb::Path::fused));
      // Timed calls are captured in a graph as the built-in ones are.
      CHECK(backend->time_calls(plugin, 4, rb::CacheState::cold) > 0);
      CHECK(backend->path_note(plugin) ==
            "calls replayed from a CUDA graph, as the built-in paths");
    }
}
#endif
