// The multipliers of the mechanical stage kernel (reduced_model.h, StageKernel::kMultipliers)
// by dense linear algebra, for any symmetric positive definite mass matrix M:
//   w = M⁻¹ f,   X = M⁻¹ Φ_qᵀ,   S = Φ_q X,
//   λ = S⁻¹(−(a + 2αh + β²Φ) − Φ_q w),   v' = w + X λ,
// with M's Cholesky factor cached while M stays the same (mass_factor.h) and S factored by the
// pivoted LDLᵀ of small_dense.h; a pivot of S below RelativePivotThreshold(n) of the largest is
// rank deficiency. Cost per call O(n²) to compare M, O(m n + m² n + m³) for the rest.
//
// The stage program computes, in this order (the "dense layout"):
//   [M (n × n, row-major), f (n), Φ_q (m × n, row-major), a (m), Φ (m), h (m)].
//
// Small systems (n ≤ kMaxFixedCoordinates, m ≤ kMaxFixedConstraints: a pendulum, a slider-crank,
// most models in minimal coordinates) run the same loops compiled for their sizes, unrolled
// and without the calls and trip-count tests that dominate at such sizes; the results are
// bitwise those of the general loops.
#pragma once

#include <cstddef>
#include <vector>

#include "tether/reduce/mass_factor.h"
#include "tether/reduce/multiplier_status.h"
#include "tether/reduce/small_dense.h"

namespace tether::reduce {

class DenseMultipliers {
 public:
  static constexpr std::size_t kMaxFixedCoordinates = 6;
  static constexpr std::size_t kMaxFixedConstraints = 3;

  DenseMultipliers() = default;
  // For n coordinates and m constraints.
  DenseMultipliers(std::size_t n, std::size_t m,
                   dense::Kernels kernels = dense::Kernels::kFixedSizeWhereSmall);

  // Whether Solve runs loops compiled for this system's sizes.
  [[nodiscard]] bool fixed_size() const { return fixed_size_; }

  // λ (m) and v' (n) from one evaluation of the stage program in the dense layout.
  MultiplierStatus Solve(const double* stage, double alpha, double beta, double* vdot,
                         double* lambda) {
    return solve_(*this, stage, alpha, beta, vdot, lambda);
  }

 private:
  using Kernel = MultiplierStatus (*)(DenseMultipliers&, const double*, double, double, double*,
                                      double*);
  // The solve with n = N and m = M fixed at compile time (0: the run-time sizes).
  template <std::size_t N, std::size_t M>
  static MultiplierStatus SolveSized(DenseMultipliers& self, const double* stage, double alpha,
                                     double beta, double* vdot, double* lambda);
  static Kernel KernelFor(std::size_t n, std::size_t m);

  std::size_t n_ = 0;
  std::size_t m_ = 0;
  double pivot_threshold_ = 0.0;  // RelativePivotThreshold(n)
  Kernel solve_ = nullptr;
  bool fixed_size_ = false;
  // Work memory of Solve.
  MassFactor mass_factor_;
  std::vector<double> minv_f_;       // w = M⁻¹ f, n
  std::vector<double> minv_jt_;      // Xᵀ = (M⁻¹ Φ_qᵀ)ᵀ, row-major m × n
  std::vector<double> schur_;        // S and its LDLᵀ, m × m
  std::vector<double> schur_d_;      // D of the LDLᵀ, m
  std::vector<std::size_t> schur_perm_;
  std::vector<double> solve_work_;   // m
};

}  // namespace tether::reduce
