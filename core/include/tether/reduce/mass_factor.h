// The factor of a mass matrix M (row-major n × n, symmetric positive definite), kept across
// calls. Factor(M) refactors only when M differs from the matrix factored last (bitwise), so a
// constant M — the usual case: it depends on the parameters only, which are fixed during a run —
// is factored once per parameter change at the cost of an n² comparison per call, and the
// results are exactly those of refactoring. A diagonal M is solved elementwise, x_i / M_ii.
#pragma once

#include <cstddef>
#include <vector>

namespace tether::reduce {

class MassFactor {
 public:
  // Allocates for n × n and forgets the cached factor.
  void Resize(std::size_t n);
  // False iff M is not positive definite (a pivot ≤ 0 or NaN); nothing is cached then.
  bool Factor(const double* m);
  // x ← M⁻¹ x (n values), with the last successful Factor.
  void Solve(double* x) const;

 private:
  std::size_t n_ = 0;
  bool valid_ = false;
  bool diagonal_ = false;
  std::vector<double> matrix_;  // the M factored last
  std::vector<double> factor_;  // its Cholesky factor L (lower triangle), or M's diagonal
};

}  // namespace tether::reduce
