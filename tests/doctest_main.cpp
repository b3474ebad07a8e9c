// The test runner: doctest's own main, except that a run whose filters select no test case
// fails. CTest runs each case by name, and a name the filter cannot match (CMake splits test
// names at ';') would otherwise pass without running anything.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

namespace {

int selected = -1;  // test cases the filters let through; -1 until a run ends

struct SelectedCount : doctest::IReporter {
  explicit SelectedCount(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& s) override {
    selected = int(s.numTestCasesPassingFilters);
  }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

REGISTER_LISTENER("selected_count", 1, SelectedCount);

}  // namespace

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int status = context.run();
  if (context.shouldExit() || status != 0) return status;
  if (selected == 0) {
    std::fputs("no test case matched the filters: nothing ran\n", stderr);
    return 1;
  }
  return 0;
}
