// Dormand–Prince 5(4) ("dp5"): the explicit embedded Runge–Kutta pair of J. R. Dormand and
// P. J. Prince, "A family of embedded Runge–Kutta formulae", J. Comput. Appl. Math. 6 (1980)
// 19–26; tableau as in Hairer–Nørsett–Wanner, Solving ODE I, 2nd ed., II.5, Table 5.2, and
// Hairer's dopri5.f.
//
//   0    |
//   1/5  | 1/5
//   3/10 | 3/40        9/40
//   4/5  | 44/45      −56/15       32/9
//   8/9  | 19372/6561 −25360/2187  64448/6561 −212/729
//   1    | 9017/3168  −355/33      46732/5247  49/176  −5103/18656
//   1    | 35/384      0           500/1113    125/192 −2187/6784    11/84
//   -----+------------------------------------------------------------------------
//   b    | 35/384      0           500/1113    125/192 −2187/6784    11/84      0
//   b̂    | 5179/57600  0           7571/16695  393/640 −92097/339200 187/2100   1/40
//
// x_new = x + h Σ b_i k_i (order 5, local extrapolation); the 7th stage k7 = F(t + h, x_new)
// is first-same-as-last: it is the next step's k1 when that step starts at (t + h, x_new)
// unchanged (embedded_runge_kutta.h explains the check against projection).
// Error estimate (order q = 4): e = h Σ (b_i − b̂_i) k_i with
//   b − b̂ = (71/57600, 0, −71/16695, 71/1920, −17253/339200, 22/525, −1/40),
// err = WrmsNorm(e, x, x_new) (HNW I, II.4, (4.11)); controller exponent −1/5.
//
// Dense output: Hairer's continuous extension of order 4 (HNW I, II.6, and CONTD5 of
// dopri5.f), with θ = (t_out − t)/h, θ' = 1 − θ:
//   r1 = x, r2 = x_new − x, r3 = h k1 − r2, r4 = r2 − h k7 − r3,
//   r5 = h (d1 k1 + d3 k3 + d4 k4 + d5 k5 + d6 k6 + d7 k7),
//   x(t_out) = r1 + θ (r2 + θ' (r3 + θ (r4 + θ' r5))),
// d1 = −12715105075/11282082432, d3 = 87487479700/32700410799,
// d4 = −10690763975/1880347072, d5 = 701980252875/199316789632,
// d6 = −1453857185/822651844,   d7 = 69997945/29380423.
// No extra evaluation: 6 per step with FSAL reuse, 7 otherwise.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "integrate/embedded_runge_kutta.h"

namespace tether::integrate {

class DormandPrince final : public EmbeddedRungeKutta {
 public:
  explicit DormandPrince(const StepperOptions& options) : EmbeddedRungeKutta(options) {}

  [[nodiscard]] std::string_view name() const override { return "dp5"; }
  [[nodiscard]] int order() const override { return 5; }
  [[nodiscard]] std::unique_ptr<Stepper> Clone() const override;
  void Interpolate(double t_out, std::span<double> x_out) const override;

 private:
  [[nodiscard]] int error_order() const override { return 4; }
  [[nodiscard]] double stability_boundary() const override { return 3.25; }
  void ResizeStages(std::size_t n) override;
  StepStatus Attempt(OdeSystem& system, double t, double h, std::span<double> x_new,
                     double* err, int* evaluations) override;
  StepStatus Finish(OdeSystem& system, double t, double h, std::span<const double> x_new,
                    int* evaluations) override;

  // Pointers to k1…k7 (k1 = f0(), k7 = f_end()); the writable stage s ∈ 1…6 (0-based).
  [[nodiscard]] std::array<const double*, 7> Stages() const;
  [[nodiscard]] std::span<double> StageOut(std::size_t s);

  std::size_t n_ = 0;
  std::vector<double> k_;      // stages k2…k6 (k1 = f0(), k7 = f_end()), 5·n
  std::vector<double> work_;   // stage argument x + h Σ a_ij k_j, then the error vector
  std::vector<double> dense_;  // r2…r5 of the continuous extension, 4·n
};

}  // namespace tether::integrate
