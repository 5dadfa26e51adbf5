// Radau IIA of order 5 ("radau5"): the implicit three-stage Runge–Kutta collocation method in
// the design of E. Hairer and G. Wanner's RADAU5 — Solving Ordinary Differential Equations II
// (2nd ed., Springer 1996), IV.8 "Implementation of Implicit Runge–Kutta Methods", and the
// Fortran code radau5.f with its linear algebra dc_decsol.f (version of September 1995;
// http://www.unige.ch/~hairer/software.html). Every constant below is radau5.f's.
//
// Problem: M x' = F(t, x), M constant, possibly singular (stepper.h): a zero row of M is an
// algebraic equation 0 = F_i, solved inside the stage system (index 1; HW II, VI.1 and VII.4).
//
// Tableau (HW II, IV.5, Table 5.6), √6 ≈ 2.449:
//   c1 = (4 − √6)/10 | (88 − 7√6)/360     (296 − 169√6)/1800  (−2 + 3√6)/225
//   c2 = (4 + √6)/10 | (296 + 169√6)/1800 (88 + 7√6)/360      (−2 − 3√6)/225
//   c3 = 1           | (16 − √6)/36       (16 + √6)/36        1/9
//   -----------------+-----------------------------------------------------
//                    | (16 − √6)/36       (16 + √6)/36        1/9     (b = last row: stiffly
// accurate, x_new = the last stage; order 5 at step points, stage order 3).
//
// Stage system in the increments z_i = X_i − x0 (X_i the stage values), Z = (z1, z2, z3):
//   (I₃ ⊗ M) Z = h (A ⊗ I) F(Z),   F(Z)_i = F(t + c_i h, x0 + z_i).
// Simplified Newton with J = ∂F/∂x (t0, x0) kept fixed, after multiplying by (hA)⁻¹ ⊗ I and
// transforming W = (T⁻¹ ⊗ I) Z with T⁻¹ A⁻¹ T = diag(γ, [[α, −β], [β, α]]) (HW II (8.15)):
//   (γ/h M − J) ΔW1 = (T⁻¹F(Z))_1 − γ/h M W1                                   real, n × n
//   ((α + iβ)/h M − J) (ΔW2 + iΔW3) = (T⁻¹F(Z))_2 + i(T⁻¹F(Z))_3
//                                     − (α + iβ)/h M (W2 + iW3)                complex, n × n
//   W ← W + ΔW,   Z = (T ⊗ I) W.
// γ = 3.6378342527444957, α = 2.6810828736277521, β = 3.0504301992474105 are the
// eigenvalues of A⁻¹ (radau5.f: U1, ALPH, BETA). T and T⁻¹ (radau5.f's T11…T31, TI11…TI33;
// T32 = 1, T33 = 0) are in radau5.cc. So one real and one complex LU (newton_matrices.h)
// serve every iteration and every step until J or h changes.
//
// Newton control (HW II, IV.8, (8.9)–(8.21); radau5.f loop 40):
//   ‖·‖ = RMS over the 3n components of ΔW with the weights sc_i below;
//   θ_k = ‖ΔW_k‖/‖ΔW_{k−1}‖ (k = 2), √(θ_k θ_{k−1}) later; η = θ/(1 − θ) (the first iteration
//   of a step uses η = max(η_old, ε)^0.8); stop when η‖ΔW_k‖ ≤ κ·tol = newton_tolerance
//   (default FNEWT = max(10ε/rtol', min(0.03, √rtol'))) — for systems with algebraic
//   equations (a zero row of M) only from k = 2 on. That is a deviation from RADAU5, which
//   may stop after one iteration on the previous step's η: the error estimate does not see
//   the Newton error of algebraic components (it lies in M's null space), and on
//   CoupledMassDae (tests) a one-iteration stop left |y − x1 x2| = 4e-6 at rtol = 1e-8; with
//   the measured θ it is 1e-16 (and the run took 110 steps instead of 118).
//   The attempt fails if θ ≥ 0.99 (kNewtonDiverged, h ← h·failure_factor) or after
//   newton_max_iterations iterations (kNewtonTooSlow, h ← h·failure_factor); if
//   η‖ΔW_k‖θ^(nit−1−k)/κtol ≥ 1 convergence is
//   predicted too slow: kNewtonTooSlow with h ← h·0.8·q^(−1/(4 + nit − 1 − k)),
//   q = clamp(that quotient, 1e-4, 20). A failing or non-finite stage evaluation fails the
//   attempt too (h ← h·failure_factor).
// Starting values: zero on the first step after Resize, after a jump in t, and when the
// previous step is unknown; otherwise the previous step's collocation polynomial extrapolated
// to the new stage times (radau5.f, STARTN = false), z_i = u(c_i h_new/h_old).
//
// Error estimate (HW II, IV.8, (8.19)–(8.20); dc_decsol.f ESTRAD):
//   err_vec = (γ/h M − J)⁻¹ [F(t0, x0) + M (e1 z1 + e2 z2 + e3 z3)/h],
//   e1 = −(13 + 7√6)/3, e2 = (−13 + 7√6)/3, e3 = −1/3,
//   err = max(RMS(err_vec_i / sc_i), 1e-10);
// on the first step and after a rejection, an err ≥ 1 is filtered once more:
//   err_vec ← (γ/h M − J)⁻¹ [F(t0, x0 + err_vec) + M (e·z)/h]   (one evaluation of F).
// Weights sc_i = atol'_i + rtol'·|x0_i|, divided by h^(k−1) for components of index k ≥ 2
// (OdeSystem::variable_index; RADAU5's NIND2, NIND3); sc_i = sc_k / h for a component that is
// the derivative x_k' of another (OdeSystem::derivative_of: an implicit model's der(x), which
// RADAU5's M x' = f formulation never makes an unknown). With its own weight the catalog's
// transistor amplifier took 10781 steps at rtol = atol = 1e-8 (5192 with sc_k / h, both
// ending within 5e-10 of the test set's reference), and at 1e-10 every step below h = 1e-6
// failed at t = 0.0131: the Newton increments of der(y7), der(y8) stalled at 0.01–0.1 of
// their own weight, far above newton_tolerance.
// Tolerances: rtol' = rtol and atol'_i = atol_i, as for tether's other adaptive methods: the
// order-3 estimate above is kept ≤ the user's tolerances. This deviates from RADAU5, which
// converts them once to rtol' = 0.1 rtol^(2/3), atol'_i = rtol' · atol_i/rtol (looser than
// rtol below rtol = 1e-3: 1e-5 at 1e-6, 2.2e-8 at 1e-10), calibrated so that the global error
// of dissipative stiff problems comes out near rtol. On problems that do not damp their errors
// it under-delivered: measured digits (−log10 of the largest relative error at t_end) at
// rtol = 1e-6, 1e-8, 1e-10: the seed pendulum to t = 10 4.2, 5.8, 7.4 (now 5.4, 7.8, 10.4); a
// circular Kepler orbit to t = 20 3.1, 5.4, 7.3. Now every problem of
// bench/stiff_work_precision reaches at least −log10(rtol) − 1 digits at these tolerances
// (Robertson 8.6, 11, 12.9; van der Pol μ = 1e6 8.0, 10.4, 12.8; the chain 7.6, 9.7, 11), at
// 1.4–3.6 times the steps RADAU5's conversion took there.
//
// Step-size control (radau5.f after ESTRAD), safety = options.safety (RADAU5's SAFE 0.9),
// nit = newton_max_iterations, k = this step's Newton iterations:
//   fac = min(safety, safety(1 + 2 nit)/(k + 2 nit)),
//   quot = clamp(err^(1/4)/fac, 1/max_factor, 1/min_factor),  h_new = h/quot;
// accept iff err < 1. On acceptance with the predictive controller of Gustafsson (HW II,
// IV.8, (8.25)), from the second accepted step on:
//   quot_G = clamp((h_acc/h) (err²/err_acc)^(1/4)/safety, 1/max_factor, 1/min_factor),
//   h_new = h/max(quot, quot_G),   h_acc = h, err_acc = max(1e-2, err);
// after a rejection within the step h_new ≤ h; h_new ≤ max_step; and if J is kept
// (θ ≤ jacobian_reuse_theta) while h_new/h ∈ [keep_step_lower, keep_step_upper], h is kept
// so the factors are reused. On rejection h ← h_new, or h/10 before the first accepted step.
// J is evaluated again after a step with θ > jacobian_reuse_theta, and after any rejection
// unless it was evaluated during this step already. The factors are renewed whenever J or h
// changes; repeated singular Newton matrices (kSingularMatrix, h ← h·failure_factor) end the
// step after 5 within it (RADAU5's NSING).
//
// Dense output: the collocation polynomial u of the last step, of order 3 (HW II, IV.8;
// radau5.f CONTR5), with s = (t_out − t_end)/h ∈ [−1, 0]:
//   u = x_end + s (d1 + (s − c2 + 1)(d2 + (s − c1 + 1) d3)),
//   d1 = (z2 − z3)/(c2 − 1), a = (z1 − z2)/(c1 − c2), d2 = (a − d1)/(c1 − 1),
//   d3 = d2 − (a − z1/c1)/c2.
// The ends are returned exactly (x0 and x_end).
// Its error is O(h⁴) and nothing controls it: the error estimate below is filtered by
// (γ/h M − J)⁻¹, which damps the stiff components, while u between the stages is not damped.
// On x' = −10⁶(x − cos t) − sin t (t ≤ 10, samples every 0.5) the step ends were within 1e-8
// of cos t at rtol 1e-6, and u 0.21 off between them (h ≈ 1.5; 1.75e-4 at rtol 1e-8). So
// samples_at_step_ends(): callers end a step at every output time rather than interpolate.
//
// Fixed-step use (error_control = false): every step takes the h given, with no error
// estimate. Since h cannot shrink, the Newton iteration is not cut short by its predicted
// rate, only by divergence or newton_max_iterations; that ends the step with kNewtonFailed,
// a failing evaluation with kRhsFailed / kNonFinite (a fixed step cannot retry).
//
// Cost per step: F(t0, x0) once, 3 evaluations per Newton iteration, 1 more when the error
// estimate is filtered twice; n more for a Jacobian by differences. Statistics count one
// factorization per pair (real + complex) of LUs, as RADAU5's NDEC.
//
// Linear algebra (newton_matrices.h): sparse LU (KLU) for systems with a symbolic Jacobian,
// n ≥ StepperOptions::sparse_min_size = 16 and a pattern density ≤ sparse_max_density = 0.5;
// dense LU otherwise. Measured by bench/radau5_linear_algebra (bench/results/
// radau5_linear_algebra.md, `build/dev/bench/radau5_linear_algebra`): whole radau5 runs on
// stiff diffusion problems cost the same dense and sparse at n ≈ 10 for a tridiagonal or
// 5-point Jacobian (sparse 1.7× faster at n = 16, 10× at 64, 160× at 256); with banded
// Jacobians of n = 16…256 sparse still wins at density 0.6 (1.1–1.5×), breaks even near 0.75
// and loses on full patterns (dense 1.3–2× faster), so 0.5 keeps a margin.
//
// Memory: Resize allocates every work array; the first Step with a system adopts its
// structure (newton_matrices.h), which allocates when M or J has a pattern, and sparse
// systems run KLU's analysis and first factorization then. Later Steps allocate nothing unless
// KLU must renew degraded pivots (tether/linalg/klu_factorization.h).
#pragma once

