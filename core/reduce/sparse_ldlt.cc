#include "tether/reduce/sparse_ldlt.h"

#include <algorithm>
#include <cmath>

#include <Eigen/OrderingMethods>
#include <Eigen/SparseCore>

namespace tether::reduce {

// The index arrays are int (Eigen's sparse index type, and −1 marks a root); the loops below
// index them through raw pointers to keep the algorithm's text close to Davis's.

void SparseLdlt::Analyze(std::size_t size, std::span<const int> col_start,
                         std::span<const int> row) {
  size_ = size;
  col_start_.assign(col_start.begin(), col_start.end());
  row_.assign(row.begin(), row.end());
  parent_.assign(size, -1);
  l_count_.assign(size, 0);
  flag_.assign(size, -1);
  const int n = static_cast<int>(size);
  const int* a_start = col_start_.data();
  const int* a_row = row_.data();
  int* parent = parent_.data();
  int* count = l_count_.data();
  int* flag = flag_.data();
  // Row k of L is the reach of A's column k (its entries above the diagonal) in the
  // elimination tree built so far; each node of it gains one entry, L(k, i), in column i.
  for (int k = 0; k < n; ++k) {
    flag[k] = k;
    for (int p = a_start[k]; p < a_start[k + 1]; ++p) {
      for (int i = a_row[p]; i < k && flag[i] != k; i = parent[i]) {
        if (parent[i] == -1) parent[i] = k;
        ++count[i];
        flag[i] = k;
      }
    }
  }
  l_start_.assign(size + 1, 0);
  for (std::size_t k = 0; k < size; ++k) l_start_[k + 1] = l_start_[k] + l_count_[k];
  l_row_.assign(static_cast<std::size_t>(l_start_.back()), 0);
  l_value_.assign(l_row_.size(), 0.0);
  d_.assign(size, 0.0);
  y_.assign(size, 0.0);
  pattern_.assign(size, 0);
}

bool SparseLdlt::Factor(std::span<const double> values) {
  const int n = static_cast<int>(size_);
  const int* a_start = col_start_.data();
  const int* a_row = row_.data();
  const int* parent = parent_.data();
  const int* l_start = l_start_.data();
  const double* a = values.data();
  int* l_row = l_row_.data();
  double* l_value = l_value_.data();
  int* count = l_count_.data();
  int* flag = flag_.data();
  int* pattern = pattern_.data();
  double* y = y_.data();
  double* d = d_.data();
  for (int k = 0; k < n; ++k) {
    // y = A's column k on and above the diagonal, scattered; pattern[top, n) = the rows of
    // L(k, ·), each after every row it depends on.
    y[k] = 0.0;
    int top = n;
    flag[k] = k;
    count[k] = 0;
    for (int p = a_start[k]; p < a_start[k + 1]; ++p) {
      int i = a_row[p];
      y[i] += a[p];
      int length = 0;
      for (; flag[i] != k; i = parent[i]) {
        pattern[length++] = i;
        flag[i] = k;
      }
      while (length > 0) pattern[--top] = pattern[--length];
    }
    double pivot = y[k];
    y[k] = 0.0;
    for (; top < n; ++top) {  // L(k, i) = y_i / D_i, y_i eliminated by the columns before it
      const int i = pattern[top];
      const double y_i = y[i];
      y[i] = 0.0;
      const int end = l_start[i] + count[i];
      for (int p = l_start[i]; p < end; ++p) y[l_row[p]] -= l_value[p] * y_i;
      const double l_ki = y_i / d[i];
      pivot -= l_ki * y_i;
      l_row[end] = k;
      l_value[end] = l_ki;
      ++count[i];
    }
    d[k] = pivot;
    if (pivot == 0.0 || !std::isfinite(pivot)) {
      std::fill(d + k + 1, d + n, 0.0);
      return false;
    }
  }
  return true;
}

void SparseLdlt::Solve(double* x) const {
  const int n = static_cast<int>(size_);
  const int* l_start = l_start_.data();
  const int* l_row = l_row_.data();
  const double* l_value = l_value_.data();
  for (int j = 0; j < n; ++j) {  // L y = x
    for (int p = l_start[j]; p < l_start[j + 1]; ++p) x[l_row[p]] -= l_value[p] * x[j];
  }
  for (int j = 0; j < n; ++j) x[j] /= d_[static_cast<std::size_t>(j)];
  for (int j = n - 1; j >= 0; --j) {  // Lᵀ x = y
    for (int p = l_start[j]; p < l_start[j + 1]; ++p) x[j] -= l_value[p] * x[l_row[p]];
  }
}

std::vector<int> FillReducingOrder(std::size_t size, std::span<const std::pair<int, int>> pairs) {
  std::vector<Eigen::Triplet<double, int>> triplets;
  triplets.reserve(2 * pairs.size() + size);
  for (const auto& [i, j] : pairs) {
    triplets.emplace_back(i, j, 1.0);
    triplets.emplace_back(j, i, 1.0);
  }
  const auto n = static_cast<int>(size);
  for (int i = 0; i < n; ++i) triplets.emplace_back(i, i, 1.0);
  Eigen::SparseMatrix<double, Eigen::ColMajor, int> pattern(n, n);
  pattern.setFromTriplets(triplets.begin(), triplets.end());
  // Eigen's orderings return the inverse permutation: indices()[k] is the original index
  // placed at k (SimplicialCholeskyBase::ordering).
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> inverse;
  Eigen::AMDOrdering<int>()(pattern, inverse);
  return {inverse.indices().data(), inverse.indices().data() + inverse.indices().size()};
}

}  // namespace tether::reduce
