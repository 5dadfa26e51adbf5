#include "integrate/explicit_euler.h"

#include <algorithm>
#include <limits>

#include "integrate/stage.h"

namespace tether::integrate {

std::unique_ptr<Stepper> ExplicitEuler::Clone() const {
  return std::make_unique<ExplicitEuler>(*this);
}

void ExplicitEuler::Resize(std::size_t n) {
  x0_.assign(n, 0.0);
  f0_.assign(n, 0.0);
  x_end_.assign(n, 0.0);
  has_step_ = false;
}

StepResult ExplicitEuler::Step(OdeSystem& system, double t, std::span<const double> x, double h,
                               std::span<double> x_new) {
  CheckSizes(name(), x0_.size(), x.size(), x_new.size());
  StepResult result;
  has_step_ = false;
  if (!StepIsAboveFloor(options_, t, h)) {
    result.status = StepStatus::kStepSizeUnderflow;
    return result;
  }
  std::copy(x.begin(), x.end(), x0_.begin());  // x may alias x_new
  result.status = EvaluateStage(system, t, x0_, f0_, &result.evaluations);
  if (result.status != StepStatus::kAccepted) return Failed(result, h);
  for (std::size_t i = 0; i < x0_.size(); ++i) x_new[i] = x0_[i] + h * f0_[i];  // x + h F
  if (!AllFinite(x_new)) {
    result.status = StepStatus::kNonFinite;
    return Failed(result, h);
  }
  std::copy(x_new.begin(), x_new.end(), x_end_.begin());
  t_start_ = t;
  h_ = h;
  has_step_ = true;
  result.h_taken = h;
  result.h_next = h;
  return result;
}

void ExplicitEuler::Interpolate(double t_out, std::span<double> x_out) const {
  if (!has_step_) {
    std::fill(x_out.begin(), x_out.end(), std::numeric_limits<double>::quiet_NaN());
    return;
  }
  if (t_out == t_start_ + h_) {  // the end point exactly, not up to rounding
    std::copy(x_end_.begin(), x_end_.end(), x_out.begin());
    return;
  }
  const double theta = (t_out - t_start_) / h_;
  for (std::size_t i = 0; i < x0_.size(); ++i) {
    x_out[i] = x0_[i] + theta * (x_end_[i] - x0_[i]);
  }
}

}  // namespace tether::integrate
