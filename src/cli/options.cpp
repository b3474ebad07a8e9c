#include "cli/options.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "core/errors.hpp"

namespace readbench::cli {

CLI::Validator not_negative() {
  return CLI::Validator(
      [](std::string& s) {
        return !s.empty() && s.front() == '-' ? "must not be negative, got " + s : std::string();
      },
      "NOT NEGATIVE");
}

std::optional<double> parse_fit_from(const std::string& text) {
  if (text == "auto") return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) ||
      v < 0)
    throw InputError("--fit-from must be auto or a finite length >= 0, got '" + text + "'");
  return v;
}

CLI::Validator output_path() {
  return CLI::Validator(
      [](std::string& s) {
        return s.empty() ? std::string("an output path is empty") : std::string();
      },
      "FILE");
}

void add_shape_options(CLI::App* app, Shape& s) {
  app->add_option("-b,--batch", s.batch, "Sequences B")->capture_default_str();
  app->add_option("--q-heads", s.q_heads, "Query heads Hq")->capture_default_str();
  app->add_option("--kv-heads", s.kv_heads, "KV heads Hkv (Hq must be a multiple)")
      ->capture_default_str();
  app->add_option("--head-dim", s.head_dim, "Head dimension D")->capture_default_str();
  app->add_option("--block-size", s.block_size, "Tokens per cache block S")->capture_default_str();
}

std::string read_input(const std::string& path) {
  if (path == "-") {
    std::ostringstream os;
    os << std::cin.rdbuf();
    return os.str();
  }
  // Opening a directory succeeds; reading it throws a library error that names no file.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError("cannot read '" + path + "': it is a directory");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError("cannot read '" + path + "': " + std::strerror(errno));
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) throw InputError("cannot read '" + path + "': read error");
  return text;
}

Report read_report(const std::string& path) {
  return parse_report(read_input(path), path == "-" ? "stdin" : path);
}

std::vector<Report> read_reports(const std::vector<std::string>& paths) {
  if (std::count(paths.begin(), paths.end(), "-") > 1)
    throw InputError("stdin ('-') is named more than once: it can be read only once");
  std::vector<Report> reports;
  for (const std::string& path : paths) reports.push_back(read_report(path));
  return reports;
}

ProgressLine::ProgressLine() : enabled_(::isatty(STDERR_FILENO) == 1) {}

void ProgressLine::show(std::string_view message) {
  if (!enabled_) return;
  std::cerr << "\r\033[K" << message << std::flush;
  shown_ = true;
}

void ProgressLine::done() {
  if (enabled_ && shown_) std::cerr << "\r\033[K" << std::flush;
  shown_ = false;
}

}  // namespace readbench::cli
