#include "common/work_precision.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tether::bench {

std::optional<CpuEstimate> CpuAtError(const std::vector<WorkPoint>& curve, double error) {
  std::vector<WorkPoint> points;
  for (const WorkPoint& p : curve) {
    if (p.ok && p.end_error > 0.0 && p.cpu_seconds > 0.0) points.push_back(p);
  }
  std::sort(points.begin(), points.end(),
            [](const WorkPoint& a, const WorkPoint& b) { return a.end_error > b.end_error; });
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    const WorkPoint& coarse = points[i];
    const WorkPoint& fine = points[i + 1];
    if (error > coarse.end_error || error < fine.end_error) continue;
    const double span = std::log(coarse.end_error) - std::log(fine.end_error);
    if (span == 0.0) return CpuEstimate{std::min(coarse.cpu_seconds, fine.cpu_seconds), false};
    // log cpu linear in log error between the bracketing points.
    const double s = (std::log(coarse.end_error) - std::log(error)) / span;
    return CpuEstimate{
        std::exp((1.0 - s) * std::log(coarse.cpu_seconds) + s * std::log(fine.cpu_seconds)), false};
  }
  std::optional<CpuEstimate> cheapest;
  for (const WorkPoint& p : points) {
    if (p.end_error == error) return CpuEstimate{p.cpu_seconds, false};
    if (p.end_error < error && (!cheapest || p.cpu_seconds < cheapest->cpu_seconds)) {
      cheapest = CpuEstimate{p.cpu_seconds, true};
    }
  }
  return cheapest;
}

double BestError(const std::vector<WorkPoint>& curve) {
  double best = std::numeric_limits<double>::infinity();
  for (const WorkPoint& p : curve) {
    if (p.ok) best = std::min(best, p.end_error);
  }
  return best;
}

}  // namespace tether::bench
