#include "simulate/switch_detection.h"

#include <algorithm>
#include <cmath>

namespace tether::simulate {

bool SwitchOptions::IsValid(std::string* why) const {
  std::string reason;
  if (!(time_tolerance > 0.0)) {
    reason = "SwitchOptions::time_tolerance = " + std::to_string(time_tolerance) +
             "; must be > 0";
  } else if (subintervals < 1) {
    reason = "SwitchOptions::subintervals = " + std::to_string(subintervals) + "; must be >= 1";
  } else if (max_iterations < 1) {
    reason = "SwitchOptions::max_iterations = " + std::to_string(max_iterations) +
             "; must be >= 1";
  }
  if (why != nullptr) *why = reason;
  return reason.empty();
}

std::string_view SwitchDirectionName(SwitchDirection direction) {
  return direction == SwitchDirection::kActivated ? "activated" : "deactivated";
}

std::optional<SwitchEvent> FindEarliestSwitch(const Indicators& indicators, std::size_t count,
                                              std::span<const SwitchDirection> directions,
                                              double t0, double t1, const SwitchOptions& options,
                                              std::span<double> work) {
  if (count == 0 || !(t1 > t0)) return std::nullopt;
  std::span<double> left = work.subspan(0, count);
  std::span<double> right = work.subspan(count, count);
  const std::span<double> probe = work.subspan(2 * count, count);
  indicators(t0, left);
  const int pieces = options.subintervals;
  double a = t0;
  for (int piece = 1; piece <= pieces; ++piece) {
    const double b = piece == pieces ? t1 : t0 + (t1 - t0) * piece / pieces;
    indicators(b, right);
    std::optional<SwitchEvent> earliest;
    for (std::size_t i = 0; i < count; ++i) {
      if (!(left[i] > 0.0 && right[i] <= 0.0)) continue;
      const auto gi = [&](double t) {
        indicators(t, probe);
        return probe[i];
      };
      const double t = LocateSignChange(gi, a, b, left[i], right[i], options);
      if (!earliest || t < earliest->t) earliest = SwitchEvent{t, i, directions[i] == SwitchDirection::kActivated};
    }
    if (earliest) return earliest;
    std::swap(left, right);
    a = b;
  }
  return std::nullopt;
}

bool ChatteringGuard::Record(double t) {
  times_.push_back(t);
  while (!times_.empty() && times_.front() < t - window_) times_.pop_front();
  return static_cast<int>(times_.size()) <= max_;
}

}  // namespace tether::simulate
