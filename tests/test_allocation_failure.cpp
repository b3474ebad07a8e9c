// A buffer that cannot be allocated names itself and its size, and under --backend auto the
// backend that needed it is recorded failed with that reason while the others still run.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "core/aligned_buffer.hpp"
#include "measure/sweep.hpp"
#include "test_support.hpp"

using namespace readbench;
using readbench::test::error_message;

namespace {

// Far beyond any machine's memory and address space: mmap refuses it at once.
constexpr std::size_t kImpossible = std::size_t(1) << 62;

SweepConfig tiny_sweep(BackendChoice backend) {
  SweepConfig c;
  c.backend = backend;
  c.auto_lengths = false;
  c.lengths = {16, 64};
  c.shape.q_heads = 4;
  c.shape.kv_heads = 2;
  c.shape.head_dim = 8;
  c.shape.block_size = 4;
  c.dtype = DType::f32;
  c.threads = 1;
  return c;
}

}  // namespace

TEST_CASE("an allocation that fails names the buffer and its bytes") {
  const std::string msg =
      error_message<BackendError>([] { AlignedBuffer b(kImpossible, "the read-ceiling buffer"); });
  CHECK(msg ==
        "cannot allocate the read-ceiling buffer of 4611686018427387904 bytes "
        "(4398046511104 MiB): out of host memory");
  CHECK(error_message<BackendError>([] {
          AlignedBuffer b(~std::size_t(0));
        }).find("cannot allocate a host buffer of 18446744073709551615 bytes") == 0);
}

TEST_CASE("under auto a backend that cannot get its memory is recorded failed, others still run") {
  // The cpu backend's factory needs a buffer it cannot have, as on a machine out of memory;
  // cuda is opened as usual (unavailable without a device or a CUDA build).
  const BackendFactory real = default_backend_factory(1, {0});
  const BackendFactory factory = [&](const std::string& name) -> std::unique_ptr<Backend> {
    if (name == "cpu") AlignedBuffer ceiling(kImpossible, "the read-ceiling buffer");
    return real(name);
  };
  const RunResult run = run_sweep(tiny_sweep(BackendChoice::auto_), {}, factory);
  bool cpu_seen = false, cuda_seen = false;
  for (const PathResult& r : run.results) {
    if (r.backend == "cpu") {
      cpu_seen = true;
      CHECK(r.status == Status::failed);
      CHECK(r.reason.find("cannot allocate the read-ceiling buffer of 4611686018427387904 bytes") !=
            std::string::npos);
    }
    cuda_seen = cuda_seen || r.backend == "cuda";
  }
  CHECK(cpu_seen);
  CHECK(cuda_seen);

  // Asked for explicitly, the same failure is the run's error, with the reason.
  const std::string msg =
      error_message([&] { run_sweep(tiny_sweep(BackendChoice::cpu), {}, factory); });
  CHECK(msg.find("--backend cpu cannot run: cannot allocate the read-ceiling buffer") == 0);
}
