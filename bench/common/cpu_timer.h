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

// SecondsPerCall measured with the stack moved down by `layout` × kStackLayoutStride bytes.
// A load whose address matches a recent store's in the low 12 bits waits for that store (4K
// aliasing), so the stack's offset within its page (set by the environment's size and
// address-space randomization, different in every run) can make short loops that mix stack
// and heap accesses 1.1–1.7× slower; timing a few layouts shows the typical run instead of
// one draw.
double SecondsPerCallAtStackLayout(int layout, const std::function<void()>& call,
                                   double min_seconds, int repeats);
// 33 × 16 bytes: 16-byte aligned, and 8 layouts cover a page's offsets evenly.
inline constexpr int kStackLayoutStride = 528;

}  // namespace tether::bench
