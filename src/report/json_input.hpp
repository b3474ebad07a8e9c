#pragma once
// JSON read back from a file (reports, point arrays): nlohmann's parser, plus the checks it does
// not make. A key repeated in one object would let the last copy win silently, so an edited
// report could show one value to a reader and another to readbench; nesting far deeper than
// any report is refused before anything recursive walks it; and nlohmann's own exceptions
// (a number too large for a double, bad UTF-8) become InputErrors naming the source and where.
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace readbench {

// Deeper than any report (5 levels) or point array (2) by far.
inline constexpr std::size_t kMaxJsonDepth = 64;

// Throws InputError: "SOURCE: malformed JSON: ...", "SOURCE: duplicate key "K" in WHERE",
// "SOURCE: WHERE: number overflow parsing '1e400'", or nesting deeper than kMaxJsonDepth.
nlohmann::json parse_json_input(const std::string& text, const std::string& source);

}  // namespace readbench
