// LDLᵀ of a sparse symmetric matrix whose pattern is fixed: the symbolic analysis (elimination
// tree and column counts of L) once per pattern, the numeric factorization and the solves on
// every call without allocating. The algorithm is the up-looking one of T. A. Davis, "Algorithm
// 849: a concise sparse Cholesky factorization package", ACM TOMS 31(4), 2005: row k of L comes
// from a sparse triangular solve whose pattern is the reach of A's column k in the
// elimination tree, so the work is O(Σ_k |L_k|²) rather than O(size³).
//
// No pivoting. The matrices factored here are Schur complements S = Φ_q M⁻¹ Φ_qᵀ, positive
// definite when the constraints are independent, where LDLᵀ needs none (every pivot D_k is a
// ratio of leading minors, > 0); a rank-deficient S shows as a pivot that is 0 or tiny
// relative to the largest, which the caller tests (dense::LdltIsRankDeficient). The caller
// orders the rows to keep L sparse (FillReducingOrder).
#pragma once

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

namespace tether::reduce {

class SparseLdlt {
 public:
  // The pattern of the upper triangle, column by column: column j holds rows
  // row[col_start[j] .. col_start[j+1]) (each ≤ j, the diagonal included). `col_start` has
  // size + 1 entries.
  void Analyze(std::size_t size, std::span<const int> col_start, std::span<const int> row);

  // Factors the matrix whose upper-triangle values, in the pattern's order, are `values`.
  // False iff a pivot is exactly 0 or not finite (the factor is then unusable).
  bool Factor(std::span<const double> values);

  // D of the last Factor.
  [[nodiscard]] std::span<const double> d() const { return d_; }
  // x ← A⁻¹ x with the last successful Factor (size values).
  void Solve(double* x) const;

  [[nodiscard]] std::size_t size() const { return size_; }
  // Entries of L below the diagonal.
  [[nodiscard]] std::size_t factor_nonzeros() const {
    return l_start_.empty() ? 0 : static_cast<std::size_t>(l_start_.back());
  }

 private:
  std::size_t size_ = 0;
  std::vector<int> col_start_;  // the pattern of A (upper triangle)
  std::vector<int> row_;
  std::vector<int> parent_;     // elimination tree, −1 at a root
  std::vector<int> l_start_;    // L's columns: l_row_/l_value_[l_start_[j] .. l_start_[j+1])
  std::vector<int> l_row_;
  std::vector<double> l_value_;
  std::vector<double> d_;
  // Work memory of Factor.
  std::vector<double> y_;
  std::vector<int> flag_;
  std::vector<int> pattern_;
  std::vector<int> l_count_;
};

// A symmetric permutation of an size × size pattern that keeps the factor of the permuted
// matrix sparse (approximate minimum degree, Eigen's AMDOrdering): order[k] is the original
// index placed at position k. `pairs` lists the structurally non-zero entries (i, j), either
// triangle or both. Allocates; called once per pattern.
std::vector<int> FillReducingOrder(std::size_t size,
                                   std::span<const std::pair<int, int>> pairs);

}  // namespace tether::reduce
