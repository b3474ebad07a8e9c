#pragma once
// The `fit` object of SPEC §6, shared by `run --json` and `fit --json`.
#include <nlohmann/json.hpp>
#include <optional>

#include "core/fit.hpp"

namespace readbench {

using Json = nlohmann::ordered_json;

Json fit_to_json(const FitResult& f);

// The number, or null where there is none.
Json number_or_null(const std::optional<double>& v);

}  // namespace readbench
