#pragma once
// CSV as every report writer and reader here speaks it (RFC 4180): cells separated by commas,
// a cell holding a comma, a quote, a line break or edge spaces written inside double quotes
// with its quotes doubled. What one writes the other reads back unchanged.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace readbench {

// `s` as one cell: quoted only where it has to be.
std::string csv_cell(std::string_view s);

// A number as a cell: %.9g (round-trips a float, and a double to nine digits); empty when absent.
std::string csv_number(std::optional<double> v);

// The cells of one line. Unquoted cells lose their edge spaces; quoted ones keep everything
// between the quotes. Throws InputError (naming `where`) on a quote that is never closed or
// text after a closing quote. A quoted line break is not supported: lines come one at a time.
std::vector<std::string> split_csv_line(std::string_view line, const std::string& where);

}  // namespace readbench
