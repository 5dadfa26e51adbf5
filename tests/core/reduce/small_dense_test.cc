// The unblocked kernels of tether/reduce/small_dense.h and the cached MassFactor against
// Eigen's LLT/LDLT on the same matrices.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include <Eigen/Dense>

#include "tether/reduce/mass_factor.h"
#include "tether/reduce/rank.h"
#include "tether/reduce/small_dense.h"

namespace tether::reduce {
namespace {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// A = B Bᵀ + shift·I for a fixed pseudo-random B (n × k): positive definite for shift > 0,
// rank k < n for shift = 0.
RowMatrix Gram(Eigen::Index n, Eigen::Index k, double shift) {
  std::srand(7);
  const Eigen::MatrixXd b = Eigen::MatrixXd::Random(n, k);
  return b * b.transpose() + shift * Eigen::MatrixXd::Identity(n, n);
}

// Solves agree with Eigen to a few ulps times the condition number of these well-conditioned
// matrices (κ < 1e3): 1e-12 relative leaves a wide margin.
constexpr double kTolerance = 1e-12;

TEST(SmallDense, CholeskySolveMatchesEigen) {
  const RowMatrix a = Gram(5, 5, 0.5);
  const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(5, -1.0, 2.0);
  RowMatrix l = a;
  ASSERT_TRUE(dense::Cholesky(l.data(), 5));
  Eigen::VectorXd x = b;
  dense::CholeskySolve(l.data(), 5, x.data());
  const Eigen::VectorXd expected = Eigen::MatrixXd(a).llt().solve(b);
  EXPECT_LE((x - expected).norm(), kTolerance * expected.norm());
}

TEST(SmallDense, CholeskyRejectsAnIndefiniteMatrix) {
  RowMatrix a(2, 2);
  a << 1.0, 2.0, 2.0, 1.0;  // eigenvalues 3, −1
  EXPECT_FALSE(dense::Cholesky(a.data(), 2));
}

TEST(SmallDense, PivotedLdltSolveMatchesEigen) {
  const RowMatrix a = Gram(6, 6, 0.1);
  const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(6, 3.0, -1.0);
  RowMatrix f = a;
  std::vector<double> d(6);
  std::vector<std::size_t> perm(6);
  std::vector<double> work(6);
  dense::Ldlt(f.data(), 6, d.data(), perm.data());
  EXPECT_FALSE(dense::LdltIsRankDeficient(d.data(), 6, RelativePivotThreshold(6)));
  Eigen::VectorXd x = b;
  dense::LdltSolve(f.data(), d.data(), perm.data(), 6, x.data(), work.data());
  const Eigen::VectorXd expected = Eigen::MatrixXd(a).ldlt().solve(b);
  EXPECT_LE((x - expected).norm(), kTolerance * expected.norm());
}

TEST(SmallDense, RankDeficiencyIsDetectedAsByEigen) {
  const RowMatrix a = Gram(4, 2, 0.0);  // rank 2
  RowMatrix f = a;
  std::vector<double> d(4);
  std::vector<std::size_t> perm(4);
  dense::Ldlt(f.data(), 4, d.data(), perm.data());
  const Eigen::LDLT<Eigen::MatrixXd> eigen(a);
  EXPECT_TRUE(LdltIsRankDeficient(eigen, RelativePivotThreshold(4)));
  EXPECT_TRUE(dense::LdltIsRankDeficient(d.data(), 4, RelativePivotThreshold(4)));
  std::vector<double> zero(3, 0.0);
  EXPECT_TRUE(dense::LdltIsRankDeficient(zero.data(), 3, RelativePivotThreshold(3)));
}

TEST(MassFactor, RefactorsOnlyWhenTheMatrixChanges) {
  MassFactor factor;
  factor.Resize(2);
  std::vector<double> m = {4.0, 1.0, 1.0, 3.0};
  ASSERT_TRUE(factor.Factor(m.data()));
  std::vector<double> x = {1.0, 2.0};
  factor.Solve(x.data());  // M⁻¹ (1, 2) = (1·3 − 2·1, 4·2 − 1·1)/11 = (1, 7)/11
  EXPECT_NEAR(x[0], 1.0 / 11.0, 1e-15);
  EXPECT_NEAR(x[1], 7.0 / 11.0, 1e-15);
  m = {2.0, 0.0, 0.0, 5.0};  // changed and diagonal: solved elementwise
  ASSERT_TRUE(factor.Factor(m.data()));
  x = {1.0, 2.0};
  factor.Solve(x.data());
  EXPECT_EQ(x[0], 0.5);
  EXPECT_EQ(x[1], 0.4);
  m = {1.0, 0.0, 0.0, -1.0};
  EXPECT_FALSE(factor.Factor(m.data()));
}

}  // namespace
}  // namespace tether::reduce
