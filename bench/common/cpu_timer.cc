#include "common/cpu_timer.h"

#include <time.h>

#include <algorithm>
#include <cstddef>
#include <limits>

namespace tether::bench {
namespace {

double Seconds(clockid_t clock) {
  timespec now{};
  clock_gettime(clock, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

// Runs `measure` with `bytes` more of stack in use below this frame.
[[gnu::noinline]] double WithStackMovedBy(std::size_t bytes,
                                          const std::function<double()>& measure) {
  auto* pad = static_cast<volatile char*>(__builtin_alloca(bytes + 1));
  pad[0] = 0;  // the block is used, so it is allocated
  const double seconds = measure();
  pad[bytes] = 0;  // and stays live across the measurement
  return seconds;
}

}  // namespace

double ProcessCpuSeconds() { return Seconds(CLOCK_PROCESS_CPUTIME_ID); }
double ThreadCpuSeconds() { return Seconds(CLOCK_THREAD_CPUTIME_ID); }
double WallSeconds() { return Seconds(CLOCK_MONOTONIC); }

double MinCpuSeconds(int repeats, const std::function<void()>& work) {
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < std::max(repeats, 1); ++r) {
    const double start = ProcessCpuSeconds();
    work();
    best = std::min(best, ProcessCpuSeconds() - start);
  }
  return best;
}

double SecondsPerCall(const std::function<void()>& call, double min_seconds, int repeats) {
  long batch = 1;
  for (;;) {
    const double start = ThreadCpuSeconds();
    for (long i = 0; i < batch; ++i) call();
    if (ThreadCpuSeconds() - start >= min_seconds || batch > (1L << 40)) break;
    batch *= 2;
  }
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < std::max(repeats, 1); ++r) {
    const double start = ThreadCpuSeconds();
    for (long i = 0; i < batch; ++i) call();
    best = std::min(best, (ThreadCpuSeconds() - start) / static_cast<double>(batch));
  }
  return best;
}

double SecondsPerCallAtStackLayout(int layout, const std::function<void()>& call,
                                   double min_seconds, int repeats) {
  const auto bytes = static_cast<std::size_t>(std::max(layout, 0) * kStackLayoutStride);
  return WithStackMovedBy(bytes, [&] { return SecondsPerCall(call, min_seconds, repeats); });
}

}  // namespace tether::bench