#include <array>
#include <complex>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "integrate/newton_matrices.h"
#include "tether/integrate/stepper.h"

namespace tether::integrate {

class Radau5 final : public Stepper {
 public:
  explicit Radau5(const StepperOptions& options);

  [[nodiscard]] std::string_view name() const override { return "radau5"; }
  [[nodiscard]] int order() const override { return 5; }
  [[nodiscard]] bool adaptive() const override { return true; }
  [[nodiscard]] bool implicit() const override { return true; }
  [[nodiscard]] bool samples_at_step_ends() const override { return true; }
  [[nodiscard]] std::unique_ptr<Stepper> Clone() const override;
  [[nodiscard]] const StepperOptions& options() const override { return options_; }
  void Resize(std::size_t n) override;
  StepResult Step(OdeSystem& system, double t, std::span<const double> x, double h,
                  std::span<double> x_new) override;
  void Interpolate(double t_out, std::span<double> x_out) const override;

 private:
  // The outcome of one attempt's Newton iteration.
  struct NewtonOutcome {
    AttemptFailure failure = AttemptFailure::kNone;  // kNone: converged
    double step_factor = 1.0;  // on failure, retry with h ← h · step_factor
    int iterations = 0;
  };

  [[nodiscard]] std::span<double> Row(std::vector<double>& v, std::size_t k) const;
  void ComputeWeights(double h);
  void StartingValues(double h, bool extrapolate);
  StepStatus EvaluateStages(OdeSystem& system, double t, double h, int* evaluations);
  NewtonOutcome SolveStages(OdeSystem& system, double t, double h, bool extrapolate,
                            int* evaluations);
  double ErrorNorm(OdeSystem& system, double t, double h, bool filter_twice, int* evaluations);
  [[nodiscard]] double WeightedRms(std::span<const double> v) const;
  [[nodiscard]] double Quotient(double err, int iterations) const;
  void AcceptStep(double t, double h, std::span<double> x_new);
  double NextStep(double h, double err, int iterations, bool rejected_in_step);
  StepResult Fail(StepResult result, StepStatus status);

