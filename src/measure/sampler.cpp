#include "measure/sampler.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "core/elapsed.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"

namespace readbench {

namespace {
using Clock = std::chrono::steady_clock;
// The summary over every round's samples. Too few clean samples to stand alone: the disturbed
// ones are kept too, so the point is not empty, and the point says so.
void summarize_rounds(Measurement& m, int floor_samples) {
  m.disturbed = int(m.disturbed_samples.size());
  m.contended = int(m.clean_samples.size()) < floor_samples && !m.disturbed_samples.empty();
  std::vector<double> kept = m.clean_samples;
  if (m.contended) kept.insert(kept.end(), m.disturbed_samples.begin(), m.disturbed_samples.end());
  m.per_call = summarize(std::move(kept));
}

}  // namespace

int calls_per_sample(double resolution_s, double call_s) {
  const double target = 1000.0 * resolution_s;
  if (!(call_s > 0)) return 1;
  return int(std::clamp(std::ceil(target / call_s), 1.0, 1e6));
}

void validate(const SamplingPolicy& p) {
  if (!(p.noise_target > 0))
    throw InputError("--noise must be positive, got " + std::to_string(p.noise_target));
  if (!(p.budget_s > 0))
    throw InputError("--budget must be positive, got " + std::to_string(p.budget_s));
  if (p.min_samples < 1 || p.min_samples > p.max_samples)
    throw InputError("--min-samples must be between 1 and " + std::to_string(p.max_samples) +
                     ", got " + std::to_string(p.min_samples));
}

double warm_up(Backend& backend, Path path, const SamplingPolicy& policy) {
  const auto start = Clock::now();
  double call_s = 1e30;
  for (int i = 0; i < 3 || seconds_since(start) < policy.warmup_s; ++i) {
    throw_if_interrupted();
    call_s = std::min(call_s, backend.time_calls(path, 1, CacheState::hot));
    if (seconds_since(start) > policy.budget_s / 4) break;
  }
  return call_s;
}

int warm_up_and_batch(Backend& backend, Path path, const SamplingPolicy& policy) {
  const double call_s = warm_up(backend, path, policy);
  int calls = calls_per_sample(backend.timer_resolution_s(), call_s);
  // A lone call can be slower than one in a batch (a GPU launch on an idle device): estimate
  // again the way samples run, so a sample really spans 1000 ticks.
  if (calls > 1) {
    const double batched = backend.time_calls(path, calls, CacheState::hot) / calls;
    calls = std::max(calls, calls_per_sample(backend.timer_resolution_s(), batched));
  }
  return calls;
}

Measurement measure_point(Backend& backend, Path path, const SamplingPolicy& policy) {
  const auto start = Clock::now();
  Measurement m;
  m.calls_per_sample = warm_up_and_batch(backend, path, policy);

  // Disturbed samples are set aside and re-taken: the stopping rule sees clean ones only.
  std::vector<double> samples, disturbed;
  const auto sampling_start = Clock::now();
  const int floor_samples = std::min(3, policy.min_samples);
  int next_check = 0;
  while (int(samples.size() + disturbed.size()) < policy.max_samples) {
    throw_if_interrupted();  // between samples: the point being sampled is dropped
    const double s =
        backend.time_calls(path, m.calls_per_sample, policy.cache) / m.calls_per_sample;
    (backend.last_sample_disturbed() ? disturbed : samples).push_back(s);
    const int n = int(samples.size());
    // The noise is re-estimated as the count grows by a tenth, not after every sample, so
    // the rule stays cheap with thousands of samples.
    if (n >= policy.min_samples && n >= next_check &&
        seconds_since(sampling_start) >= policy.min_time_s) {
      next_check = n + std::max(1, n / 10);
      if (summarize(samples).noise <= policy.noise_target) {
        m.converged = true;
        break;
      }
    }
    // Disturbed samples count toward the floor too, so a busy machine cannot stretch the budget.
    if (n + int(disturbed.size()) >= floor_samples && seconds_since(start) >= policy.budget_s)
      break;
  }
  // A signal during the last sample may have cut its cache flush short (stream_bandwidth.cpp).
  throw_if_interrupted();
  m.first_round_s = seconds_since(sampling_start);
  m.clean_samples = std::move(samples);
  m.disturbed_samples = std::move(disturbed);
  summarize_rounds(m, floor_samples);
  return m;
}

void sample_again(Backend& backend, Path path, const SamplingPolicy& policy, double slice_s,
                  Measurement& m) {
  const auto start = Clock::now();
  int clean = 0;
  while (clean < 1 || seconds_since(start) < slice_s) {
    throw_if_interrupted();
    const double s =
        backend.time_calls(path, m.calls_per_sample, policy.cache) / m.calls_per_sample;
    const bool disturbed = backend.last_sample_disturbed();
    (disturbed ? m.disturbed_samples : m.clean_samples).push_back(s);
    clean += disturbed ? 0 : 1;
    if (seconds_since(start) >= 2 * slice_s) break;  // a busy machine does not stretch the round
  }
  throw_if_interrupted();
  if (clean > 0) ++m.rounds;  // a round that kept nothing does not count
  summarize_rounds(m, std::min(3, policy.min_samples));
}

}  // namespace readbench
