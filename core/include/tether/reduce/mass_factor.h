// The factor of a mass matrix M (row-major n × n, symmetric positive definite), kept across
// calls. Factor(M) refactors only when M differs from the matrix factored last (bitwise), so a
// constant M — the usual case: it depends on the parameters only, which are fixed during a run —
// is factored once per parameter change at the cost of an n² comparison per call, and the
// results are exactly those of refactoring. A diagonal M is solved elementwise, x_i / M_ii.
// Factor and Solve take n at compile time too (N > 0, equal to the size of Resize), as the
// kernels of small_dense.h do, with bitwise the same results.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "tether/reduce/small_dense.h"

namespace tether::reduce {

class MassFactor {
 public:
  // Allocates for n × n and forgets the cached factor.
  void Resize(std::size_t n);
  // False iff M is not positive definite (a pivot ≤ 0 or NaN); nothing is cached then.
  template <std::size_t N = 0>
  bool Factor(const double* m);
  // x ← M⁻¹ x (n values), with the last successful Factor.
  template <std::size_t N = 0>
  void Solve(double* x) const;

 private:
  template <std::size_t N>
  bool Refactor(const double* m);

  std::size_t n_ = 0;
  bool valid_ = false;
  bool diagonal_ = false;
  std::vector<double> matrix_;  // the M factored last
  std::vector<double> factor_;  // its Cholesky factor L (lower triangle), or M's diagonal
};

template <std::size_t N>
bool MassFactor::Factor(const double* m) {
  const std::size_t n = dense::SizeOf<N>(n_);
  if (valid_ && std::equal(m, m + n * n, matrix_.begin())) return true;
  return Refactor<N>(m);
}

template <std::size_t N>
bool MassFactor::Refactor(const double* m) {
  const std::size_t n = dense::SizeOf<N>(n_);
  valid_ = false;
  std::copy_n(m, n * n, matrix_.begin());
  diagonal_ = true;
  for (std::size_t i = 0; i < n && diagonal_; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (i != j && m[i * n + j] != 0.0) {
        diagonal_ = false;
        break;
      }
    }
  }
  if (diagonal_) {
    for (std::size_t i = 0; i < n; ++i) {
      if (!(m[i * n + i] > 0.0)) return false;
      factor_[i] = m[i * n + i];
    }
  } else {
    std::copy_n(m, n * n, factor_.begin());
    if (!dense::Cholesky<N>(factor_.data(), n)) return false;
  }
  valid_ = true;
  return true;
}

template <std::size_t N>
void MassFactor::Solve(double* x) const {
  const std::size_t n = dense::SizeOf<N>(n_);
  if (diagonal_) {
    for (std::size_t i = 0; i < n; ++i) x[i] /= factor_[i];
  } else {
    dense::CholeskySolve<N>(factor_.data(), n, x);
  }
}

}  // namespace tether::reduce
