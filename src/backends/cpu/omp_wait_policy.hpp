#pragma once
// How idle OpenMP workers wait for the next parallel region. libgomp reads OMP_WAIT_POLICY and
// GOMP_SPINCOUNT once, when it is loaded (before main), and offers no call to change them
// later; so readbench applies its default by setting the variable and re-executing itself.
#include <string>

namespace readbench::cpu {

// readbench's default: a bounded spin, GOMP_SPINCOUNT=10000 (docs/measurements.md has
// the numbers): workers spin through the microsecond gaps inside a call and sleep through the
// milliseconds between samples, so a neighbour gets the core back.
inline constexpr const char* kWaitPolicyVariable = "GOMP_SPINCOUNT";
inline constexpr const char* kDefaultWaitPolicy = "10000";
// Set beside the default so the re-executed process knows the policy was readbench's choice.
inline constexpr const char* kDefaultedMarker = "READBENCH_DEFAULT_WAIT_POLICY";

// Whether the user chose a wait policy: either variable set, even to an empty value.
bool user_chose_wait_policy(const char* omp_wait_policy, const char* gomp_spincount);

// Sets the default and re-executes this binary (/proc/self/exe) with the same arguments when the
// user has not chosen. Returns only when nothing was re-executed (a choice was made, or exec
// failed: then libgomp's own default stays, and wait_policy_in_effect says so).
void apply_default_wait_policy(char** argv);

// The policy for the report, from the variables and the marker, e.g. "passive (default)",
// "GOMP_SPINCOUNT=10000 (default)", "active (OMP_WAIT_POLICY)", "GOMP_SPINCOUNT=100",
// "libgomp default".
std::string describe_wait_policy(const char* omp_wait_policy, const char* gomp_spincount,
                                 const char* defaulted_marker);
std::string wait_policy_in_effect();

}  // namespace readbench::cpu
