// DOP853 ("dop853"): the explicit Runge–Kutta method of order 8 of Prince & Dormand ("High
// order embedded Runge–Kutta formulae", J. Comput. Appl. Math. 7 (1981) 67–75) with Hairer's
// 5th/3rd-order error estimator and 7th-order dense output — Hairer–Nørsett–Wanner, Solving
// ODE I, 2nd ed., II.5 (embedded pairs of high order), II.6 (dense output), II.10 (DOP853),
// and E. Hairer's Fortran code dop853.f (http://www.unige.ch/~hairer/software.html).
// The coefficients in dop853.cc are dop853.f's, to 30 digits, as transcribed in SciPy's
// scipy/integrate/_ivp/dop853_coefficients.py (and identically in C ports of dop853.f).
//
// Stages (12 for the step, s = 1…12):  k_s = F(t + c_s h, x + h Σ_{j<s} a_sj k_j),
//   x_new = x + h Σ_{j≤12} b_j k_j                                          (order 8)
// b_j = a_13,j; stage 13 is k13 = F(t + h, x_new), reused as the next k1 (FSAL) when the next
// step starts at exactly (t + h, x_new) (embedded_runge_kutta.h).
//
// Error estimator (dop853.f): two embedded differences, both scaled by sk_i =
// atol + rtol·max(|x_i|, |x_new_i|),
//   e5_i = Σ_j (b_j − b̂5_j) k_j,            (order-5 difference; er1…er12 of dop853.f)
//   e3_i = Σ_j b_j k_j − (bhh1 k1 + bhh2 k9 + bhh3 k12)_i   (order-3 difference),
//   E5 = Σ (e5_i/sk_i)²,  E3 = Σ (e3_i/sk_i)²,
//   err = |h| · E5 / sqrt(n · (E5 + 0.01·E3))
// which behaves like h^8 (q = 7, controller exponent −1/8) while the 3rd-order term keeps it
// robust where the 5th-order difference happens to be small (HNW I, II.10).
//
// Dense output of order 7 (dop853.f, CONTD8): three extra stages
//   k14, k15, k16 at c = 0.1, 0.2, 7/9 (rows 14–16 of a, using k1…k13),
// then with Δ = x_new − x, θ = (t_out − t)/h, θ' = 1 − θ:
//   r1 = Δ, r2 = h k1 − Δ, r3 = Δ − h k13 − r2, r_{4…7} = h Σ_j d_{4…7, j} k_j,
//   x(t_out) = x + θ(r1 + θ'(r2 + θ(r3 + θ'(r4 + θ(r5 + θ'(r6 + θ r7)))))).
// Evaluations per accepted step: 11 (k2…k12) + 1 (k13) + 3 (k14…k16) = 15 with FSAL reuse,
// 16 otherwise. The dense stages are always computed: Interpolate has no access to F.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "integrate/embedded_runge_kutta.h"

namespace tether::integrate {

class Dop853 final : public EmbeddedRungeKutta {
 public:
  explicit Dop853(const StepperOptions& options) : EmbeddedRungeKutta(options) {}

  [[nodiscard]] std::string_view name() const override { return "dop853"; }
  [[nodiscard]] int order() const override { return 8; }
  [[nodiscard]] std::unique_ptr<Stepper> Clone() const override;
  void Interpolate(double t_out, std::span<double> x_out) const override;

  static constexpr std::size_t kStages = 16;  // 12 + end point + 3 dense-output stages

 private:
  [[nodiscard]] int error_order() const override { return 7; }
  [[nodiscard]] double stability_boundary() const override { return 6.1; }
  void ResizeStages(std::size_t n) override;
  StepStatus Attempt(OdeSystem& system, double t, double h, std::span<double> x_new,
                     double* err, int* evaluations) override;
  StepStatus Finish(OdeSystem& system, double t, double h, std::span<const double> x_new,
                    int* evaluations) override;

  // Stage s (0-based) in k_.
  [[nodiscard]] std::span<double> Stage(std::size_t s);
  // Computes stages first…last (0-based) from x0() into Stage(s), argument in work_.
  StepStatus ComputeStages(OdeSystem& system, double t, double h, std::size_t first,
                           std::size_t last, int* evaluations);
  // err from Σ (e5_i/sk_i)² and Σ (e3_i/sk_i)² (file comment).
  [[nodiscard]] double ErrorNorm(double h, double e5_sum, double e3_sum) const;

  std::size_t n_ = 0;
  // Stages k1…k16, 16·n, stage s (0-based) at k_[s·n, (s+1)·n): one array whose rows the
  // unrolled sums address by constant offsets. k1 is f0()'s copy, k13 is f_end()'s original.
  std::vector<double> k_;
  std::vector<double> work_;   // stage argument
  std::vector<double> dense_;  // r1…r7 of the dense output, 7·n
};

}  // namespace tether::integrate
