#pragma once
// Text from outside (a report's hostname, a file name in an error) made safe for a terminal, a
// markdown table or a one-line error: each control character escaped, a newline as \n, a tab as
// \t, any other as \xHH (DEL included).
#include <string>
#include <string_view>

namespace readbench {

std::string printable(std::string_view text);

}  // namespace readbench
