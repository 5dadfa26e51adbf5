#include "tether/reduce/sparse_multipliers.h"

#include <algorithm>
#include <utility>

#include "tether/reduce/rank.h"
#include "tether/reduce/small_dense.h"

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
  Pattern pattern;
  pattern.m = jacobian.size();
  pattern.n = n;
  pattern.row_start.push_back(0);
  for (const auto& row : jacobian) {
    for (std::size_t k = 0; k < row.size(); ++k) {
      if (!cx.is_constant(row[k], 0.0)) pattern.col.push_back(static_cast<int>(k));
    }
    pattern.row_start.push_back(static_cast<int>(pattern.col.size()));
  }
  return pattern;
}

SparseMultipliers::SparseMultipliers(Pattern pattern) : pattern_(std::move(pattern)) {
  const std::size_t n = pattern_.n;
  const std::size_t m = pattern_.m;
  // The entries of Φ_q on each coordinate k: (row, index into Φ_q's values).
  std::vector<std::vector<std::pair<int, int>>> on_coordinate(n);
  for (std::size_t i = 0; i < m; ++i) {
    for (int p = pattern_.row_start[i]; p < pattern_.row_start[i + 1]; ++p) {
      on_coordinate[static_cast<std::size_t>(pattern_.col[static_cast<std::size_t>(p)])]
          .emplace_back(static_cast<int>(i), p);
    }
  }
  std::vector<std::pair<int, int>> pairs;  // S_ij ≠ 0, i < j, in constraint indices
  for (const auto& entries : on_coordinate) {
    for (std::size_t u = 0; u < entries.size(); ++u) {
      for (std::size_t w = u + 1; w < entries.size(); ++w) {
        pairs.emplace_back(entries[u].first, entries[w].first);
      }
    }
  }
  const std::vector<int> order = FillReducingOrder(m, pairs);
  position_.assign(m, 0);
  for (std::size_t k = 0; k < m; ++k) position_[static_cast<std::size_t>(order[k])] = static_cast<int>(k);

  // S's upper triangle in the new order: (column, row) keys, sorted and unique.
  struct Key {
    int col, row, a, b;
  };
  std::vector<Key> keys;
  for (const auto& entries : on_coordinate) {
    for (const auto& [row_a, a] : entries) {
      for (const auto& [row_b, b] : entries) {
        const int i = position_[static_cast<std::size_t>(row_a)];
        const int j = position_[static_cast<std::size_t>(row_b)];
        if (i <= j) keys.push_back({j, i, a, b});  // S_ij += Φ[a] X[b], upper triangle only
      }
    }
  }
  for (std::size_t k = 0; k < m; ++k) keys.push_back({static_cast<int>(k), static_cast<int>(k), -1, -1});
  std::sort(keys.begin(), keys.end(), [](const Key& x, const Key& y) {
    return x.col != y.col ? x.col < y.col : x.row < y.row;
  });
  std::vector<int> per_column(m, 0);
  int last_col = -1;
  int last_row = -1;
  for (const Key& key : keys) {
    if (key.col != last_col || key.row != last_row) {
      s_row_.push_back(key.row);
      ++per_column[static_cast<std::size_t>(key.col)];
      last_col = key.col;
      last_row = key.row;
    }
    if (key.a >= 0) products_.push_back({static_cast<int>(s_row_.size()) - 1, key.a, key.b});
  }
  s_start_.assign(m + 1, 0);
  for (std::size_t k = 0; k < m; ++k) s_start_[k + 1] = s_start_[k] + per_column[k];
  ldlt_.Analyze(m, s_start_, s_row_);
  s_.assign(s_row_.size(), 0.0);
  x_.assign(pattern_.col.size(), 0.0);
  minv_f_.assign(n, 0.0);
  work_.assign(m, 0.0);
}

bool SparseMultipliers::Pays() const {
  const std::size_t m = pattern_.m;
  if (m < kFromConstraints) return false;
  if (m < kDensityFromConstraints) return true;
  const auto factor_entries = static_cast<double>(ldlt_.factor_nonzeros() + m);
  return factor_entries <= kMaxFactorDensity * static_cast<double>(m * (m + 1) / 2);
}

std::size_t SparseMultipliers::stage_size() const {
  return 2 * pattern_.n + pattern_.col.size() + 3 * pattern_.m;
}

SparseMultipliers::Status SparseMultipliers::Solve(const double* stage, double alpha, double beta,
                                                   double* vdot, double* lambda) {
  const std::size_t n = pattern_.n;
  const std::size_t m = pattern_.m;
  const int* row_start = pattern_.row_start.data();
  const int* col = pattern_.col.data();
  const double* d = stage;
  const double* f = d + n;
  const double* phi_q = f + n;
  const double* a = phi_q + pattern_.col.size();
  const double* phi = a + m;
  const double* h = phi + m;
  double* minv_f = minv_f_.data();
  for (std::size_t k = 0; k < n; ++k) {
    if (!(d[k] > 0.0)) return Status::kMassNotPositive;
    minv_f[k] = f[k] / d[k];
    vdot[k] = minv_f[k];
  }
  if (m == 0) return Status::kOk;
  double* x = x_.data();
  double* s = s_.data();
  double* work = work_.data();
  const int* position = position_.data();
  for (std::size_t p = 0; p < x_.size(); ++p) x[p] = phi_q[p] / d[col[p]];
  std::fill(s_.begin(), s_.end(), 0.0);
  for (const Product& product : products_) s[product.entry] += phi_q[product.a] * x[product.b];
  if (!ldlt_.Factor(s_) ||
      dense::LdltIsRankDeficient(ldlt_.d().data(), m, RelativePivotThreshold(n))) {
    return Status::kSingular;
  }
  for (std::size_t i = 0; i < m; ++i) {
    double rhs = -(a[i] + 2.0 * alpha * h[i] + beta * beta * phi[i]);
    for (int p = row_start[i]; p < row_start[i + 1]; ++p) rhs -= phi_q[p] * minv_f[col[p]];
    work[position[i]] = rhs;
  }
  ldlt_.Solve(work);
  for (std::size_t i = 0; i < m; ++i) {
    const double lambda_i = work[position[i]];
    lambda[i] = lambda_i;
    for (int p = row_start[i]; p < row_start[i + 1]; ++p) vdot[col[p]] += lambda_i * x[p];
  }
  return Status::kOk;
}

Eigen::MatrixXd SparseMultipliers::DenseJacobian(const double* stage) const {
  const std::size_t n = pattern_.n;
  const double* phi_q = stage + 2 * n;
  Eigen::MatrixXd jacobian = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(pattern_.m),
                                                   static_cast<Eigen::Index>(n));
  for (std::size_t i = 0; i < pattern_.m; ++i) {
    for (int p = pattern_.row_start[i]; p < pattern_.row_start[i + 1]; ++p) {
      jacobian(static_cast<Eigen::Index>(i), pattern_.col[static_cast<std::size_t>(p)]) = phi_q[p];
    }
  }
  return jacobian;
}

}  // namespace tether::reduce
