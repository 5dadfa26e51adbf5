// Work–precision curves: (CPU time, error) points of one method over a range of tolerances or
// step sizes, compared by interpolation in log-log space (Hairer–Wanner's diagrams).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tether::bench {

struct WorkPoint {
  double setting = 0.0;     // the tolerance (adaptive) or the step size [s] (fixed step)
  bool ok = false;          // the run reached t_end
  double cpu_seconds = 0.0;  // minimum over repeats
  double end_error = 0.0;   // ‖(q, v) − reference‖∞ at t_end
  double max_residual = 0.0;  // largest ‖Φ‖∞ over the output points
  long steps = 0;
  std::string note;         // failure message when !ok
};

struct CpuEstimate {
  double cpu_seconds = 0.0;
  // True when every point of the curve is already more accurate than asked: cpu_seconds is
  // then the cheapest point's time, an upper bound of the time at exactly that error.
  bool upper_bound = false;
};

// CPU time at which the curve reaches `error`, interpolating log cpu linearly in log error
// between the two successful points that bracket it (sorted by error). nullopt if the curve
// never gets as accurate as `error`.
std::optional<CpuEstimate> CpuAtError(const std::vector<WorkPoint>& curve, double error);

// Smallest end error over the successful points (+∞ if none).
double BestError(const std::vector<WorkPoint>& curve);

}  // namespace tether::bench
