// The multipliers of the mechanical stage kernel (reduced_model.h, StageKernel::kMultipliers)
// by sparse linear algebra, for a structurally diagonal mass matrix M = diag(d): point masses
// and bodies in Cartesian coordinates, the usual large multibody model. With X = M⁻¹ Φ_qᵀ,
// which has Φ_qᵀ's pattern,
//   S = Φ_q X,   S_ij = Σ_k Φ_ik Φ_jk / d_k   over the coordinates k rows i and j share,
//   λ = S⁻¹(−(a + 2αh + β²Φ) − Φ_q M⁻¹ f),   v' = M⁻¹ f + X λ,
// the dense kernel's equations with only the structurally non-zero entries touched. S is
// factored by SparseLdlt in a fill-reducing order fixed when the pattern is built. Cost per
// call: O(nnz Φ_q + Σ_k c_k² + nnz L), c_k the number of constraints on coordinate k; for a
// chain (c_k ≤ 2, S tridiagonal) that is linear in its length, against O(n m² + m³) dense.
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
#include "tether/reduce/sparse_ldlt.h"

namespace tether::reduce {

class SparseMultipliers {
 public:
  // Structural non-zeros of Φ_q (m × n), row by row, columns ascending.
  struct Pattern {
    std::size_t n = 0;
    std::size_t m = 0;
    std::vector<int> row_start;  // m + 1
    std::vector<int> col;        // nnz
  };

  // True iff every off-diagonal entry of the row-major n × n `mass` is the constant 0.
  static bool IsDiagonal(const expr::Context& cx, const std::vector<expr::Expr>& mass,
                         std::size_t n);
  // The entries of `jacobian` (rows of n entries) that are not the constant 0.
  static Pattern PatternOf(const expr::Context& cx,
                           const std::vector<std::vector<expr::Expr>>& jacobian, std::size_t n);

  SparseMultipliers() = default;
  // The symbolic work: S's pattern and order, the products that form it, its analysis.
  explicit SparseMultipliers(Pattern pattern);

  // Whether this pays against the dense kernel for a model with this pattern. Measured by
  // bench/expr_vs_hand on chains (diagonal M, tridiagonal S): sparse is as fast with one
  // constraint and 1.75× faster with two, the gap growing as n² (mass matrix) and n³ (Schur
  // complement). So: from kFromConstraints on, unless S's factor is more than
  // kMaxFactorDensity full on a large system, where the dense pivoted LDLᵀ does the same work
  // with direct indexing.
  static constexpr std::size_t kFromConstraints = 2;
  static constexpr std::size_t kDensityFromConstraints = 16;
  static constexpr double kMaxFactorDensity = 0.5;
  [[nodiscard]] bool Pays() const;

  [[nodiscard]] const Pattern& pattern() const { return pattern_; }
  [[nodiscard]] std::size_t stage_size() const;  // outputs of the sparse layout

  enum class Status { kOk, kMassNotPositive, kSingular };
  // λ (m) and v' (n) from one evaluation of the stage program in the sparse layout.
  Status Solve(const double* stage, double alpha, double beta, double* vdot, double* lambda);
  // Φ_q as a dense matrix from the same stage values: for the failure message only.
  [[nodiscard]] Eigen::MatrixXd DenseJacobian(const double* stage) const;

 private:
  // S's entry `entry` (an index into its upper-triangle values) gains Φ[a] · X[b].
  struct Product {
    int entry;
    int a;
    int b;
  };

  Pattern pattern_;
  std::vector<int> position_;  // constraint i is row position_[i] of the ordered S
  std::vector<int> s_start_;   // S's upper triangle, column by column (ordered indices)
  std::vector<int> s_row_;
  std::vector<Product> products_;
  SparseLdlt ldlt_;
  // Work memory of Solve.
  std::vector<double> s_;      // S's values
  std::vector<double> x_;      // X = M⁻¹ Φ_qᵀ, in Φ_q's pattern
  std::vector<double> minv_f_;
  std::vector<double> work_;   // the right-hand side, then λ, in S's order
};

}  // namespace tether::reduce
