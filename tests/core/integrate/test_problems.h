// Right-hand sides with known solutions, and failing ones, for the stepper tests.
#pragma once

#include <cmath>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

#include "tether/integrate/stepper.h"

namespace tether::integrate::testing {

// x' = k·t^(k−1), x(0) = 0, so x(t) = t^k: a method of order p integrates it exactly for
// k ≤ p (its weights satisfy Σ b_i c_i^(k−1) = 1/k) and not for k = p + 1.
class Monomial final : public OdeSystem {
 public:
  explicit Monomial(int k) : k_(k) {}
  [[nodiscard]] std::size_t size() const override { return 1; }
  bool Evaluate(double t, std::span<const double> /*x*/, std::span<double> dxdt) override {
    dxdt[0] = k_ * std::pow(t, k_ - 1);
    return true;
  }
  [[nodiscard]] double Exact(double t) const { return std::pow(t, k_); }

 private:
  int k_;
};

// The logistic equation x' = r·x·(1 − x): smooth, nonlinear, with the exact solution
// x(t) = 1 / (1 + (1/x0 − 1)·e^(−r t)).
class Logistic final : public OdeSystem {
 public:
  Logistic(double rate, double x0) : rate_(rate), x0_(x0) {}
  [[nodiscard]] std::size_t size() const override { return 1; }
  bool Evaluate(double /*t*/, std::span<const double> x, std::span<double> dxdt) override {
    dxdt[0] = rate_ * x[0] * (1.0 - x[0]);
    return true;
  }
  [[nodiscard]] double Exact(double t) const {
    return 1.0 / (1.0 + (1.0 / x0_ - 1.0) * std::exp(-rate_ * t));
  }
  [[nodiscard]] double x0() const { return x0_; }

 private:
  double rate_;
  double x0_;
};

// The circular Kepler orbit q'' = −q/|q|³, q(0) = (1, 0), q'(0) = (0, 1), as a first-order
// system in x = (q, q'): nonlinear, not dissipative (errors accumulate over revolutions),
// with the exact solution q(t) = (cos t, sin t).
class CircularKepler final : public OdeSystem {
 public:
  [[nodiscard]] std::size_t size() const override { return 4; }
  bool Evaluate(double /*t*/, std::span<const double> x, std::span<double> dxdt) override {
    const double r2 = x[0] * x[0] + x[1] * x[1];
    const double r3 = r2 * std::sqrt(r2);
    dxdt[0] = x[2];
    dxdt[1] = x[3];
    dxdt[2] = -x[0] / r3;
    dxdt[3] = -x[1] / r3;
    return true;
  }
  // |q(t) − q_exact(t)|.
  [[nodiscard]] static double PositionError(double t, std::span<const double> x) {
    return std::hypot(x[0] - std::cos(t), x[1] - std::sin(t));
  }
};

// x' = x², x(0) = 1: x(t) = 1/(1 − t) blows up at t = 1.
class Blowup final : public OdeSystem {
 public:
  [[nodiscard]] std::size_t size() const override { return 1; }
  bool Evaluate(double /*t*/, std::span<const double> x, std::span<double> dxdt) override {
    dxdt[0] = x[0] * x[0];
    return true;
  }
};

// x' = 1 for t ≤ t_nan, NaN beyond: a right-hand side that turns non-finite mid-run.
class NanAfter final : public OdeSystem {
 public:
  explicit NanAfter(double t_nan) : t_nan_(t_nan) {}
  [[nodiscard]] std::size_t size() const override { return 1; }
  bool Evaluate(double t, std::span<const double> /*x*/, std::span<double> dxdt) override {
    dxdt[0] = t <= t_nan_ ? 1.0 : std::numeric_limits<double>::quiet_NaN();
    return true;
  }

 private:
  double t_nan_;
};

// x' = −λx with λ = 50, x(0) = 1: x(t) = e^(−50 t) > 0. Evaluate fails for x < 0, as a model
// whose expression leaves its domain (sqrt of a negative concentration) does. A step with
// hλ ≥ 20 puts a stage below 0 in every method here: the explicit ones' second stage is
// x (1 − a21 hλ) with a21 hλ ≥ 0.0526 · 20 > 1 (DOP853's a21 is the smallest), radau5's
// second stage value is ((I + hλA)⁻¹ 1)_2 < 0 (−0.06 at hλ = 10, −0.03 at 50).
class PositiveDecay final : public OdeSystem {
 public:
  static constexpr double kRate = 50.0;
  [[nodiscard]] std::size_t size() const override { return 1; }
  bool Evaluate(double /*t*/, std::span<const double> x, std::span<double> dxdt) override {
    if (x[0] < 0.0) {
      ++failures_;
      return false;
    }
    dxdt[0] = -kRate * x[0];
    return true;
  }
  [[nodiscard]] static double Exact(double t) { return std::exp(-kRate * t); }
  [[nodiscard]] int failures() const { return failures_; }

 private:
  int failures_ = 0;  // evaluations that failed
};

// Evaluate fails (as an inner Newton solve of an index-1 model may).
class Failing final : public OdeSystem {
 public:
  [[nodiscard]] std::size_t size() const override { return 1; }
  bool Evaluate(double /*t*/, std::span<const double> /*x*/, std::span<double> dxdt) override {
    dxdt[0] = 0.0;
    return false;
  }
};

}  // namespace tether::integrate::testing
