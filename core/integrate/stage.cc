#include "integrate/stage.h"

#include <algorithm>
#include <cmath>

namespace tether::integrate {

StepStatus EvaluateStage(OdeSystem& system, double t, std::span<const double> x,
                         std::span<double> dxdt, int* evaluations) {
  ++*evaluations;
  if (!system.Evaluate(t, x, dxdt)) return StepStatus::kRhsFailed;
  return AllFinite(dxdt) ? StepStatus::kAccepted : StepStatus::kNonFinite;
}

bool AllFinite(std::span<const double> values) {
  return std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
}

double MinStep(const StepperOptions& options, double t) {
  return options.min_step_relative * std::max(1.0, std::abs(t));
}

bool StepIsAboveFloor(const StepperOptions& options, double t, double h) {
  return std::isfinite(h) && h >= MinStep(options, t);
}

}  // namespace tether::integrate
