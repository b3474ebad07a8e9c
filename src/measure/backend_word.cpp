#include "measure/backend_word.hpp"

#include <string>

#include "core/enum_names.hpp"
#include "core/errors.hpp"

namespace readbench {

namespace {
constexpr Named<BackendChoice> kBackendChoiceNames[] = {{BackendChoice::cpu, "cpu"},
                                                        {BackendChoice::cuda, "cuda"},
                                                        {BackendChoice::all, "all"},
                                                        {BackendChoice::auto_, "auto"}};
}  // namespace

BackendChoice parse_backend_choice(std::string_view s) {
  if (const auto b = find_named(kBackendChoiceNames, s)) return *b;
  throw InputError("unknown backend '" + std::string(s) + "' (expected " +
                   names_of(kBackendChoiceNames) + ")");
}

std::string_view to_string(BackendChoice b) {
  return name_in(kBackendChoiceNames, b);
}

}  // namespace readbench
