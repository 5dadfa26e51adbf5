#include "tether/reduce/small_dense.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace tether::reduce::dense {

bool Cholesky(double* a, std::size_t n) {
  for (std::size_t j = 0; j < n; ++j) {
    double pivot = a[j * n + j];
    for (std::size_t k = 0; k < j; ++k) pivot -= a[j * n + k] * a[j * n + k];
    if (!(pivot > 0.0)) return false;
    const double l_jj = std::sqrt(pivot);
    a[j * n + j] = l_jj;
    for (std::size_t i = j + 1; i < n; ++i) {
      double sum = a[i * n + j];
      for (std::size_t k = 0; k < j; ++k) sum -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = sum / l_jj;
    }
  }
  return true;
}

void CholeskySolve(const double* l, std::size_t n, double* x) {
  for (std::size_t i = 0; i < n; ++i) {  // L y = x
    double sum = x[i];
    for (std::size_t k = 0; k < i; ++k) sum -= l[i * n + k] * x[k];
    x[i] = sum / l[i * n + i];
  }
  for (std::size_t i = n; i-- > 0;) {  // Lᵀ x = y
    double sum = x[i];
    for (std::size_t k = i + 1; k < n; ++k) sum -= l[k * n + i] * x[k];
    x[i] = sum / l[i * n + i];
  }
}

namespace {

// Swaps rows and columns p and k (k < p) of the row-major m × m `a`.
void SymmetricSwap(double* a, std::size_t m, std::size_t k, std::size_t p) {
  for (std::size_t j = 0; j < m; ++j) std::swap(a[k * m + j], a[p * m + j]);
  for (std::size_t i = 0; i < m; ++i) std::swap(a[i * m + k], a[i * m + p]);
}

}  // namespace

void Ldlt(double* a, std::size_t m, double* d, std::size_t* perm) {
  for (std::size_t k = 0; k < m; ++k) perm[k] = k;
  for (std::size_t k = 0; k < m; ++k) {
    std::size_t p = k;
    for (std::size_t i = k + 1; i < m; ++i) {
      if (std::abs(a[i * m + i]) > std::abs(a[p * m + p])) p = i;
    }
    if (p != k) {
      SymmetricSwap(a, m, k, p);
      std::swap(perm[k], perm[p]);
    }
    const double pivot = a[k * m + k];
    if (pivot == 0.0) {
      for (std::size_t r = k; r < m; ++r) {
        d[r] = 0.0;
        for (std::size_t i = r + 1; i < m; ++i) a[i * m + r] = 0.0;
      }
      return;
    }
    d[k] = pivot;
    for (std::size_t i = k + 1; i < m; ++i) {
      const double l_ik = a[i * m + k] / pivot;
      for (std::size_t j = k + 1; j <= i; ++j) {
        a[i * m + j] -= l_ik * a[j * m + k];  // a[j][k] still holds the unscaled column
        a[j * m + i] = a[i * m + j];
      }
    }
    for (std::size_t i = k + 1; i < m; ++i) a[i * m + k] /= pivot;
  }
}

bool LdltIsRankDeficient(const double* d, std::size_t m, double threshold) {
  if (m == 0) return false;
  double largest = 0.0;
  double smallest = std::abs(d[0]);
  for (std::size_t i = 0; i < m; ++i) {
    if (std::isnan(d[i])) return true;
    largest = std::max(largest, std::abs(d[i]));
    smallest = std::min(smallest, std::abs(d[i]));
  }
  if (!(largest > 0.0)) return true;
  return smallest <= threshold * largest;
}

void LdltSolve(const double* l, const double* d, const std::size_t* perm, std::size_t m,
               double* x, double* work) {
  for (std::size_t k = 0; k < m; ++k) work[k] = x[perm[k]];  // y = P x
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t k = 0; k < i; ++k) work[i] -= l[i * m + k] * work[k];
  }
  for (std::size_t i = 0; i < m; ++i) work[i] /= d[i];
  for (std::size_t i = m; i-- > 0;) {
    for (std::size_t k = i + 1; k < m; ++k) work[i] -= l[k * m + i] * work[k];
  }
  for (std::size_t k = 0; k < m; ++k) x[perm[k]] = work[k];
}

}  // namespace tether::reduce::dense
