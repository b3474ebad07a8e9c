#pragma once
// CLI11's own words for an option given without its value or given twice ("--budget: 1
// required FLOAT:finite > 0 missing", "--budget: At Most 1 required but received 2") said as
// the rest of readbench's errors are; any other parse error's message as CLI11 has it.
#include <string>

namespace readbench::cli {

std::string parse_error_text(const std::string& cli11_message);

}  // namespace readbench::cli
