// Where the dense Newton matrix stops paying (BdfLinearSolver::kSparseFromSize): the CPU time
// of what a BDF step does with its Newton matrix after a Jacobian update — form the values,
// factor, solve three times (CVODE's Newton iterations per attempt) — with SUNDIALS' dense LU
// (SUNLINSOL_DENSE: unblocked, partial pivoting) and with KLU's refactorization on a fixed
// pattern (SUNLINSOL_KLU), for sizes n and fills from tridiagonal to nearly full.
#pragma once

#include <cstddef>
#include <vector>

namespace tether::bench {

struct CrossoverPoint {
  std::size_t n = 0;
  double fill = 0.0;  // off-diagonal entries per row / n (0 for tridiagonal)
  std::size_t nonzeros = 0;
  double dense_seconds = 0.0;  // one set-up and three solves
  double sparse_seconds = 0.0;
};

// One point per (n, fill); fill 0 is the tridiagonal pattern, otherwise fill·n random
// off-diagonal entries per row (diagonally dominant values, fixed seed). `repeats` as in
// MinCpuSeconds.
std::vector<CrossoverPoint> MeasureCrossover(const std::vector<std::size_t>& sizes,
                                             const std::vector<double>& fills, int repeats);

}  // namespace tether::bench
