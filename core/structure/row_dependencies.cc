#include "structure/row_dependencies.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace tether::structure {

std::vector<std::size_t> RowDependencies::DependentRows() const {
  std::vector<char> involved;
  for (const std::vector<double>& y : null_vectors) {
    if (involved.empty()) involved.assign(y.size(), 0);
    double largest = 0.0;
    for (double yi : y) largest = std::max(largest, std::abs(yi));
    for (std::size_t i = 0; i < y.size(); ++i) {
      if (std::abs(y[i]) > 1e-8 * largest) involved[i] = 1;
    }
  }
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < involved.size(); ++i) {
    if (involved[i]) rows.push_back(i);
  }
  return rows;
}

RowDependencies FindRowDependencies(std::size_t m, std::size_t n, std::span<const double> a) {
  std::vector<double> work(a.begin(), a.end());                 // m × n, rows permuted in place
  std::vector<double> combination(m * m, 0.0);                  // row i: what work row i is
  for (std::size_t i = 0; i < m; ++i) combination[i * m + i] = 1.0;
  std::vector<std::size_t> column(n);
  for (std::size_t j = 0; j < n; ++j) column[j] = j;
  double largest = 0.0;
  for (double x : work) largest = std::max(largest, std::abs(x));
  const double threshold = 1e3 * static_cast<double>(std::max<std::size_t>({m, n, 1})) *
                           std::numeric_limits<double>::epsilon() * largest;
  auto at = [&](std::size_t i, std::size_t j) -> double& { return work[i * n + column[j]]; };

  RowDependencies result;
  std::size_t k = 0;
  for (; k < std::min(m, n); ++k) {
    std::size_t pivot_row = k, pivot_col = k;
    double pivot = 0.0;
    for (std::size_t i = k; i < m; ++i) {
      for (std::size_t j = k; j < n; ++j) {
        if (std::abs(at(i, j)) > pivot) {
          pivot = std::abs(at(i, j));
          pivot_row = i;
          pivot_col = j;
        }
      }
    }
    if (!(pivot > threshold)) break;
    std::swap(column[k], column[pivot_col]);
    if (pivot_row != k) {
      std::swap_ranges(work.begin() + static_cast<std::ptrdiff_t>(pivot_row * n),
                       work.begin() + static_cast<std::ptrdiff_t>((pivot_row + 1) * n),
                       work.begin() + static_cast<std::ptrdiff_t>(k * n));
      std::swap_ranges(combination.begin() + static_cast<std::ptrdiff_t>(pivot_row * m),
                       combination.begin() + static_cast<std::ptrdiff_t>((pivot_row + 1) * m),
                       combination.begin() + static_cast<std::ptrdiff_t>(k * m));
    }
    for (std::size_t i = k + 1; i < m; ++i) {
      const double factor = at(i, k) / at(k, k);
      if (factor == 0.0) continue;
      for (std::size_t j = k; j < n; ++j) at(i, j) -= factor * at(k, j);  // row_i ← row_i − f·row_k
      for (std::size_t l = 0; l < m; ++l) combination[i * m + l] -= factor * combination[k * m + l];
    }
  }
  result.rank = k;
  for (std::size_t i = k; i < m; ++i) {
    result.null_vectors.emplace_back(combination.begin() + static_cast<std::ptrdiff_t>(i * m),
                                     combination.begin() + static_cast<std::ptrdiff_t>((i + 1) * m));
  }
  return result;
}

}  // namespace tether::structure
