#pragma once
// An enum's words, one table per enum: printing and parsing both read it, so a word is spelled
// in one place and the list in an error message is always the list the parser accepts.
//
//   inline constexpr Named<Color> kColorNames[] = {{Color::red, "red"}, {Color::blue, "blue"}};
//   name_in(kColorNames, Color::red)  -> "red"
//   find_named(kColorNames, "blue")   -> Color::blue; "green" -> nullopt
//   names_of(kColorNames)             -> "red or blue"
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace readbench {

template <class E>
struct Named {
  E value;
  std::string_view name;
};

// "?" for a value the table lacks (tests pin every table complete).
template <class E, std::size_t N>
constexpr std::string_view name_in(const Named<E> (&table)[N], E value) {
  for (const Named<E>& n : table)
    if (n.value == value) return n.name;
  return "?";
}

template <class E, std::size_t N>
constexpr std::optional<E> find_named(const Named<E> (&table)[N], std::string_view name) {
  for (const Named<E>& n : table)
    if (n.name == name) return n.value;
  return std::nullopt;
}

// "a, b or c": the words for a message that lists what is accepted; `also` (a word a caller
// accepts beside the table's, such as "all") comes last.
template <class E, std::size_t N>
std::string names_of(const Named<E> (&table)[N], std::string_view also = {}) {
  const std::size_t count = N + (also.empty() ? 0 : 1);
  std::string out;
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0) out += i + 1 == count ? " or " : ", ";
    out += i < N ? table[i].name : also;
  }
  return out;
}

}  // namespace readbench
