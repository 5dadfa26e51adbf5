#include "integrate/embedded_runge_kutta.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "integrate/stage.h"
#include "integrate/step_controller.h"

namespace tether::integrate {

void EmbeddedRungeKutta::Resize(std::size_t n) {
  CheckTolerances(name(), options_, n);
  x0_.assign(n, 0.0);
  f0_.assign(n, 0.0);
  f_end_.assign(n, 0.0);
  x_end_.assign(n, 0.0);
  has_step_ = false;
  proposal_ = 0.0;
  stiff_steps_ = 0;
  nonstiff_steps_ = 0;
  ResizeStages(n);
}

StepStatus EmbeddedRungeKutta::StartStep(OdeSystem& system, double t,
                                         std::span<const double> x, int* evaluations) {
  // Bitwise comparison on purpose: only the very state the last stage was evaluated at
  // makes it reusable; a projected state, however close, does not.
  const bool reusable = has_step_ && t == t_end_ &&
                        std::memcmp(x.data(), x_end_.data(), x.size() * sizeof(double)) == 0;
  std::copy(x.begin(), x.end(), x0_.begin());  // x may alias x_new
  if (reusable) {
    std::copy(f_end_.begin(), f_end_.end(), f0_.begin());
    return StepStatus::kAccepted;
  }
  return EvaluateStage(system, t, x0_, f0_, evaluations);
}

StepResult EmbeddedRungeKutta::Step(OdeSystem& system, double t, std::span<const double> x,
                                    double h, std::span<double> x_new) {
  CheckSizes(name(), x0_.size(), x.size(), x_new.size());
  StepResult result;
  if (!StepIsAboveFloor(options_, t, h)) {
    result.status = StepStatus::kStepSizeUnderflow;
    return result;
  }
  result.status = StartStep(system, t, x, &result.evaluations);
  has_step_ = false;  // x0_ now belongs to this step; the previous dense output is gone
  if (result.status != StepStatus::kAccepted) {  // at (t, x) itself: no smaller step helps
    result.failure = FailureOf(result.status);
    return result;
  }
  if (!options_.error_control) return StepFixed(system, t, h, x_new, result);

  double h_max = h;
  if (options_.max_step > 0.0) h_max = std::min(h_max, options_.max_step);
  double h_try = proposal_ > 0.0 ? proposal_ : options_.step;
  if (h_try <= 0.0) {
    InitialStep(system, t, x0_, f0_, order(), h_max, options_, x_new, f_end_, &h_try,
                &result.evaluations);
  }
  h_try = std::min(h_try, h_max);

  for (;;) {
    if (!StepIsAboveFloor(options_, t, h_try)) {
      result.status = StepStatus::kStepSizeUnderflow;
      return result;
    }
    double err = 0.0;
    StepStatus attempt = Attempt(system, t, h_try, x_new, &err, &result.evaluations);
    if (attempt == StepStatus::kAccepted && !std::isfinite(err)) attempt = StepStatus::kNonFinite;
    if (attempt == StepStatus::kAccepted && err <= 1.0) {
      attempt = Complete(system, t, h_try, x_new, &result.evaluations);
      if (attempt == StepStatus::kAccepted) {
        double factor = StepFactor(err, error_order(), options_);
        if (result.rejections > 0) factor = std::min(factor, 1.0);
        result.error_norm = err;
        result.h_next = h_try * factor;
        if (options_.max_step > 0.0) result.h_next = std::min(result.h_next, options_.max_step);
        CountStiffness();
        return Accept(t, h_try, x_new, result);
      }
    }
    // Rejected: a failed or non-finite stage, or too large an error.
    result.failure = attempt == StepStatus::kAccepted ? AttemptFailure::kErrorTooLarge
                                                      : FailureOf(attempt);
    result.h_failed = h_try;
    if (++result.rejections >= options_.max_rejections) {
      result.status = StepStatus::kStepSizeUnderflow;
      return result;
    }
    // h ← h·StepFactor(err) after a large error (≤ safety < 1 for err > 1, so h always
    // shrinks); h ← h·failure_factor after a failed stage (Hairer's convention).
    h_try *= attempt == StepStatus::kAccepted ? StepFactor(err, error_order(), options_)
                                              : options_.failure_factor;
  }
}

StepStatus EmbeddedRungeKutta::Complete(OdeSystem& system, double t, double h,
                                        std::span<const double> x_new, int* evaluations) {
  if (!AllFinite(x_new)) return StepStatus::kNonFinite;
  return Finish(system, t, h, x_new, evaluations);
}

StepResult EmbeddedRungeKutta::StepFixed(OdeSystem& system, double t, double h,
                                         std::span<double> x_new, StepResult result) {
  StepStatus attempt = Attempt(system, t, h, x_new, nullptr, &result.evaluations);
  if (attempt == StepStatus::kAccepted) {
    attempt = Complete(system, t, h, x_new, &result.evaluations);
  }
  if (attempt != StepStatus::kAccepted) {  // a fixed step cannot retry
    result.status = attempt;
    result.failure = FailureOf(attempt);
    result.h_failed = h;
    return result;
  }
  result.h_next = h;
  return Accept(t, h, x_new, result);
}

StepResult EmbeddedRungeKutta::Accept(double t, double h, std::span<double> x_new,
                                      StepResult result) {
  std::copy(x_new.begin(), x_new.end(), x_end_.begin());
  t_start_ = t;
  t_end_ = t + h;
  has_step_ = true;
  proposal_ = result.h_next;
  result.h_taken = h;
  return result;
}

void EmbeddedRungeKutta::CountStiffness() {
  if (h_lambda_ > stability_boundary()) {
    nonstiff_steps_ = 0;
    stiff_steps_ = std::min(stiff_steps_ + 1, kStiffSteps);
  } else if (++nonstiff_steps_ >= kNonStiffSteps) {
    stiff_steps_ = 0;
  }
}

bool EmbeddedRungeKutta::InterpolateEnds(double t_out, std::span<double> x_out,
                                         double* theta) const {
  if (!has_step_) {
    std::fill(x_out.begin(), x_out.end(), std::numeric_limits<double>::quiet_NaN());
    return false;
  }
  if (t_out == t_start_) {
    std::copy(x0_.begin(), x0_.end(), x_out.begin());
    return false;
  }
  if (t_out == t_end_) {
    std::copy(x_end_.begin(), x_end_.end(), x_out.begin());
    return false;
  }
  *theta = (t_out - t_start_) / (t_end_ - t_start_);
  return true;
}

}  // namespace tether::integrate
