#pragma once
// The text of every JSON document readbench writes (reports, verdicts, fits, exports).
#include <string>

#include "report/fit_json.hpp"

namespace readbench {

// Two-space indent and a final newline. Strings that are not UTF-8 (a file name, a host name)
// are written with U+FFFD in place of the bad bytes: the document stays valid JSON rather than
// failing after the work is done.
std::string json_text(const Json& j);

}  // namespace readbench
