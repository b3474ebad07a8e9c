#include "backends/backend.hpp"

#include "core/errors.hpp"

namespace readbench {

void Backend::add_plugin(std::shared_ptr<const Plugin>) {
  throw BackendError("the " + std::string(name()) + " backend takes no plugins");
}

}  // namespace readbench
