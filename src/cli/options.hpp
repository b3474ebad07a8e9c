#pragma once
// Options several subcommands share.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/shape.hpp"

namespace readbench::cli {

// The rules of every numeric option, in one place. Each is checked on the option's text before
// CLI11 converts it: CLI11 saturates an integer that overflows 64 bits, wraps a negative one into
// an unsigned option, reads an empty value as 0 and takes inf, nan and 1e309 as numbers. Each
// *_problem function returns "" for an acceptable text and otherwise why not, naming the value;
// as a validator CLI11 puts the option's name in front ("--seed: ...").
enum class NumberBound { finite, non_negative, positive };
std::string integer_problem(const std::string& text, std::int64_t lo, std::int64_t hi);
std::string seed_problem(const std::string& text);  // any unsigned 64-bit value
std::string number_problem(const std::string& text, NumberBound bound);

CLI::Validator integer_in(std::int64_t lo, std::int64_t hi);
CLI::Validator seed_value();
CLI::Validator finite_number(NumberBound bound);
// --threads: 0 (every CPU) up to max_threads(); more would only oversubscribe the cores, and
// OpenMP runtimes hang or crash on hundreds of thousands of threads.
int max_threads();
CLI::Validator thread_count();
// --threads, checked by thread_count(), default 0.
void add_threads_option(CLI::App* app, int& threads);

// "auto" (empty: the fit picks its region) or a length >= 0. Throws InputError naming the value.
std::optional<double> parse_fit_from(const std::string& text);
// --rounds: "auto" (empty) or a whole number from 1 to kMaxRounds.
std::optional<int> parse_rounds(const std::string& text);

// Refuses an empty output path: `--json "$UNSET"` would otherwise read as "no report" and
// drop it silently.
CLI::Validator output_path();

// --plugin FILE (repeatable) and --plugin-timeout SECONDS; `plugin_help` says what a plugin
// does for the subcommand.
void add_plugin_options(CLI::App* app, std::vector<std::string>& files, double& timeout_s,
                        const std::string& plugin_help);

// The comma-separated items of `text`: "a,b" gives {"a", "b"}, "" gives {""}.
std::vector<std::string> comma_items(const std::string& text);

// --batch, --q-heads, --kv-heads, --head-dim, --block-size with their defaults and bounds.
void add_shape_options(CLI::App* app, Shape& shape);

}  // namespace readbench::cli
