#pragma once
// The `fit` object of a report, shared by `run --json`, `fit --json`, check and compare.
#include <nlohmann/json_fwd.hpp>
#include <optional>

#include "core/asymptote_fit.hpp"

namespace readbench {

using Json = nlohmann::ordered_json;

Json fit_to_json(const ReadFit& f);

// The number, or null where there is none.
Json number_or_null(const std::optional<double>& v);

}  // namespace readbench
