#pragma once
// How idle OpenMP workers wait for the next parallel region. libgomp reads OMP_WAIT_POLICY and
// GOMP_SPINCOUNT once, when it is loaded (before main), and offers no call to change them
// later; so readbench applies its default by setting the variable and re-executing itself.
#include <string>

namespace readbench::cpu {

// readbench's default: OMP_WAIT_POLICY=passive (bench/cpu/WAIT_POLICY.md has the numbers).
inline constexpr const char* kWaitPolicyVariable = "OMP_WAIT_POLICY";
inline constexpr const char* kDefaultWaitPolicy = "passive";
// Set beside the default so the re-executed process knows the policy was readbench's choice.
inline constexpr const char* kDefaultedMarker = "READBENCH_DEFAULT_WAIT_POLICY";

// Whether the user chose a wait policy: either variable set, even to an empty value.
bool user_chose_wait_policy(const char* omp_wait_policy, const char* gomp_spincount);

// Sets the default and re-executes this binary (/proc/self/exe) with the same arguments when the
// user has not chosen. Returns only when nothing was re-executed (a choice was made, or exec
// failed: then libgomp's own default stays, and wait_policy_in_effect says so).
void apply_default_wait_policy(char** argv);

// The policy for the report, from the variables and the marker, e.g. "passive (default)",
// "active (OMP_WAIT_POLICY)", "GOMP_SPINCOUNT=10000", "libgomp default".
std::string describe_wait_policy(const char* omp_wait_policy, const char* gomp_spincount,
                                 const char* defaulted_marker);
std::string wait_policy_in_effect();

}  // namespace readbench::cpu
