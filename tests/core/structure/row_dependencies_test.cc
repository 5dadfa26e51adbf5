// Numeric row dependencies: rank, left null vectors, and the split into blocks.
#include "structure/row_dependencies.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace tether::testing {
namespace {

// max_j |(yᵀA)_j| for every null vector, relative to max|A|·max|y|.
double WorstResidual(const structure::RowDependencies& d, std::size_t m, std::size_t n,
                     const std::vector<double>& a) {
  double worst = 0.0, largest = 0.0;
  for (double x : a) largest = std::max(largest, std::abs(x));
  for (const auto& y : d.null_vectors) {
    double y_max = 0.0;
    for (double v : y) y_max = std::max(y_max, std::abs(v));
    for (std::size_t j = 0; j < n; ++j) {
      double sum = 0.0;
      for (std::size_t i = 0; i < m; ++i) sum += y[i] * a[i * n + j];
      worst = std::max(worst, std::abs(sum) / (largest * y_max));
    }
  }
  return worst;
}

TEST(RowDependencies, BlocksZeroRowsAndDependentRows) {
  // Rows 0,1 a regular block; rows 2,3 a block with row 3 = −2·row 2; row 4 zero.
  const std::vector<double> a = {
      1, 2, 0, 0,    //
      3, 4, 0, 0,    //
      0, 0, 1, -1,   //
      0, 0, -2, 2,   //
      0, 0, 0, 0};
  const auto d = structure::FindRowDependencies(5, 4, a);
  EXPECT_EQ(d.rank, 3u);
  ASSERT_EQ(d.null_vectors.size(), 2u);
  EXPECT_EQ(d.DependentRows(), (std::vector<std::size_t>{2, 3, 4}));
  // Exact arithmetic here (factors 2 and 1): the residual is 0.
  EXPECT_EQ(WorstResidual(d, 5, 4, a), 0.0);
}

TEST(RowDependencies, RandomLowRankMatrices) {
  // A = B C with B 8 × 3, C 3 × 6 random: rank 3; the null vectors satisfy yᵀA ≈ 0 to the
  // backward error of the elimination, a modest multiple of n·ε (bound 1e3·n·ε used for the
  // pivot threshold).
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> b(8 * 3), c(3 * 6), a(8 * 6, 0.0);
    for (double& x : b) x = u(rng);
    for (double& x : c) x = u(rng);
    for (std::size_t i = 0; i < 8; ++i) {
      for (std::size_t j = 0; j < 6; ++j) {
        for (std::size_t k = 0; k < 3; ++k) a[i * 6 + j] += b[i * 3 + k] * c[k * 6 + j];
      }
    }
    const auto d = structure::FindRowDependencies(8, 6, a);
    EXPECT_EQ(d.rank, 3u);
    EXPECT_EQ(d.null_vectors.size(), 5u);
    EXPECT_LT(WorstResidual(d, 8, 6, a), 1e3 * 8 * 2.2e-16);
  }
}

}  // namespace
}  // namespace tether::testing
