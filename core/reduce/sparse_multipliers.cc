#include "tether/reduce/sparse_multipliers.h"

#include <algorithm>
#include <utility>

#include "tether/reduce/rank.h"

namespace tether::reduce {

bool SparseMultipliers::IsDiagonal(const expr::Context& cx, const std::vector<expr::Expr>& mass,
                                   std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (i != j && !cx.is_constant(mass[i * n + j], 0.0)) return false;
    }
  }
  return true;
}

SparseMultipliers::Pattern SparseMultipliers::PatternOf(
    const expr::Context& cx, const std::vector<std::vector<expr::Expr>>& jacobian,
    std::size_t n) {
  return Pattern::Where(jacobian.size(), n, [&](std::size_t i, std::size_t k) {
    return !cx.is_constant(jacobian[i][k], 0.0);
  });
}

SparseMultipliers::SparseMultipliers(Pattern pattern)
    : schur_(std::move(pattern)),
      inverse_mass_(schur_.pattern().cols, 0.0),
      minv_f_(schur_.pattern().cols, 0.0),
      rhs_(schur_.pattern().rows, 0.0) {}

bool SparseMultipliers::Pays() const {
  const std::size_t m = pattern().rows;
  if (m < kFromConstraints) return false;
  if (m < kDensityFromConstraints) return true;
  const auto factor_entries = static_cast<double>(schur_.factor_nonzeros() + m);
  return factor_entries <= kMaxFactorDensity * static_cast<double>(m * (m + 1) / 2);
}

std::vector<expr::Expr> SparseMultipliers::StageOutputs(
    const std::vector<expr::Expr>& mass, const std::vector<expr::Expr>& forces,
    const std::vector<std::vector<expr::Expr>>& phi_q, const std::vector<expr::Expr>& a,
    const std::vector<expr::Expr>& phi, const std::vector<expr::Expr>& h) const {
  const std::size_t n = pattern().cols;
  std::vector<expr::Expr> stage;
  for (std::size_t k = 0; k < n; ++k) stage.push_back(mass[k * n + k]);
  stage.insert(stage.end(), forces.begin(), forces.end());
  for (std::size_t i = 0; i < pattern().rows; ++i) {
    for (int p = pattern().row_start[i]; p < pattern().row_start[i + 1]; ++p) {
      const auto k = static_cast<std::size_t>(pattern().col[static_cast<std::size_t>(p)]);
      stage.push_back(phi_q[i][k]);
    }
  }
  for (const auto* part : {&a, &phi, &h}) stage.insert(stage.end(), part->begin(), part->end());
  return stage;
}

MultiplierStatus SparseMultipliers::Solve(const double* stage, double alpha, double beta,
                                          double* vdot, double* lambda) {
  const std::size_t n = pattern().cols;
  const std::size_t m = pattern().rows;
  const double* d = stage;
  const double* f = d + n;
  const double* phi_q = f + n;
  const double* a = phi_q + schur_.nonzeros();
  const double* phi = a + m;
  const double* h = phi + m;
  for (std::size_t k = 0; k < n; ++k) {
    if (!(d[k] > 0.0)) return MultiplierStatus::kMassNotPositive;
    inverse_mass_[k] = 1.0 / d[k];
    minv_f_[k] = f[k] / d[k];
    vdot[k] = minv_f_[k];
  }
  if (m == 0) return MultiplierStatus::kOk;
  schur_.Form(phi_q, inverse_mass_.data());
  if (!schur_.Factor(RelativePivotThreshold(n))) return MultiplierStatus::kSingular;
  schur_.Multiply(phi_q, minv_f_.data(), rhs_.data());  // Φ_q M⁻¹ f
  for (std::size_t i = 0; i < m; ++i) {
    rhs_[i] = -(a[i] + 2.0 * alpha * h[i] + beta * beta * phi[i]) - rhs_[i];
  }
  schur_.Solve(rhs_.data());
  std::copy(rhs_.begin(), rhs_.end(), lambda);
  schur_.AddX(lambda, vdot);  // v' = M⁻¹ f + M⁻¹ Φ_qᵀ λ
  return MultiplierStatus::kOk;
}

Eigen::MatrixXd SparseMultipliers::DenseJacobian(const double* stage) const {
  return schur_.Dense(stage + 2 * pattern().cols);
}

}  // namespace tether::reduce
