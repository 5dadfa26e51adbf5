// CPU time of the calling process, and the minimum over repeated runs: on a shared machine the
// minimum is the run least disturbed by others (the work is deterministic, noise only adds).
#pragma once

#include <functional>

namespace tether::bench {

// CPU seconds consumed by this process so far (CLOCK_PROCESS_CPUTIME_ID).
double ProcessCpuSeconds();
// CPU seconds consumed by the calling thread so far (CLOCK_THREAD_CPUTIME_ID).
double ThreadCpuSeconds();
// Monotonic wall-clock seconds (CLOCK_MONOTONIC).
double WallSeconds();

// Runs `work` `repeats` times (≥ 1) and returns the smallest process CPU time of one run [s].
double MinCpuSeconds(int repeats, const std::function<void()>& work);

// Thread CPU seconds per call of `call`: batches of doubling size until one batch takes
// `min_seconds`, then the minimum per-call time over `repeats` (≥ 1) such batches.
double SecondsPerCall(const std::function<void()>& call, double min_seconds, int repeats);

}  // namespace tether::bench
