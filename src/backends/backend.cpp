#include "backends/backend.hpp"

#include "core/errors.hpp"

namespace readbench {

void Backend::add_plugin(std::shared_ptr<const Plugin>) {
  throw BackendError("the " + std::string(name()) + " backend takes no plugins");
}

std::vector<double> Backend::read_output(int) {
  throw BackendError("the " + std::string(name()) + " backend cannot read its outputs back");
}

}  // namespace readbench
