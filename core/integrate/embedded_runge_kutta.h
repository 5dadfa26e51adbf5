// The accept/reject loop shared by the embedded explicit Runge–Kutta pairs (Dormand–Prince
// 5(4), DOP853). A concrete pair supplies its stages, its error estimate and its dense
// output; this class owns the step-size control around them. Private to core/integrate.
//
// One call of Step(system, t, x, h, x_new):
//   1. f0 = F(t, x): reused from the previous step's last stage (FSAL) iff this step starts
//      exactly where the previous accepted one ended — same t and bitwise the same x (the
//      caller projects the state after each step, which changes x and invalidates f0).
//   2. h_try = min(h, proposal, max_step), where proposal is the controller's h_next of the
//      previous step, or for the first step after Resize options.step, or Hairer's starting
//      step (step_controller.h) if that is 0. h_try never exceeds the caller's h, so that
//      output times and t_end are hit exactly.
//   3. Attempt h_try: the stages, err = WRMS norm of the local error estimate, and for
//      err ≤ 1 the pair's Finish (FSAL stage, dense output; DOP853 evaluates there). Accept
//      iff all of it succeeds with err ≤ 1. Otherwise the attempt is rejected and retried:
//      after err > 1 with h_try ← h_try · StepFactor(err); after a failed stage (Evaluate
//      returned false, NaN or ±∞ in a stage, the estimate or x_new) with h_try ← h_try ·
//      failure_factor (Hairer's convention: shrink, count, give up only below the minimum
//      step). StepResult::failure keeps the last rejection's cause. The step fails with
//      kStepSizeUnderflow when h_try < MinStep or after max_rejections rejections.
//   4. On acceptance h_next = h_taken · StepFactor(err), the factor capped at 1 if this
//      step saw a rejection, and h_next capped at max_step.
// With options.error_control = false, steps 2–4 reduce to one attempt with exactly h and no
// error estimate (h_next = h); a failed stage then ends the step with kRhsFailed or
// kNonFinite, since a fixed step cannot retry.
//
// Stiffness (Hairer's test in DOPRI5 and DOP853, HNW II, IV.2): on each accepted adaptive
// step the pair estimates h·|λ| of the dominant eigenvalue from two stage arguments x̃, x̂ at
// the same abscissa t + h as h‖F(x̂) − F(x̃)‖₂ / ‖x̂ − x̃‖₂. Above the method's stability
// boundary on kStiffSteps (15) accepted steps, with no run of kNonStiffSteps (6) steps below
// it in between, seems_stiff() is true; such a run of 6 clears it. Resize restarts the count.
// F(t, x) itself failing ends the step at once with kRhsFailed or kNonFinite (no smaller step
// can help), and an h passed in that is not finite or below MinStep with kStepSizeUnderflow.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "tether/integrate/stepper.h"

namespace tether::integrate {

class EmbeddedRungeKutta : public Stepper {
 public:
  [[nodiscard]] bool adaptive() const final { return true; }
  [[nodiscard]] const StepperOptions& options() const final { return options_; }
  [[nodiscard]] bool seems_stiff() const final { return stiff_steps_ >= kStiffSteps; }
  void Resize(std::size_t n) final;
  StepResult Step(OdeSystem& system, double t, std::span<const double> x, double h,
                  std::span<double> x_new) final;

 protected:
  explicit EmbeddedRungeKutta(const StepperOptions& options) : options_(options) {}

  // q: the order of the embedded error estimate (the controller's exponent is −1/(q+1)).
  [[nodiscard]] virtual int error_order() const = 0;
  // Allocates the pair's own stage and dense-output arrays for size n.
  virtual void ResizeStages(std::size_t n) = 0;
  // Computes the remaining stages from x0() and f0() with step h, writes the solution to
  // x_new and, if `err` is not null, the WRMS norm of the local error estimate to *err.
  // Returns the first failing stage's status, or kAccepted.
  virtual StepStatus Attempt(OdeSystem& system, double t, double h, std::span<double> x_new,
                             double* err, int* evaluations) = 0;
  // After acceptance of (t, h, x_new): writes F(t + h, x_new) to f_end() (evaluating it if
  // Attempt did not) and prepares the dense output over the step.
  virtual StepStatus Finish(OdeSystem& system, double t, double h,
                            std::span<const double> x_new, int* evaluations) = 0;

  // The step's initial state and its derivative (valid during Attempt and Finish, and for
  // Interpolate over the last accepted step).
  [[nodiscard]] std::span<const double> x0() const { return x0_; }
  [[nodiscard]] std::span<const double> f0() const { return f0_; }
  [[nodiscard]] std::span<double> f_end() { return f_end_; }
  [[nodiscard]] std::span<const double> f_end() const { return f_end_; }

  // h·|λ| of this attempt from two stages at t + h (file comment); 0 if their arguments agree.
  void NoteStiffnessEstimate(double h_lambda) { h_lambda_ = h_lambda; }
  // |hλ| on the negative real axis beyond which the method is unstable (Hairer's constants:
  // 3.25 for DOPRI5, 6.1 for DOP853).
  [[nodiscard]] virtual double stability_boundary() const = 0;

  // Interpolate's common part: false (and x_out filled) if there is no accepted step yet or
  // t_out is one of its ends, which are returned exactly. Otherwise *theta = (t_out − t)/h.
  bool InterpolateEnds(double t_out, std::span<double> x_out, double* theta) const;

 private:
  StepStatus StartStep(OdeSystem& system, double t, std::span<const double> x, int* evaluations);
  StepResult StepFixed(OdeSystem& system, double t, double h, std::span<double> x_new,
                       StepResult result);
  // The part of an attempt after its error test: x_new finite, then the pair's Finish.
  StepStatus Complete(OdeSystem& system, double t, double h, std::span<const double> x_new,
                      int* evaluations);
  StepResult Accept(double t, double h, std::span<double> x_new, StepResult result);
  void CountStiffness();

  static constexpr int kStiffSteps = 15;
  static constexpr int kNonStiffSteps = 6;

  StepperOptions options_;
  std::vector<double> x0_;     // initial state of the current / last accepted step
  std::vector<double> f0_;     // F(t, x0)
  std::vector<double> f_end_;  // F(t_end_, x_end_) of the last accepted step (FSAL)
  std::vector<double> x_end_;  // solution at the end of the last accepted step
  double t_start_ = 0.0;       // start and end time of the last accepted step
  double t_end_ = 0.0;
  bool has_step_ = false;      // an accepted step exists (since Resize)
  double proposal_ = 0.0;      // the controller's next step, 0 before the first step
  double h_lambda_ = 0.0;      // stiffness estimate of the last attempt
  int stiff_steps_ = 0;        // accepted steps above the boundary since the last clearing
  int nonstiff_steps_ = 0;     // consecutive accepted steps below it
};

}  // namespace tether::integrate
