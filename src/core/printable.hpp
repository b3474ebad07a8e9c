#pragma once
// Text from outside (a report's hostname, a file name in an error) kept to one line of a
// terminal, a markdown table, a CSV record or an error: each ASCII control character escaped, a
// newline as \n, a tab as \t, any other as \xHH (DEL included). Other bytes pass as they are.
#include <string>
#include <string_view>

namespace readbench {

std::string printable(std::string_view text);

}  // namespace readbench
