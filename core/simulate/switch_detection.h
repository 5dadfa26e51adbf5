// Switch detection for projected dynamical systems (shared/seeds 003, FESD): a constraint
// becomes active when c_i(x(t)) reaches 0 along a free step, inactive when its multiplier
// μ_i(x(t)) of the sliding dynamics reaches 0 (equivalently, for one active constraint, the
// free flow turns inward: ∇c_i·f > 0). Both are sign changes of an indicator g_i(t) that is
// positive while nothing switches, evaluated on a step's dense output.
//
// Location: the step [t0, t1] is cut into `subintervals` equal pieces; in the first piece
// where some g_i goes from > 0 to ≤ 0 the root is bracketed and refined by the Illinois
// variant of regula falsi (Dowell & Jarratt 1971: superlinear, order ≈ 1.44, never leaves the
// bracket) until the bracket is shorter than time_tolerance. The earliest root over all
// indicators is the event; its time is the bracket end on the switched side, so the state
// there already satisfies the new mode's condition to within the location tolerance.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tether/simulate/simulation.h"

namespace tether::simulate {

struct SwitchOptions {
  // A switch time is located to within this bracket length [s]. Tie it to the step accuracy:
  // a location error δt costs O(δt) state error (tangential switches O(δt²)). > 0.
  double time_tolerance = 1e-12;
  // Pieces the step is cut into when looking for a sign change (a change that reverts inside
  // one piece is missed). ≥ 1.
  int subintervals = 4;
  // Illinois iterations before the bracket is accepted as is. ≥ 1.
  int max_iterations = 200;

  bool IsValid(std::string* why) const;
};

enum class SwitchDirection { kActivated, kDeactivated };
std::string_view SwitchDirectionName(SwitchDirection direction);  // "activated", "deactivated"

// g ← the indicators at time t (one per constraint; a switch is g_i going from > 0 to ≤ 0).
using Indicators = std::function<void(double t, std::span<double> g)>;

// Root of a scalar g (any callable double(double)) on [a, b] with g(a) > 0 ≥ g(b), by
// Illinois; returns a time in [root, root + tolerance] where g ≤ 0 (the switched side).
// A template rather than a std::function: the caller's lambda captures more than a
// std::function holds without allocating, and this runs inside the step loop.
template <class G>
double LocateSignChange(G&& g, double a, double b, double ga, double gb,
                        const SwitchOptions& options) {
  // Invariant: ga > 0 ≥ gb. Illinois halves the retained end's value when the same end is
  // kept twice, which prevents regula falsi's one-sided stagnation.
  int kept = 0;  // +1: a kept last time, −1: b kept last time
  for (int iteration = 0; iteration < options.max_iterations; ++iteration) {
    if (b - a <= options.time_tolerance) break;
    double t = b - gb * (b - a) / (gb - ga);
    // Stay strictly inside; fall back to bisection if the secant lands on an end.
    if (!(t > a && t < b)) t = 0.5 * (a + b);
    const double gt = g(t);
    if (gt > 0.0) {
      a = t;
      ga = gt;
      if (kept == -1) gb *= 0.5;
      kept = -1;
    } else {
      b = t;
      gb = gt;
      if (kept == 1) ga *= 0.5;
      kept = 1;
    }
  }
  return b;
}

// The earliest switch in (t0, t1]. `directions[i]` says what a sign change of g_i means.
// Indicators ≤ 0 already at t0 are ignored (no crossing inside the step). `work` holds at
// least 3·count doubles (no allocation per step).
std::optional<SwitchEvent> FindEarliestSwitch(const Indicators& indicators, std::size_t count,
                                              std::span<const SwitchDirection> directions,
                                              double t0, double t1, const SwitchOptions& options,
                                              std::span<double> work);

// Chattering guard: counts switching instants in a sliding time window; Record returns false
// once more than max_switches fall within `window` seconds, which the driver reports and stops
// on. The caller records an instant once however many constraints switch at it.
class ChatteringGuard {
 public:
  ChatteringGuard(double window, int max_switches) : window_(window), max_(max_switches) {}
  bool Record(double t);
  [[nodiscard]] int count_in_window() const { return static_cast<int>(times_.size()); }

 private:
  double window_;
  int max_;
  std::deque<double> times_;
};

}  // namespace tether::simulate
