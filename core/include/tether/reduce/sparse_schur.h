// The Schur complement S = A W⁻¹ Aᵀ of a sparse A (rows × cols, a pattern fixed when built)
// and a diagonal W⁻¹, formed from the products that are structurally non-zero and factored by
// SparseLdlt in a fill-reducing order chosen once: the eliminated KKT system
//     [W  Aᵀ; A  0]   →   S μ = r,   δ = W⁻¹ Aᵀ μ + …
// of the multipliers (A = Φ_q, W = M: sparse_multipliers.h) and of the Newton projection
// (A = H_b, W the metric: tether/project/newton_projection.h). With X = W⁻¹ Aᵀ, which has Aᵀ's
// pattern,  S_ij = Σ_k A_ik A_jk w⁻¹_k  over the columns k rows i and j share. Cost per Form:
// O(nnz A + Σ_k c_k²), c_k the number of rows on column k; per Factor O(Σ_j |L_j|²).
// Results equal the dense Schur complement's to rounding: the same sums, in another order.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include <Eigen/Dense>

#include "tether/reduce/sparse_ldlt.h"

namespace tether::reduce {

class SparseSchur {
 public:
  // Structural non-zeros of A, row by row, columns ascending.
  struct Pattern {
    std::size_t rows = 0;
    std::size_t cols = 0;
    std::vector<int> row_start;  // rows + 1
    std::vector<int> col;        // nnz

    // The entries (i, j) of a rows × cols matrix for which nonzero(i, j) holds.
    static Pattern Where(std::size_t rows, std::size_t cols,
                         const std::function<bool(std::size_t, std::size_t)>& nonzero);
  };

  SparseSchur() = default;
  // The symbolic work: S's pattern and order, the products that form it, its analysis.
  explicit SparseSchur(Pattern pattern);

  [[nodiscard]] const Pattern& pattern() const { return pattern_; }
  [[nodiscard]] std::size_t nonzeros() const { return pattern_.col.size(); }

  // S = A W⁻¹ Aᵀ and X from A's values `a` (nnz, in the pattern's order) and W⁻¹'s diagonal
  // (cols).
  void Form(const double* a, const double* w_inverse);
  // S_ii after Form, and S_ii += value (before Factor).
  [[nodiscard]] double diagonal(std::size_t i) const;
  void AddToDiagonal(std::size_t i, double value);
  // Factors S; false iff it is rank-deficient by the test of tether/reduce/rank.h (a pivot
  // |D_k| ≤ threshold · max |D|, or 0, or not finite).
  bool Factor(double threshold);
  // μ ← S⁻¹ μ (rows values, in A's row order), with the last successful Factor.
  void Solve(double* mu);
  // out ← A d (cols → rows), A's values given as to Form.
  void Multiply(const double* a, const double* d, double* out) const;
  // y ← y + X μ (rows → cols), X of the last Form.
  void AddX(const double* mu, double* y) const;
  // A as a dense matrix: for failure messages only.
  [[nodiscard]] Eigen::MatrixXd Dense(const double* a) const;
  [[nodiscard]] std::size_t factor_nonzeros() const { return ldlt_.factor_nonzeros(); }

 private:
  // S's entry `entry` (an index into its upper-triangle values) gains A[a] · X[b].
  struct Product {
    int entry;
    int a;
    int b;
  };

  Pattern pattern_;
  std::vector<int> position_;  // row i of A is row position_[i] of the ordered S
  std::vector<int> diagonal_;  // index of S_ii among S's values, by A's row
  std::vector<int> s_start_;   // S's upper triangle, column by column (ordered indices)
  std::vector<int> s_row_;
  std::vector<Product> products_;
  SparseLdlt ldlt_;
  std::vector<double> s_;      // S's values
  std::vector<double> x_;      // X = W⁻¹ Aᵀ, in A's pattern
  std::vector<double> work_;   // a right-hand side in S's order
};

}  // namespace tether::reduce