  StepperOptions options_;
  std::size_t n_ = 0;
  double rtol_ = 0.0;                // rtol' (header)
  std::vector<double> atol_;         // atol'_i
  double newton_tolerance_ = 0.0;    // κ·tol
  NewtonMatrices matrices_;

  std::vector<double> x0_, f0_;      // the step's start and F(t0, x0)
  std::vector<double> base_weights_; // atol'_i + rtol'·|x0_i|
  std::vector<double> weights_;      // sc_i for the current h (index scaling)
  std::vector<std::uint8_t> index_;  // variable_index(), empty when all ≤ 1
  std::vector<std::uint32_t> derivative_of_;  // derivative_of(), empty when none is
  std::vector<double> z_;            // z1, z2, z3 (3n)
  std::vector<double> w_;            // W (3n)
  std::vector<double> f_;            // stage values of F, then T⁻¹F and ΔW (3n)
  std::vector<double> work_, mass_work_, error_;  // n each
  std::vector<double> dense_;        // d1, d2, d3 of the last accepted step (3n)
  std::vector<double> x_end_;        // its end state

  // History since Resize.
  bool has_step_ = false;     // an accepted step exists and Interpolate may use it
  bool accepted_any_ = false; // RADAU5's "not FIRST"
  int accepted_ = 0;          // accepted steps (Gustafsson starts at the second)
  double t_start_ = 0.0, t_end_ = 0.0, h_last_ = 0.0;
  double proposal_ = 0.0;     // the controller's next step, 0 before the first
  double h_acc_ = 0.0, err_acc_ = 0.0;  // Gustafsson's memory
  double eta_ = 1.0;          // η of the last Newton iteration (RADAU5's FACCON)
  double theta_ = 0.0;        // θ of the last Newton iteration
  bool jacobian_current_ = false;  // J belongs to the present system and is not condemned
  double factored_h_ = 0.0;   // the h the factors were made for (0: none)
};

}  // namespace tether::integrate
