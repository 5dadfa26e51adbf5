// The algebraic stage kernel's linear algebra (reduced_model.h, StageKernel::kAlgebraicNewton)
// by sparse LU, for large algebraic systems with a sparse c_y: a circuit's node equations, a
// flowsheet's balances, a discretized PDE. For the stage
//   x' = f(x, y, t),   0 = c(x, y, t),   c_y regular (m × m),
// the kernel works with c_y in two places:
//   kSolve:  Newton on c = 0,  y ← y − c_y⁻¹ c,  stopping on the scaled residual
//            max_i |c_i| / s_i,   s_i = max(1, ½ (Σ_j |c_x,ij x_j| + Σ_j |c_y,ij y_j|));
//   kOde:    y' = −c_y⁻¹ (c_x f + c_t).
// Dense, that is O(m³) per factorization and O(m (n + m)) per scale and product. Here c_y is
// factored by KLU (tether/linalg/klu_factorization.h: the pattern is analysed once, and later
// factorizations reuse its pivot order without allocating), and every sum runs over the
// structurally non-zero entries only. Results equal the dense kernel's to rounding: the same
// equations, with other pivots and the sums in another order.
//
// The stage program then computes only what this reads, in this order (its "sparse layout"):
//   [f (n), c (m), c_x's structurally non-zero entries row by row,
//    c_y's structurally non-zero entries column by column (KLU's compressed-column input, so
//    the program's values are factored where they are), c_t (m)].
//
// Rank: c_y counts as singular (the caller names the dependent rows from DenseCy) when KLU,
// with pivots chosen for its values, meets a zero pivot or a pivot ratio
// min_k |U_kk| / max_k |U_kk| of at most RelativePivotThreshold(m): the dense kernel's test of
// its partially pivoted LU (rank.h). KLU pivots by threshold (a diagonal entry within 10³ of
// its column's largest is kept, for sparsity), which can make the ratio up to that much smaller
// than partial pivoting's; the threshold, 10³·m·ε, still only flags a c_y whose condition
// exceeds ~5·10⁹/m (1 / (10³ · 10³·m·ε)).
//
// A copy starts unfactored: its first Factor analyses the pattern again, which allocates once.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include <Eigen/Dense>

#include "tether/expr/expr.h"
#include "tether/linalg/klu_factorization.h"
#include "tether/reduce/sparse_schur.h"

namespace tether::reduce {

class SparseAlgebraic {
 public:
  using Pattern = SparseSchur::Pattern;  // compressed rows
  using Matrix = std::vector<std::vector<expr::Expr>>;  // symbolic, row by row

  // The kernel for the structural non-zeros (the entries that are not the constant 0) of the
  // symbolic c_x (m × n) and c_y (m × m).
  SparseAlgebraic(const expr::Context& cx, const Matrix& c_x, const Matrix& c_y, std::size_t n);

  // Whether this pays against the dense kernel for this c_y. Measured with whole dp5 runs of
  // index-1 networks (`tether run --spec`, CPU dense / sparse, 2026-12-07): c_y bidiagonal,
  // m = 4: 1.0×, 8: 1.3×, 16: 2.0×, 256: 167× (0.369 s against 0.0022 s); banded with 3, 5,
  // 9, 17 entries per row at m = 8, 16, 32, 64: 1.1–1.25×, 1.3–1.5×, 1.3–1.8×, 3.3×. So: from
  // kFromRows algebraic variables on, unless c_y is more than kMaxDensity full (the densest
  // measured, 31–34 %, still broke even), where the dense LU does the same work with direct
  // indexing.
  static constexpr std::size_t kFromRows = 8;
  static constexpr double kMaxDensity = 0.35;
  // For this c_y; and for any square matrix of `size` rows with `nonzeros` entries (the reduced
  // Jacobian's G_w takes the same crossover).
  [[nodiscard]] bool Pays() const;
  [[nodiscard]] static bool Pays(std::size_t size, std::size_t nonzeros);

  // The stage program's outputs in the sparse layout (file comment).
  [[nodiscard]] std::vector<expr::Expr> StageOutputs(const std::vector<expr::Expr>& f,
                                                     const std::vector<expr::Expr>& c,
                                                     const Matrix& c_x, const Matrix& c_y,
                                                     const std::vector<expr::Expr>& c_t) const;

  // max_i |c_i| / s_i (file comment) from one evaluation of the stage program at (x, y).
  double ScaledResidual(const double* stage, std::span<const double> x,
                        std::span<const double> y);
  // c_x v (n values) into `out` (m values).
  void MultiplyCx(const double* stage, const double* v, double* out) const;
  // Factors c_y from the stage values; false when it is singular (file comment).
  bool Factor(double* stage);
  // b ← c_y⁻¹ b (m values), with the last successful Factor.
  void Solve(double* b) { klu_.Solve(std::span<double>(b, rows())); }
  // c_y as a dense matrix from the stage values: for the failure message only (allocates).
  [[nodiscard]] Eigen::MatrixXd DenseCy(const double* stage) const;

  [[nodiscard]] std::size_t rows() const { return c_y_columns_.rows; }
  [[nodiscard]] std::size_t c_y_nonzeros() const { return c_y_columns_.col.size(); }

 private:
  Pattern c_x_;          // c_x, m × n, by rows
  Pattern c_y_columns_;  // c_yᵀ by rows: c_y by columns (row_start: KLU's column pointers)
  std::size_t n_ = 0;
  std::size_t c_x_offset_ = 0;  // where each block starts in the stage values
  std::size_t c_y_offset_ = 0;
  linalg::KluFactorization klu_{linalg::KluFactorization::Values::kReal};
  std::vector<double> scale_;  // ½ Σ |…| per row of c, in ScaledResidual
};

}  // namespace tether::reduce
