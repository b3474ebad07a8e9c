#include "backends/registry.hpp"

namespace readbench {

namespace {

constexpr BackendKind kKinds[] = {
    {"cpu", nullptr, [](int threads, int) { return make_cpu_backend(threads); }},
    {"cuda", cuda_device_count, [](int, int device) { return make_cuda_backend(device); }},
};

}  // namespace

std::span<const BackendKind> backend_kinds() {
  return kKinds;
}

const BackendKind* find_backend_kind(std::string_view name) {
  const std::string_view kind = name.substr(0, name.find(':'));
  for (const BackendKind& k : kKinds)
    if (k.name == kind) return &k;
  return nullptr;
}

}  // namespace readbench
