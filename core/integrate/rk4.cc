#include "integrate/rk4.h"

#include <algorithm>
#include <array>
#include <limits>

#include "integrate/stage.h"

namespace tether::integrate {

std::unique_ptr<Stepper> Rk4::Clone() const { return std::make_unique<Rk4>(*this); }

void Rk4::Resize(std::size_t n) {
  n_ = n;
  x0_.assign(n, 0.0);
  k_.assign(4 * n, 0.0);
  work_.assign(n, 0.0);
  x_end_.assign(n, 0.0);
  has_step_ = false;
}

StepStatus Rk4::Stages(OdeSystem& system, double t, double h, int* evaluations) {
  // k1 = F(t, x); k_{s+1} = F(t + c_{s+1} h, x + a_{s+1} h k_s) with a = c = (1/2, 1/2, 1).
  constexpr std::array<double, 3> kC = {0.5, 0.5, 1.0};
  const std::span<double> k(k_);
  StepStatus status = EvaluateStage(system, t, x0_, k.first(n_), evaluations);
  for (std::size_t s = 0; s < 3 && status == StepStatus::kAccepted; ++s) {
    const std::span<const double> previous = k.subspan(s * n_, n_);
    for (std::size_t i = 0; i < n_; ++i) work_[i] = x0_[i] + kC[s] * h * previous[i];
    status = EvaluateStage(system, t + kC[s] * h, work_, k.subspan((s + 1) * n_, n_),
                           evaluations);
  }
  return status;
}

StepResult Rk4::Step(OdeSystem& system, double t, std::span<const double> x, double h,
                     std::span<double> x_new) {
  CheckSizes(name(), n_, x.size(), x_new.size());
  StepResult result;
  has_step_ = false;
  if (!StepIsAboveFloor(options_, t, h)) {
    result.status = StepStatus::kStepSizeUnderflow;
    return result;
  }
  std::copy(x.begin(), x.end(), x0_.begin());  // x may alias x_new
  result.status = Stages(system, t, h, &result.evaluations);
  if (result.status != StepStatus::kAccepted) return Failed(result, h);
  for (std::size_t i = 0; i < n_; ++i) {  // x_new ← x + h (k1 + 2 k2 + 2 k3 + k4)/6
    const double sum = k_[i] + 2.0 * (k_[n_ + i] + k_[2 * n_ + i]) + k_[3 * n_ + i];
    x_new[i] = x0_[i] + h * sum / 6.0;
  }
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

void Rk4::Interpolate(double t_out, std::span<double> x_out) const {
  if (!has_step_) {
    std::fill(x_out.begin(), x_out.end(), std::numeric_limits<double>::quiet_NaN());
    return;
  }
  if (t_out == t_start_ + h_) {  // the end point exactly, not up to rounding
    std::copy(x_end_.begin(), x_end_.end(), x_out.begin());
    return;
  }
  const double theta = (t_out - t_start_) / h_;
  const double theta2 = theta * theta;
  const double theta3 = theta2 * theta;
  const double b1 = theta - 1.5 * theta2 + 2.0 * theta3 / 3.0;
  const double b23 = theta2 - 2.0 * theta3 / 3.0;
  const double b4 = -0.5 * theta2 + 2.0 * theta3 / 3.0;
  for (std::size_t i = 0; i < n_; ++i) {
    const double sum =
        b1 * k_[i] + b23 * (k_[n_ + i] + k_[2 * n_ + i]) + b4 * k_[3 * n_ + i];
    x_out[i] = x0_[i] + h_ * sum;
  }
}

}  // namespace tether::integrate
