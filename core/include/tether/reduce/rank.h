// Rank decisions for the small dense matrices of constraint handling: the Schur complement
// S = H_z W⁻¹ H_zᵀ (projection), S = Φ_q M⁻¹ Φ_qᵀ (multipliers) and g_y / h_y (algebraic
// Newton). tether never divides through a rank-deficient matrix: it reports which constraints
// are dependent.
//
// The threshold. Forming S from k columns of H_z commits a relative rounding error of about
// k·ε in every entry (ε = 2⁻⁵², one inner product per entry), so a pivot of S that is below
//   RelativePivotThreshold(k) = 1000 · k · ε   times the largest pivot
// cannot be told apart from zero: the factor 1000 leaves three decimal orders of margin for the
// error growth of the factorization and of the Jacobian's own evaluation. A matrix whose pivots
// stay above it has a condition number below ~1/(1000 k ε) ≈ 10¹²/k, which still leaves the
// Newton correction a few correct digits.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <Eigen/Dense>

namespace tether::reduce {

// 1000 · k · ε, see the file comment; k ≥ 1 is the inner dimension of the product.
double RelativePivotThreshold(std::size_t k);

// True iff the pivoted LDLT of a symmetric positive semidefinite matrix has a pivot
// |D_i| ≤ threshold · max_j |D_j| (or all pivots zero). Allocation-free.
bool LdltIsRankDeficient(const Eigen::LDLT<Eigen::MatrixXd>& ldlt, double threshold);

// True iff the partially pivoted LU has a diagonal entry |U_ii| ≤ threshold · max_j |U_jj|.
// Partial pivoting reveals rank in all but contrived cases; the failure path below confirms
// with an SVD before anything is reported. Allocation-free.
bool LuIsRankDeficient(const Eigen::PartialPivLU<Eigen::MatrixXd>& lu, double threshold);

// Rows of `a` that take part in its (numerical) rank deficiency: the entries of the left
// singular vector of the smallest singular value with |u_i| ≥ 0.1 · ‖u‖∞ (a dependent pair of
// rows shows as two entries of equal size). Allocates; for the failure path only.
std::vector<std::size_t> DependentRows(const Eigen::MatrixXd& a);

// "'c1', 'c2'" from row indices through `names` (duplicates dropped, order kept).
std::string NameList(const std::vector<std::size_t>& rows, const std::vector<std::string>& names);

}  // namespace tether::reduce
