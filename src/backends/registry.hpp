#pragma once
// The backends readbench knows, in the order a sweep takes them. The sweep's order, opening a
// backend by name and the names of several devices come from this table; a new backend adds
// its entry here, its --backend word (measure/backend_word), and its sources to CMake.
#include <memory>
#include <span>
#include <string_view>

#include "backends/backend.hpp"

namespace readbench {

struct BackendKind {
  std::string_view name;  // the --backend word and the report's backend name
  // Devices this process sees, for a backend with one instance per device (named "NAME:N" when
  // several are swept); null for one without devices.
  int (*device_count)();
  // Opens the backend: `threads` for a CPU backend, `device` for one with devices. Throws
  // BackendUnavailable, BackendError or InputError (backend.hpp).
  std::unique_ptr<Backend> (*open)(int threads, int device);
};

std::span<const BackendKind> backend_kinds();
// The kind named `name` (a bare kind name, or "NAME:N"), or null.
const BackendKind* find_backend_kind(std::string_view name);

}  // namespace readbench
