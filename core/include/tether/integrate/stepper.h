// One interface for every ODE scheme that advances the reduced ODE x' = F(t, x).
// The projection method (shared/seeds, chapter 19) keeps stepping and projection apart: a
// stepper knows nothing of constraints; core/simulate projects after each accepted step.
//
// Adding a method means one file pair beside this one and one line in stepper_registry.cc.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tether::integrate {

// The right-hand side. Evaluation may legitimately fail (an inner Newton solve of an index-1
// model that does not converge, a singular constraint Jacobian): it then returns false and
// the stepper ends the step with StepStatus::kRhsFailed.
class OdeSystem {
 public:
  virtual ~OdeSystem() = default;
  [[nodiscard]] virtual std::size_t size() const = 0;
  // dxdt ← F(t, x). `x` and `dxdt` have size() elements and do not alias.
  virtual bool Evaluate(double t, std::span<const double> x, std::span<double> dxdt) = 0;
};

// Weighted root-mean-square norm used by error control (Hairer–Nørsett–Wanner I, II.4):
//   ‖e‖ = sqrt( (1/n) Σ (e_i / (atol + rtol·max(|x_i|, |y_i|)))² ),
// an error is acceptable iff ‖e‖ ≤ 1.
double WrmsNorm(std::span<const double> error, std::span<const double> x,
                std::span<const double> y, double rtol, double atol);

struct StepperOptions {
  // Fixed-step methods: the step h [s], > 0. Adaptive methods: the first step tried [s];
  // 0 selects it automatically (Hairer's starting-step heuristic).
  double step = 1e-3;
  // Adaptive methods: a step is accepted iff WrmsNorm(local error estimate) ≤ 1 with these
  // relative [1] and absolute [state units] tolerances; both > 0 (rtol ≥ 1e-15).
  double rtol = 1e-8;
  double atol = 1e-10;
  // Step-size controller h_new = h · clamp(safety · err^(−1/(q+1)), min_factor, max_factor),
  // q the order of the embedded estimate. 0 < safety < 1, 0 < min_factor < 1 < max_factor.
  double safety = 0.9;
  double min_factor = 0.2;
  double max_factor = 10.0;
  // Largest step [s]; 0 means unbounded.
  double max_step = 0.0;
  // A step below min_step_relative · max(1, |t|) ends the run with kStepSizeUnderflow.
  double min_step_relative = 1e-14;
  // Consecutive rejections of one step before giving up with kStepSizeUnderflow.
  int max_rejections = 60;
  // Adaptive methods only: false takes every step with exactly the h given and no error
  // estimate (fixed-step use of an embedded pair, e.g. for convergence studies by halving h).
  bool error_control = true;

  bool IsValid(std::string* why) const;
};

enum class StepStatus {
  kAccepted,           // x_new holds the state at t + h_taken
  kStepSizeUnderflow,  // the controller needed a step below the minimum
  kNonFinite,          // a stage or the result contains NaN or ±∞
  kRhsFailed,          // OdeSystem::Evaluate returned false
};

struct StepResult {
  StepStatus status = StepStatus::kAccepted;
  double h_taken = 0.0;     // the accepted step [s]
  double h_next = 0.0;      // the controller's proposal for the next step [s]
  double error_norm = 0.0;  // WRMS norm of the accepted local error estimate (0 if none)
  int rejections = 0;       // rejected attempts before acceptance
  int evaluations = 0;      // calls of OdeSystem::Evaluate during this step
};

class Stepper {
 public:
  virtual ~Stepper() = default;

  [[nodiscard]] virtual std::string_view name() const = 0;  // "euler", "rk4", "dp5", "dop853"
  [[nodiscard]] virtual int order() const = 0;              // order of the propagated solution
  [[nodiscard]] virtual bool adaptive() const = 0;
  [[nodiscard]] virtual std::unique_ptr<Stepper> Clone() const = 0;
  [[nodiscard]] virtual const StepperOptions& options() const = 0;

  // Allocates all work memory for systems of size n. Step and Interpolate do not allocate.
  // Also forgets the step history (an adaptive method's step proposal and reusable last stage),
  // so call it at the start of every run.
  virtual void Resize(std::size_t n) = 0;

  // One step from (t, x) with the step h (fixed-step methods take h as is; adaptive methods
  // try h and shrink it on rejection, never exceeding it). Writes the new state to x_new.
  virtual StepResult Step(OdeSystem& system, double t, std::span<const double> x, double h,
                          std::span<double> x_new) = 0;

  // Dense output over the last accepted step [t, t + h_taken]: the interpolant (each
  // method's header documents it; of the method's order where it has one) at t_out.
  // t_out equal to either end returns that end's state exactly. Before the first accepted
  // step after Resize, and after a failed Step, x_out is filled with NaN.
  virtual void Interpolate(double t_out, std::span<double> x_out) const = 0;
};

// Creates a stepper by name; nullptr for an unknown name.
std::unique_ptr<Stepper> MakeStepper(std::string_view name, const StepperOptions& options);
// The names MakeStepper accepts, in documentation order.
std::span<const std::string_view> StepperNames();

}  // namespace tether::integrate
