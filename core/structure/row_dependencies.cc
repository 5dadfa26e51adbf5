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

namespace {

// Gaussian elimination with complete pivoting on the submatrix of `a` (row-major, width n) on
// `rows` × `cols`, appending the rank and the left null vectors (over all m rows) to `result`.
void EliminateBlock(std::size_t m, std::size_t n, std::span<const double> a,
                    const std::vector<std::size_t>& rows, std::vector<std::size_t> cols,
                    double threshold, RowDependencies* result) {
  const std::size_t r = rows.size();
  const std::size_t c = cols.size();
  std::vector<double> work(r * c);  // rows permuted in place, columns through `cols`
  for (std::size_t i = 0; i < r; ++i) {
    for (std::size_t j = 0; j < c; ++j) work[i * c + j] = a[rows[i] * n + cols[j]];
  }
  std::vector<std::size_t> column(c);
  for (std::size_t j = 0; j < c; ++j) column[j] = j;
  std::vector<double> combination(r * r, 0.0);  // row i: what work row i is, over `rows`
  for (std::size_t i = 0; i < r; ++i) combination[i * r + i] = 1.0;
  auto at = [&](std::size_t i, std::size_t j) -> double& { return work[i * c + column[j]]; };
  auto swap_rows = [](std::vector<double>& v, std::size_t width, std::size_t i, std::size_t k) {
    std::swap_ranges(v.begin() + static_cast<std::ptrdiff_t>(i * width),
                     v.begin() + static_cast<std::ptrdiff_t>((i + 1) * width),
                     v.begin() + static_cast<std::ptrdiff_t>(k * width));
  };
  std::size_t k = 0;
  for (; k < std::min(r, c); ++k) {
    std::size_t pivot_row = k, pivot_col = k;
    double pivot = 0.0;
    for (std::size_t i = k; i < r; ++i) {
      for (std::size_t j = k; j < c; ++j) {
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
      swap_rows(work, c, pivot_row, k);
      swap_rows(combination, r, pivot_row, k);
    }
    for (std::size_t i = k + 1; i < r; ++i) {
      const double factor = at(i, k) / at(k, k);
      if (factor == 0.0) continue;
      for (std::size_t j = k; j < c; ++j) at(i, j) -= factor * at(k, j);  // row_i ← row_i − f·row_k
      for (std::size_t l = 0; l < r; ++l) combination[i * r + l] -= factor * combination[k * r + l];
    }
  }
  result->rank += k;
  for (std::size_t i = k; i < r; ++i) {
    std::vector<double>& y = result->null_vectors.emplace_back(m, 0.0);
    for (std::size_t l = 0; l < r; ++l) y[rows[l]] = combination[i * r + l];
  }
}

}  // namespace

RowDependencies FindRowDependencies(std::size_t m, std::size_t n, std::span<const double> a) {
  double largest = 0.0;
  for (double x : a) largest = std::max(largest, std::abs(x));
  const double threshold = 1e3 * static_cast<double>(std::max<std::size_t>({m, n, 1})) *
                           std::numeric_limits<double>::epsilon() * largest;
  // Connected components of the non-zero pattern (rows joined through shared columns): the
  // elimination of one never touches another, so each is eliminated alone and a
  // block-diagonal matrix costs the sum of its blocks' cubes.
  std::vector<std::size_t> parent(m);
  for (std::size_t i = 0; i < m; ++i) parent[i] = i;
  auto root = [&parent](std::size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  constexpr std::size_t kNoRow = static_cast<std::size_t>(-1);
  std::vector<std::size_t> first_row(n, kNoRow);
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (a[i * n + j] == 0.0) continue;
      if (first_row[j] == kNoRow) {
        first_row[j] = i;
      } else {
        parent[root(i)] = root(first_row[j]);
      }
    }
  }
  std::vector<std::vector<std::size_t>> rows_of(m), cols_of(m);
  for (std::size_t i = 0; i < m; ++i) rows_of[root(i)].push_back(i);
  for (std::size_t j = 0; j < n; ++j) {
    if (first_row[j] != kNoRow) cols_of[root(first_row[j])].push_back(j);
  }
  RowDependencies result;
  for (std::size_t block = 0; block < m; ++block) {
    if (rows_of[block].empty()) continue;
    EliminateBlock(m, n, a, rows_of[block], std::move(cols_of[block]), threshold, &result);
  }
  return result;
}

}  // namespace tether::structure
