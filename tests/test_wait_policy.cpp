// The OpenMP wait policy readbench applies: when the user's choice wins, and how the policy in
// effect is described for the report. Pure functions over the variables' values.
#include <doctest/doctest.h>

#include <string>

#include "backends/cpu/omp_wait_policy.hpp"

using namespace readbench::cpu;

TEST_CASE("either wait variable set, even empty, is the user's choice") {
  CHECK_FALSE(user_chose_wait_policy(nullptr, nullptr));
  CHECK(user_chose_wait_policy("active", nullptr));
  CHECK(user_chose_wait_policy(nullptr, "10000"));
  CHECK(user_chose_wait_policy("", nullptr));
}

TEST_CASE("readbench's own default is described as the default") {
  CHECK(describe_wait_policy(nullptr, kDefaultWaitPolicy, "1") ==
        "GOMP_SPINCOUNT=" + std::string(kDefaultWaitPolicy) + " (default)");
  // A marker left beside another value cannot claim it as the default.
  CHECK(describe_wait_policy(nullptr, "5", "1") == "GOMP_SPINCOUNT=5");
  CHECK(describe_wait_policy("passive", kDefaultWaitPolicy, "1") ==
        "passive (OMP_WAIT_POLICY), GOMP_SPINCOUNT=10000");
}

TEST_CASE("a policy from the environment names its variables") {
  CHECK(describe_wait_policy("active", nullptr, nullptr) == "active (OMP_WAIT_POLICY)");
  CHECK(describe_wait_policy(nullptr, "10000", nullptr) == "GOMP_SPINCOUNT=10000");
  CHECK(describe_wait_policy("active", "10000", nullptr) ==
        "active (OMP_WAIT_POLICY), GOMP_SPINCOUNT=10000");
  // The marker alone cannot claim a spin count the user set.
  CHECK(describe_wait_policy("passive", "10", "1") ==
        "passive (OMP_WAIT_POLICY), GOMP_SPINCOUNT=10");
}

TEST_CASE("no variable set is libgomp's own default") {
  CHECK(describe_wait_policy(nullptr, nullptr, nullptr) == "libgomp default");
  CHECK(describe_wait_policy(nullptr, nullptr, "1") == "libgomp default");
}
