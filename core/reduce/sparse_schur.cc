#include "tether/reduce/sparse_schur.h"

#include <algorithm>
#include <utility>

#include "tether/reduce/small_dense.h"

namespace tether::reduce {

SparseSchur::Pattern SparseSchur::Pattern::Where(
    std::size_t rows, std::size_t cols,
    const std::function<bool(std::size_t, std::size_t)>& nonzero) {
  Pattern pattern{.rows = rows, .cols = cols, .row_start = {0}, .col = {}};
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) {
      if (nonzero(i, j)) pattern.col.push_back(static_cast<int>(j));
    }
    pattern.row_start.push_back(static_cast<int>(pattern.col.size()));
  }
  return pattern;
}

SparseSchur::SparseSchur(Pattern pattern) : pattern_(std::move(pattern)) {
  const std::size_t rows = pattern_.rows;
  // The entries of A on each column k: (row, index into A's values).
  std::vector<std::vector<std::pair<int, int>>> on_column(pattern_.cols);
  for (std::size_t i = 0; i < rows; ++i) {
    for (int p = pattern_.row_start[i]; p < pattern_.row_start[i + 1]; ++p) {
      on_column[static_cast<std::size_t>(pattern_.col[static_cast<std::size_t>(p)])]
          .emplace_back(static_cast<int>(i), p);
    }
  }
  std::vector<std::pair<int, int>> pairs;  // S_ij ≠ 0, i < j, in A's row indices
  for (const auto& entries : on_column) {
    for (std::size_t u = 0; u < entries.size(); ++u) {
      for (std::size_t w = u + 1; w < entries.size(); ++w) {
        pairs.emplace_back(entries[u].first, entries[w].first);
      }
    }
  }
  const std::vector<int> order = FillReducingOrder(rows, pairs);
  position_.assign(rows, 0);
  for (std::size_t k = 0; k < rows; ++k) {
    position_[static_cast<std::size_t>(order[k])] = static_cast<int>(k);
  }

  // S's upper triangle in the new order, as (column, row) keys sorted; each key carries the
  // product it receives, or none (a = −1) for the diagonal every row has.
  struct Key {
    int col, row, a, b;
  };
  std::vector<Key> keys;
  for (const auto& entries : on_column) {
    for (const auto& [row_a, a] : entries) {
      for (const auto& [row_b, b] : entries) {
        const int i = position_[static_cast<std::size_t>(row_a)];
        const int j = position_[static_cast<std::size_t>(row_b)];
        if (i <= j) keys.push_back({j, i, a, b});  // S_ij += A[a] X[b]
      }
    }
  }
  for (std::size_t k = 0; k < rows; ++k) {
    keys.push_back({static_cast<int>(k), static_cast<int>(k), -1, -1});
  }
  std::sort(keys.begin(), keys.end(), [](const Key& x, const Key& y) {
    return x.col != y.col ? x.col < y.col : x.row < y.row;
  });
  std::vector<int> per_column(rows, 0);
  std::vector<int> diagonal_at(rows, 0);  // by ordered index
  int last_col = -1;
  int last_row = -1;
  for (const Key& key : keys) {
    if (key.col != last_col || key.row != last_row) {
      s_row_.push_back(key.row);
      ++per_column[static_cast<std::size_t>(key.col)];
      last_col = key.col;
      last_row = key.row;
      if (key.row == key.col) {
        diagonal_at[static_cast<std::size_t>(key.col)] = static_cast<int>(s_row_.size()) - 1;
      }
    }
    if (key.a >= 0) products_.push_back({static_cast<int>(s_row_.size()) - 1, key.a, key.b});
  }
  s_start_.assign(rows + 1, 0);
  for (std::size_t k = 0; k < rows; ++k) s_start_[k + 1] = s_start_[k] + per_column[k];
  diagonal_.assign(rows, 0);
  for (std::size_t i = 0; i < rows; ++i) {
    diagonal_[i] = diagonal_at[static_cast<std::size_t>(position_[i])];
  }
  ldlt_.Analyze(rows, s_start_, s_row_);
  s_.assign(s_row_.size(), 0.0);
  x_.assign(pattern_.col.size(), 0.0);
  work_.assign(rows, 0.0);
}

void SparseSchur::Form(const double* a, const double* w_inverse) {
  const int* col = pattern_.col.data();
  double* x = x_.data();
  double* s = s_.data();
  for (std::size_t p = 0; p < x_.size(); ++p) x[p] = a[p] * w_inverse[col[p]];
  std::fill(s_.begin(), s_.end(), 0.0);
  for (const Product& product : products_) s[product.entry] += a[product.a] * x[product.b];
}

double SparseSchur::diagonal(std::size_t i) const {
  return s_[static_cast<std::size_t>(diagonal_[i])];
}

void SparseSchur::AddToDiagonal(std::size_t i, double value) {
  s_[static_cast<std::size_t>(diagonal_[i])] += value;
}

bool SparseSchur::Factor(double threshold) {
  return ldlt_.Factor(s_) &&
         !dense::LdltIsRankDeficient(ldlt_.d().data(), pattern_.rows, threshold);
}

void SparseSchur::Solve(double* mu) {
  const int* position = position_.data();
  double* work = work_.data();
  for (std::size_t i = 0; i < pattern_.rows; ++i) work[position[i]] = mu[i];
  ldlt_.Solve(work);
  for (std::size_t i = 0; i < pattern_.rows; ++i) mu[i] = work[position[i]];
}

void SparseSchur::Multiply(const double* a, const double* d, double* out) const {
  const int* row_start = pattern_.row_start.data();
  const int* col = pattern_.col.data();
  for (std::size_t i = 0; i < pattern_.rows; ++i) {
    double sum = 0.0;
    for (int p = row_start[i]; p < row_start[i + 1]; ++p) sum += a[p] * d[col[p]];
    out[i] = sum;
  }
}

void SparseSchur::AddX(const double* mu, double* y) const {
  const int* row_start = pattern_.row_start.data();
  const int* col = pattern_.col.data();
  const double* x = x_.data();
  for (std::size_t i = 0; i < pattern_.rows; ++i) {
    for (int p = row_start[i]; p < row_start[i + 1]; ++p) y[col[p]] += mu[i] * x[p];
  }
}

Eigen::MatrixXd SparseSchur::Dense(const double* a) const {
  Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(pattern_.rows),
                                            static_cast<Eigen::Index>(pattern_.cols));
  for (std::size_t i = 0; i < pattern_.rows; ++i) {
    for (int p = pattern_.row_start[i]; p < pattern_.row_start[i + 1]; ++p) {
      dense(static_cast<Eigen::Index>(i), pattern_.col[static_cast<std::size_t>(p)]) = a[p];
    }
  }
  return dense;
}

}  // namespace tether::reduce
