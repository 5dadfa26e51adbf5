// Classical Runge–Kutta method of order 4 ("rk4"), the seeds' second scheme (HNW I, II.1,
// Table 1.2, left): fixed step, four evaluations per step.
//
//   0   |
//   1/2 | 1/2
//   1/2 | 0    1/2
//   1   | 0    0    1
//   ----+-------------------
//       | 1/6  1/3  1/3  1/6
//
// Step takes the h passed as is (options.step is the caller's default); an h that is not
// finite or below MinStep (min_step_relative·max(1, |t|)) gives kStepSizeUnderflow.
//
// Dense output: the continuous extension of RK4 of order 3 (HNW I, II.6, dense output of
// the classical method), with θ = (t_out − t)/h,
//   x(t_out) = x + h (b1(θ) k1 + b2(θ) k2 + b3(θ) k3 + b4(θ) k4),
//   b1 = θ − 3θ²/2 + 2θ³/3,  b2 = b3 = θ² − 2θ³/3,  b4 = −θ²/2 + 2θ³/3.
// It satisfies the order conditions Σb = θ, Σb c = θ²/2, Σb c² = θ³/3, Σb a c = θ³/6, so
// its error is O(h⁴) locally, like the Hermite cubic, but it needs no F at the end point:
// RK4 keeps exactly four evaluations per step (a Hermite cubic would cost a fifth, since
// the caller's projection makes the next step's k1 unusable). b(1) = b, so θ = 1 is x_new.
#pragma once

#include <memory>
#include <vector>

#include "tether/integrate/stepper.h"

namespace tether::integrate {

class Rk4 final : public Stepper {
 public:
  explicit Rk4(const StepperOptions& options) : options_(options) {}

  [[nodiscard]] std::string_view name() const override { return "rk4"; }
  [[nodiscard]] int order() const override { return 4; }
  [[nodiscard]] bool adaptive() const override { return false; }
  [[nodiscard]] std::unique_ptr<Stepper> Clone() const override;
  [[nodiscard]] const StepperOptions& options() const override { return options_; }
  void Resize(std::size_t n) override;
  StepResult Step(OdeSystem& system, double t, std::span<const double> x, double h,
                  std::span<double> x_new) override;
  void Interpolate(double t_out, std::span<double> x_out) const override;

 private:
  StepStatus Stages(OdeSystem& system, double t, double h, int* evaluations);

  StepperOptions options_;
  std::size_t n_ = 0;
  std::vector<double> x0_;     // initial state of the last step
  std::vector<double> k_;      // k1…k4, 4·n
  std::vector<double> work_;   // stage argument
  std::vector<double> x_end_;  // end state of the last step
  double t_start_ = 0.0;
  double h_ = 0.0;
  bool has_step_ = false;
};

}  // namespace tether::integrate
