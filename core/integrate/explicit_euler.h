// Explicit Euler ("euler"), the seeds' first scheme (HNW I, I.7): fixed step, order 1,
//   x_new = x + h F(t, x)
// one evaluation per step. Dense output: the straight line between the step's endpoints,
//   x(t_out) = x + θ (x_new − x),  θ = (t_out − t)/h,
// exact at both ends and of order 1, like the method.
// Step takes the h passed as is (options.step is the caller's default); an h that is not
// finite or below MinStep (min_step_relative·max(1, |t|)) gives kStepSizeUnderflow.
#pragma once

#include <memory>
#include <vector>

#include "tether/integrate/stepper.h"

namespace tether::integrate {

class ExplicitEuler final : public Stepper {
 public:
  explicit ExplicitEuler(const StepperOptions& options) : options_(options) {}

  [[nodiscard]] std::string_view name() const override { return "euler"; }
  [[nodiscard]] int order() const override { return 1; }
  [[nodiscard]] bool adaptive() const override { return false; }
  [[nodiscard]] std::unique_ptr<Stepper> Clone() const override;
  [[nodiscard]] const StepperOptions& options() const override { return options_; }
  void Resize(std::size_t n) override;
  StepResult Step(OdeSystem& system, double t, std::span<const double> x, double h,
                  std::span<double> x_new) override;
  void Interpolate(double t_out, std::span<double> x_out) const override;

 private:
  StepperOptions options_;
  std::vector<double> x0_;     // initial state of the last step
  std::vector<double> f0_;     // F(t, x0)
  std::vector<double> x_end_;  // its end state
  double t_start_ = 0.0;
  double h_ = 0.0;
  bool has_step_ = false;
};

}  // namespace tether::integrate
