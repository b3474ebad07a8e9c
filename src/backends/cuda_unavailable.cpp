// The one place that knows this build has no CUDA backend.
#include "backends/backend.hpp"
#include "core/errors.hpp"

namespace readbench {

std::unique_ptr<Backend> make_cuda_backend(int /*device*/) {
  throw BackendUnavailable("readbench was built without CUDA support");
}

int cuda_device_count() {
  return 0;
}

}  // namespace readbench
