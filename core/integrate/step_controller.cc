#include "integrate/step_controller.h"

#include <algorithm>
#include <cmath>

#include "integrate/stage.h"

namespace tether::integrate {

double StepFactor(double err, int q, const StepperOptions& options) {
  if (!(err > 0.0)) return options.max_factor;
  const double factor = options.safety * std::pow(err, -1.0 / (q + 1));
  return std::clamp(factor, options.min_factor, options.max_factor);
}

namespace {

// ‖v‖ with the weights atol + rtol·|x0_i| (HINIT's SK).
double ScaledNorm(std::span<const double> v, std::span<const double> x0,
                  const StepperOptions& options) {
  return WrmsNorm(v, x0, x0, options);
}

}  // namespace

bool TakeTrialStep(OdeSystem& system, double t0, std::span<const double> x0,
                   std::span<const double> f0, double h_max, const StepperOptions& options,
                   std::span<double> x1, std::span<double> f1, TrialStep* trial,
                   int* evaluations) {
  const double d0 = ScaledNorm(x0, x0, options);
  trial->d1 = ScaledNorm(f0, x0, options);
  const double h0 = std::min((d0 < 1e-5 || trial->d1 < 1e-5) ? 1e-6 : 0.01 * d0 / trial->d1, h_max);
  trial->h0 = h0;
  for (std::size_t i = 0; i < x0.size(); ++i) x1[i] = x0[i] + h0 * f0[i];  // x1 ← x0 + h0·f0
  if (EvaluateStage(system, t0 + h0, x1, f1, evaluations) != StepStatus::kAccepted) return false;
  for (std::size_t i = 0; i < x0.size(); ++i) f1[i] -= f0[i];
  trial->d2 = ScaledNorm(f1, x0, options) / h0;
  return true;
}

void InitialStep(OdeSystem& system, double t0, std::span<const double> x0,
                 std::span<const double> f0, int p, double h_max, const StepperOptions& options,
                 std::span<double> x1, std::span<double> f1, double* h, int* evaluations) {
  TrialStep trial;
  if (!TakeTrialStep(system, t0, x0, f0, h_max, options, x1, f1, &trial, evaluations)) {
    *h = 1e-3 * trial.h0;
    return;
  }
  const double d12 = std::max(trial.d1, trial.d2);
  const double h1 =
      d12 <= 1e-15 ? std::max(1e-6, 1e-3 * trial.h0) : std::pow(0.01 / d12, 1.0 / p);
  *h = std::min({100.0 * trial.h0, h1, h_max});
}

}  // namespace tether::integrate
