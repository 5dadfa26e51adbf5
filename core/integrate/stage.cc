#include "integrate/stage.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace tether::integrate {

StepStatus EvaluateStage(OdeSystem& system, double t, std::span<const double> x,
                         std::span<double> dxdt, int* evaluations) {
  ++*evaluations;
  if (!system.Evaluate(t, x, dxdt)) return StepStatus::kRhsFailed;
  return AllFinite(dxdt) ? StepStatus::kAccepted : StepStatus::kNonFinite;
}

AttemptFailure FailureOf(StepStatus status) {
  return status == StepStatus::kRhsFailed ? AttemptFailure::kRhsFailed
                                          : AttemptFailure::kNonFinite;
}

StepResult Failed(StepResult result, double h) {
  result.failure = FailureOf(result.status);
  result.h_failed = h;
  return result;
}

bool AllFinite(std::span<const double> values) {
  bool finite = true;  // no early exit: one branch instead of one per value
  for (double v : values) finite &= std::isfinite(v);
  return finite;
}

double MinStep(const StepperOptions& options, double t) {
  return options.min_step_relative * std::max(1.0, std::abs(t));
}

bool StepIsAboveFloor(const StepperOptions& options, double t, double h) {
  return std::isfinite(h) && h >= MinStep(options, t);
}

void CheckTolerances(std::string_view stepper, const StepperOptions& options, std::size_t n) {
  const std::size_t given = options.atol_per_component.size();
  if (given == 0 || given == n) return;
  std::fprintf(stderr, "tether::integrate: %.*s got %zu atol_per_component values for size %zu\n",
               static_cast<int>(stepper.size()), stepper.data(), given, n);
  std::abort();
}

void CheckSizes(std::string_view stepper, std::size_t n, std::size_t x_size,
                std::size_t x_new_size) {
  if (x_size == n && x_new_size == n) return;
  std::fprintf(stderr,
               "tether::integrate: %.*s::Step got x of size %zu and x_new of size %zu after "
               "Resize(%zu)\n",
               static_cast<int>(stepper.size()), stepper.data(), x_size, x_new_size, n);
  std::abort();
}

}  // namespace tether::integrate
