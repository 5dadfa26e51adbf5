// Linear dependencies among the rows of a small dense matrix, numerically: Gaussian
// elimination with complete pivoting on A (m × n) that records, for every row, the combination
// of the original rows it has become (the rows of a unit lower-triangular L⁻¹ P, kept
// explicitly). After r = rank steps the rows left have all entries below the threshold: each
// records a left null vector yᵀ of A (yᵀA ≈ 0), and together they span the left null space.
//
// A pivot counts as zero when |p| ≤ τ·max|A| with τ = 10³·max(m, n)·ε: the backward error of
// the elimination is of order max(m, n)·ε·max|A| times the growth factor, which complete
// pivoting keeps small (Wilkinson's bound, far below 10³ in practice). The matrix is first
// split into the connected components of its non-zero pattern, eliminated one by one: O(m·n)
// plus O(r²c) per r × c block.
//
// Used on matrices evaluated at random points (tether/structure's probe.h), where the rank
// found is the generic rank of the symbolic matrix with probability one.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace tether::structure {

struct RowDependencies {
  std::size_t rank = 0;
  // One left null vector per dependent row, each over the m original rows.
  std::vector<std::vector<double>> null_vectors;

  // The rows in the support of some null vector: |y_i| > 10⁻⁸·max|y| (the rows that take part
  // in a dependency).
  [[nodiscard]] std::vector<std::size_t> DependentRows() const;
};

// `a` is row-major, m × n, all entries finite.
RowDependencies FindRowDependencies(std::size_t m, std::size_t n, std::span<const double> a);

}  // namespace tether::structure
