// The multipliers of the mechanical stage kernel (reduced_model.h, StageKernel::kMultipliers)
// by sparse linear algebra, for a structurally diagonal mass matrix M = diag(d): point masses
// and bodies in Cartesian coordinates, the usual large multibody model. With X = M⁻¹ Φ_qᵀ,
// which has Φ_qᵀ's pattern,
//   S = Φ_q X,   S_ij = Σ_k Φ_ik Φ_jk / d_k   over the coordinates k rows i and j share,
//   λ = S⁻¹(−(a + 2αh + β²Φ) − Φ_q M⁻¹ f),   v' = M⁻¹ f + X λ,
// the dense kernel's equations with only the structurally non-zero entries touched, by
// SparseSchur (A = Φ_q, W = M). Cost per call: O(nnz Φ_q + Σ_k c_k² + nnz L), c_k the number
// of constraints on coordinate k; for a chain (c_k ≤ 2, S tridiagonal) that is linear in its
// length, against O(n m² + m³) dense.
//
// The stage program then computes only what this reads, in this order (its "sparse layout"):
//   [d (n), f (n), Φ_q's structurally non-zero entries row by row (nnz), a (m), Φ (m), h (m)].
// Results equal the dense kernel's to rounding: the same sums, in another order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "tether/expr/expr.h"
#include "tether/reduce/multiplier_status.h"
#include "tether/reduce/sparse_schur.h"

namespace tether::reduce {

class SparseMultipliers {
 public:
  // Structural non-zeros of Φ_q (m × n).
  using Pattern = SparseSchur::Pattern;

  // True iff every off-diagonal entry of the row-major n × n `mass` is the constant 0.
  static bool IsDiagonal(const expr::Context& cx, const std::vector<expr::Expr>& mass,
                         std::size_t n);
  // The entries of `jacobian` (rows of n entries) that are not the constant 0.
  static Pattern PatternOf(const expr::Context& cx,
                           const std::vector<std::vector<expr::Expr>>& jacobian, std::size_t n);

  SparseMultipliers() = default;
  explicit SparseMultipliers(Pattern pattern);

  // Whether this pays against the dense kernel for a model with this pattern. Measured by
  // bench/expr_vs_hand on chains (diagonal M, tridiagonal S): sparse is as fast with one
  // constraint and 1.4–1.8× faster with two to four, the gap growing as n² (mass matrix) and
  // n³ (Schur complement). So: from kFromConstraints on, unless S's factor is more than
  // kMaxFactorDensity full on a large system, where the dense pivoted LDLᵀ does the same work
  // with direct indexing.
  static constexpr std::size_t kFromConstraints = 2;
  static constexpr std::size_t kDensityFromConstraints = 16;
  static constexpr double kMaxFactorDensity = 0.5;
  [[nodiscard]] bool Pays() const;

  [[nodiscard]] const Pattern& pattern() const { return schur_.pattern(); }
  // The stage program's outputs in the sparse layout (file comment), from the dense symbolic
  // M (row-major n × n), f, Φ_q (rows), a, Φ, h.
  [[nodiscard]] std::vector<expr::Expr> StageOutputs(
      const std::vector<expr::Expr>& mass, const std::vector<expr::Expr>& forces,
      const std::vector<std::vector<expr::Expr>>& phi_q, const std::vector<expr::Expr>& a,
      const std::vector<expr::Expr>& phi, const std::vector<expr::Expr>& h) const;

  // λ (m) and v' (n) from one evaluation of the stage program in the sparse layout.
  MultiplierStatus Solve(const double* stage, double alpha, double beta, double* vdot,
                         double* lambda);
  // Φ_q as a dense matrix from the same stage values: for the failure message only.
  [[nodiscard]] Eigen::MatrixXd DenseJacobian(const double* stage) const;

 private:
  SparseSchur schur_;
  // Work memory of Solve.
  std::vector<double> inverse_mass_;  // 1 / d
  std::vector<double> minv_f_;
  std::vector<double> rhs_;           // the right-hand side, then λ
};

}  // namespace tether::reduce
