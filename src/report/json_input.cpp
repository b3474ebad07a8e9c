#include "report/json_input.hpp"

#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "core/errors.hpp"

namespace readbench {

namespace {

using nlohmann::json;

// One open object or array while parsing, and where in it the parser is.
struct Frame {
  bool is_array = false;
  std::size_t index = 0;       // an array's current element
  std::string key;             // an object's current key
  std::set<std::string> keys;  // an object's keys so far
};

// The JSON path of the value the parser is in: "results[0].points[2]". With `inner`, the last
// frame's current key or element too.
std::string path_of(const std::vector<Frame>& stack, bool inner) {
  std::string out;
  const std::size_t n = inner ? stack.size() : (stack.empty() ? 0 : stack.size() - 1);
  for (std::size_t i = 0; i < n; ++i) {
    // Appended piece by piece: GCC 12 warns (-Wrestrict, wrongly) on "[" + to_string(i).
    if (stack[i].is_array) {
      out += '[';
      out += std::to_string(stack[i].index);
      out += ']';
    } else {
      if (!out.empty()) out += '.';
      out += stack[i].key;
    }
  }
  return out.empty() ? "the top level" : out;
}

// nlohmann's what() without its "[json.exception.out_of_range.406] " prefix.
std::string plain(const json::exception& e) {
  const std::string what = e.what();
  const auto close = what.find("] ");
  return what.rfind("[json.exception", 0) == 0 && close != std::string::npos
             ? what.substr(close + 2)
             : what;
}

}  // namespace

json parse_json_input(const std::string& text, const std::string& source) {
  std::vector<Frame> stack;
  const json::parser_callback_t track = [&](int, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (stack.size() >= kMaxJsonDepth)
          throw InputError(source + ": " + path_of(stack, true) + " nests deeper than " +
                           std::to_string(kMaxJsonDepth) + " levels: not a readbench input");
        stack.push_back({event == json::parse_event_t::array_start, 0, {}, {}});
        break;
      case json::parse_event_t::key: {
        Frame& top = stack.back();
        top.key = parsed.get<std::string>();
        if (!top.keys.insert(top.key).second)
          throw InputError(source + ": duplicate key " + json(top.key).dump() + " in " +
                           (stack.size() == 1 ? "the top-level object" : path_of(stack, false)));
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        stack.pop_back();
        if (!stack.empty() && stack.back().is_array) ++stack.back().index;
        break;
      case json::parse_event_t::value:
        if (!stack.empty() && stack.back().is_array) ++stack.back().index;
        break;
    }
    return true;
  };
  try {
    return json::parse(text, track);
  } catch (const json::parse_error& e) {
    throw InputError(source + ": malformed JSON: " + e.what());
  } catch (const json::exception& e) {
    // A number that overflows a double, found while reading the value the stack points at.
    throw InputError(source + ": " + path_of(stack, true) + ": " + plain(e));
  }
}

}  // namespace readbench
