#include "tether/reduce/mass_factor.h"

#include <algorithm>

#include "tether/reduce/small_dense.h"

namespace tether::reduce {

void MassFactor::Resize(std::size_t n) {
  n_ = n;
  valid_ = false;
  diagonal_ = false;
  matrix_.assign(n * n, 0.0);
  factor_.assign(n * n, 0.0);
}

bool MassFactor::Factor(const double* m) {
  const std::size_t size = n_ * n_;
  if (valid_ && std::equal(m, m + size, matrix_.begin())) return true;
  valid_ = false;
  std::copy_n(m, size, matrix_.begin());
  diagonal_ = true;
  for (std::size_t i = 0; i < n_ && diagonal_; ++i) {
    for (std::size_t j = 0; j < n_; ++j) {
      if (i != j && m[i * n_ + j] != 0.0) {
        diagonal_ = false;
        break;
      }
    }
  }
  if (diagonal_) {
    for (std::size_t i = 0; i < n_; ++i) {
      if (!(m[i * n_ + i] > 0.0)) return false;
      factor_[i] = m[i * n_ + i];
    }
  } else {
    std::copy_n(m, size, factor_.begin());
    if (!dense::Cholesky(factor_.data(), n_)) return false;
  }
  valid_ = true;
  return true;
}

void MassFactor::Solve(double* x) const {
  if (diagonal_) {
    for (std::size_t i = 0; i < n_; ++i) x[i] /= factor_[i];
  } else {
    dense::CholeskySolve(factor_.data(), n_, x);
  }
}

}  // namespace tether::reduce
