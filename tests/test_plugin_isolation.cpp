// What a plugin cannot do to readbench's process: a file that is not a library of this machine,
// or a truncated one (SIGBUS inside dlopen), is refused before dlopen; a constructor that
// crashes, exits or hangs does so in a child process; what a plugin prints reaches stderr, not
// readbench's stdout; an exit() while a plugin is loaded ends the process with status 5. Cases
// that need a process of their own (its fd 1, its exit) fork one.
#include <doctest/doctest.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>

#include "measure/sweep.hpp"
#include "plugins/exit_guard.hpp"
#include "plugins/plugin.hpp"
#include "report/standard_output.hpp"
#include "test_support.hpp"

using namespace readbench;
using readbench::test::error_message;
using readbench::test::make_shape;
using readbench::test::TempDir;

namespace {

std::string faulty(const std::string& fault) {
  return std::string(READBENCH_TEST_PLUGIN_DIR) + "/libfaulty_" + fault + ".so";
}

std::string read_all(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// `dir`/`name` holding the naive plugin's bytes after `edit`; returns its path.
std::string edited_copy(const TempDir& dir, const std::string& name,
                        const std::function<void(std::string&)>& edit) {
  std::string bytes = read_all(READBENCH_TEST_NAIVE_PLUGIN);
  REQUIRE(bytes.size() > 12000);
  edit(bytes);
  const std::string path = dir / name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

template <class T>
void poke(std::string& bytes, std::size_t offset, T value) {
  std::memcpy(bytes.data() + offset, &value, sizeof value);
}

std::string load_error(const std::string& file) {
  return error_message([&] { Plugin::load(file); });
}

// Runs `body` in a child process and returns its wait status; the child ends with _exit(99)
// if `body` returns.
int in_child(const std::function<void()>& body) {
  std::cout.flush();  // doctest's buffered output is not the child's to write again
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    try {
      body();
    } catch (...) {
      ::_exit(98);
    }
    ::_exit(99);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return status;
}

// A short CPU sweep of one f32 plugin beside nothing else.
SweepConfig sweep_of(const std::shared_ptr<const Plugin>& plugin) {
  SweepConfig c;
  c.backend = BackendChoice::cpu;
  c.shape = make_shape(1, 2, 1, 64, 16);
  c.dtype = DType::f32;
  c.auto_lengths = false;
  c.lengths = {16, 64};
  c.threads = 1;
  c.sampling.cache = CacheState::hot;
  c.sampling.budget_s = 0.01;
  c.sampling.min_samples = 3;
  c.sampling.warmup_s = 0.001;
  c.plugins = {plugin};
  c.paths = {Path::of_plugin(plugin->name())};
  return c;
}

}  // namespace

TEST_CASE("a truncated library is refused before dlopen, naming the file and what it lacks") {
  TempDir dir;
  const std::string whole = read_all(READBENCH_TEST_NAIVE_PLUGIN);
  // The first 1,000 to 12,000 bytes of a good library made dlopen die of SIGBUS.
  for (std::size_t size : {std::size_t(1000), std::size_t(4096), std::size_t(12000),
                           whole.size() / 2, whole.size() - 1}) {
    CAPTURE(size);
    const std::string file = edited_copy(dir, "cut" + std::to_string(size) + ".so",
                                         [&](std::string& b) { b.resize(size); });
    const std::string message = load_error(file);
    CHECK(message.starts_with("cannot load plugin " + file +
                              ": truncated or damaged: its ELF headers place "));
    CHECK(message.ends_with(", past the end of the file (" + std::to_string(size) + " bytes)"));
  }
  const std::string tiny = edited_copy(dir, "tiny.so", [](std::string& b) { b.resize(40); });
  CHECK(load_error(tiny) == "cannot load plugin " + tiny +
                                ": truncated: 40 bytes, shorter than an ELF header (64 bytes)");
}

TEST_CASE("a file that is not a 64-bit shared library of this machine is refused before dlopen") {
  TempDir dir;
  const std::string text = dir / "text.so";
  std::ofstream(text) << "not a library\n";
  CHECK(load_error(text) == "cannot load plugin " + text +
                                ": not an ELF shared library (it does not start with the ELF "
                                "magic number)");
  const std::string exec = edited_copy(dir, "exec.so", [](std::string& b) {
    poke<std::uint16_t>(b, offsetof(Elf64_Ehdr, e_type), ET_EXEC);
  });
  CHECK(load_error(exec) ==
        "cannot load plugin " + exec + ": an executable (ET_EXEC), not a shared library (ET_DYN)");
  const std::string object = edited_copy(dir, "object.so", [](std::string& b) {
    poke<std::uint16_t>(b, offsetof(Elf64_Ehdr, e_type), ET_REL);
  });
  CHECK(
      load_error(object).ends_with("an object file (ET_REL), not linked into a library, not a "
                                   "shared library (ET_DYN)"));
#if defined(__x86_64__)
  const std::uint16_t other = EM_AARCH64;
  const std::string expected = "built for AArch64; this readbench runs on x86-64";
#else
  const std::uint16_t other = EM_X86_64;
  const std::string expected = "built for x86-64; this readbench runs on AArch64";
#endif
  const std::string foreign = edited_copy(
      dir, "foreign.so", [&](std::string& b) { poke(b, offsetof(Elf64_Ehdr, e_machine), other); });
  CHECK(load_error(foreign) == "cannot load plugin " + foreign + ": " + expected);
  const std::string narrow =
      edited_copy(dir, "narrow.so", [](std::string& b) { b[EI_CLASS] = ELFCLASS32; });
  CHECK(load_error(narrow) ==
        "cannot load plugin " + narrow + ": a 32-bit ELF file; this readbench is 64-bit");
  const std::string swapped =
      edited_copy(dir, "swapped.so", [](std::string& b) { b[EI_DATA] = ELFDATA2MSB; });
  CHECK(load_error(swapped) == "cannot load plugin " + swapped +
                                   ": an ELF file of the other byte order; this readbench is "
                                   "little-endian");
  // A section table placed past the end by a damaged header, in a file of full length.
  const std::string damaged = edited_copy(dir, "damaged.so", [](std::string& b) {
    poke<std::uint64_t>(b, offsetof(Elf64_Ehdr, e_shoff), std::uint64_t(1) << 62);
  });
  const std::string broken = load_error(damaged);
  CHECK(broken.starts_with("cannot load plugin " + damaged +
                           ": truncated or damaged: its ELF headers place its section header "
                           "table ending at byte 46116860184"));
  CHECK(broken.ends_with(" past the end of the file (" +
                         std::to_string(read_all(READBENCH_TEST_NAIVE_PLUGIN).size()) + " bytes)"));
}

TEST_CASE("a library whose loading crashes, exits or hangs is refused, not loaded here") {
  const auto apart = " in a separate process, where it is loaded first; not loaded here";
  CHECK(load_error(faulty("crash_on_load")) ==
        "cannot load plugin " + faulty("crash_on_load") + ": loading it crashed (SIGSEGV)" + apart);
  // exit(0) in a constructor: the status is named, and this process is still here to say so.
  CHECK(load_error(faulty("exit_on_load")) == "cannot load plugin " + faulty("exit_on_load") +
                                                  ": loading it ended the process (exit status 0)" +
                                                  apart);
  CHECK(error_message([] { Plugin::load(faulty("hang_on_load"), 1.0); }) ==
        "cannot load plugin " + faulty("hang_on_load") + ": loading it did not finish within 1 s" +
            apart);
}

TEST_CASE("what a plugin prints reaches stderr, and readbench's stdout only what it writes") {
  TempDir dir;
  const std::string out = dir / "out", err = dir / "err";
  const int status = in_child([&] {
    // The child's own stdout and stderr, so that both can be read back.
    ::dup2(::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600), STDOUT_FILENO);
    ::dup2(::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600), STDERR_FILENO);
    const auto plugin = Plugin::load(faulty("print"));
    const RunResult run = run_sweep(sweep_of(plugin));
    write_stdout(run.results.at(0).points.size() == 2 ? "the report\n" : "no points\n");
    close_stdout();
    ::_exit(0);
  });
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(read_all(out) == "the report\n");
  const std::string printed = read_all(err);
  for (const char* line :
       {"faulty_print: printf in the constructor", "faulty_print: printf in prepare",
        "faulty_print: printf in run", "faulty_print: write(1) {not json"})
    CHECK(printed.find(line) != std::string::npos);
}

TEST_CASE("an exit or quick_exit from a plugin being timed ends the process with status 5") {
  for (const std::string fault : {"exit_later", "quick_exit_later"}) {
    CAPTURE(fault);
    TempDir dir;
    const std::string err = dir / "err";
    const int status = in_child([&] {
      ::dup2(::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600), STDERR_FILENO);
      run_sweep(sweep_of(Plugin::load(faulty(fault))));  // exit(0) on the fourth call of a state
    });
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == kPluginExitStatus);
    const std::string how = fault == "exit_later" ? "exit(0)" : "quick_exit()";
    CHECK(read_all(err) == "readbench: a plugin ended the process with " + how +
                               " (plugins loaded: " + faulty(fault) +
                               "); the run did not finish and wrote no report; exit status 5\n");
  }
}

TEST_CASE("once its plugins are unloaded, the process's own exit status stands") {
  const int status = in_child([] {
    { const auto plugin = Plugin::load(faulty("none")); }
    std::exit(3);
  });
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 3);
}
