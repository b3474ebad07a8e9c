#pragma once
// The measurement of one (backend, path, length): warm-up, batching of calls too short for the
// timer, then samples until the noise target is met or the per-point budget is spent.
#include "backends/backend.hpp"
#include "core/statistics.hpp"

namespace readbench {

struct SamplingPolicy {
  double noise_target = 0.01;  // relative standard error of the median (statistics.hpp)
  int min_samples = 10;
  int max_samples = 10000;
  double min_time_s = 0.05;  // sampling time before the noise target may stop it
  double budget_s = 1.0;     // per point, warm-up and flushes included
  double warmup_s = 0.02;
  CacheState cache = CacheState::cold;
};

struct Measurement {
  SampleSummary per_call;  // seconds per call
  int calls_per_sample = 1;
  bool converged = false;  // noise target met before the budget ran out
  // Samples the backend judged disturbed (its threads lost their cores): discarded and
  // re-taken within the budget, and counted here whether or not they were kept.
  int disturbed = 0;
  // The budget ran out before enough clean samples: the disturbed ones are in per_call too.
  bool contended = false;
  // Rounds this point was sampled in (interleaved rounds, sweep.cpp), and how long the first
  // round's sampling took (warm-up and calibration left out): a later round's share of time.
  int rounds = 1;
  double first_round_s = 0;
  // Per call, in the order taken: what per_call summarizes, kept so later rounds can add to it.
  std::vector<double> clean_samples, disturbed_samples;
};

// Calls per sample so one sample spans at least 1000 timer ticks.
int calls_per_sample(double resolution_s, double call_s);

// Throws InputError on a policy that cannot work (non-positive budget or target).
void validate(const SamplingPolicy& p);

// Untimed calls on a newly prepared workload (first-touch, code paths and clocks settle): at
// least three and warmup_s, at most a quarter of the budget after the first. Returns the
// fastest call, in seconds.
double warm_up(Backend& backend, Path path, const SamplingPolicy& policy);

// warm_up, then the calls a sample batches so it spans 1000 timer ticks (calls_per_sample),
// estimated again on a batch of that many.
int warm_up_and_batch(Backend& backend, Path path, const SamplingPolicy& policy);
// Throws Interrupted (core/interrupt.hpp) between calls once a signal asks the run to stop.
Measurement measure_point(Backend& backend, Path path, const SamplingPolicy& policy);

// Another round at a point measured before, on the workload it was measured on: samples of the
// same batch for at least `slice_s` seconds and at least one clean sample (disturbed ones are
// re-taken until 2 * slice_s), added to `m`, whose summary is then taken over every round.
void sample_again(Backend& backend, Path path, const SamplingPolicy& policy, double slice_s,
                  Measurement& m);

}  // namespace readbench
