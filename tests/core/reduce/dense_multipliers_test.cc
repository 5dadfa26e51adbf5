// The dense multiplier solve (tether/reduce/dense_multipliers.h): the kernels compiled for small
// sizes give bitwise the general kernel's λ and v', both solve the KKT system they stand for,
// and both report a singular S or an indefinite M the same way.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "tether/reduce/dense_multipliers.h"
#include "tether/reduce/small_dense.h"

namespace tether::reduce {
namespace {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
constexpr double kEpsilon = 0x1p-52;

// One stage in the dense layout [M, f, Φ_q, a, Φ, h] with M symmetric positive definite
// (diagonal or full) and Φ_q of full row rank; κ(M) and κ(S) stay below ~1e3.
std::vector<double> RandomStage(std::size_t n, std::size_t m, bool diagonal_mass,
                                unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const auto rows = static_cast<Eigen::Index>(n);
  RowMatrix mass = RowMatrix::Identity(rows, rows);
  if (diagonal_mass) {
    for (Eigen::Index i = 0; i < rows; ++i) mass(i, i) = 1.5 + unit(random);
  } else {
    RowMatrix b(rows, rows);
    for (Eigen::Index k = 0; k < b.size(); ++k) b.data()[k] = unit(random);
    mass = b * b.transpose() + RowMatrix::Identity(rows, rows);
  }
  std::vector<double> stage(mass.data(), mass.data() + mass.size());
  for (std::size_t k = 0; k < n; ++k) stage.push_back(unit(random));      // f
  for (std::size_t i = 0; i < m; ++i) {                                   // Φ_q
    for (std::size_t k = 0; k < n; ++k) stage.push_back((i % n == k ? 2.0 : 0.0) + unit(random));
  }
  for (std::size_t k = 0; k < 3 * m; ++k) stage.push_back(unit(random));  // a, Φ, h
  return stage;
}

struct Solution {
  MultiplierStatus status = MultiplierStatus::kOk;
  std::vector<double> vdot, lambda;
};

Solution Solve(std::size_t n, std::size_t m, dense::Kernels kernels,
               const std::vector<double>& stage, double alpha = 0.7, double beta = 1.3) {
  DenseMultipliers multipliers(n, m, kernels);
  Solution s;
  s.vdot.assign(n, 0.0);
  s.lambda.assign(m, 0.0);
  s.status = multipliers.Solve(stage.data(), alpha, beta, s.vdot.data(), s.lambda.data());
  return s;
}

TEST(DenseMultipliers, FixedSizeKernelsGiveBitwiseTheGeneralResults) {
  int compared = 0;
  for (std::size_t n = 1; n <= DenseMultipliers::kMaxFixedCoordinates + 1; ++n) {
    for (std::size_t m = 1; m <= std::min(n, DenseMultipliers::kMaxFixedConstraints + 1); ++m) {
      for (const bool diagonal : {true, false}) {
        const std::vector<double> stage =
            RandomStage(n, m, diagonal, static_cast<unsigned>(100 * n + 10 * m + diagonal));
        const bool small = n <= DenseMultipliers::kMaxFixedCoordinates &&
                           m <= DenseMultipliers::kMaxFixedConstraints;
        EXPECT_EQ(DenseMultipliers(n, m).fixed_size(), small) << n << " × " << m;
        const Solution fixed = Solve(n, m, dense::Kernels::kFixedSizeWhereSmall, stage);
        const Solution general = Solve(n, m, dense::Kernels::kGeneral, stage);
        ASSERT_EQ(fixed.status, MultiplierStatus::kOk);
        ASSERT_EQ(general.status, MultiplierStatus::kOk);
        const std::string at = std::to_string(n) + " × " + std::to_string(m);
        for (std::size_t k = 0; k < n; ++k) EXPECT_EQ(fixed.vdot[k], general.vdot[k]) << at;
        for (std::size_t i = 0; i < m; ++i) EXPECT_EQ(fixed.lambda[i], general.lambda[i]) << at;
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 30);
}

// The KKT system [M −Φ_qᵀ; Φ_q 0] [v'; λ] = [f; −(a + 2αh + β²Φ)] solved whole by Eigen: the
// dense kernel's answer within 10·(n + m)·ε·κ of it.
TEST(DenseMultipliers, BothKernelsSolveTheKktSystem) {
  const double alpha = 0.7, beta = 1.3;
  for (std::size_t n = 1; n <= 8; ++n) {
    for (std::size_t m = 1; m <= std::min<std::size_t>(n, 4); ++m) {
      const std::vector<double> stage = RandomStage(n, m, false, static_cast<unsigned>(n * m));
      const auto rn = static_cast<Eigen::Index>(n), rm = static_cast<Eigen::Index>(m);
      const Eigen::Map<const RowMatrix> mass(stage.data(), rn, rn);
      const Eigen::Map<const Eigen::VectorXd> f(stage.data() + n * n, rn);
      const Eigen::Map<const RowMatrix> phi_q(stage.data() + n * n + n, rm, rn);
      const double* tail = stage.data() + n * n + n + m * n;
      Eigen::MatrixXd kkt = Eigen::MatrixXd::Zero(rn + rm, rn + rm);
      kkt.topLeftCorner(rn, rn) = mass;
      kkt.topRightCorner(rn, rm) = -phi_q.transpose();
      kkt.bottomLeftCorner(rm, rn) = phi_q;
      Eigen::VectorXd rhs(rn + rm);
      rhs.head(rn) = f;
      for (std::size_t i = 0; i < m; ++i) {
        rhs(rn + static_cast<Eigen::Index>(i)) =
            -(tail[i] + 2.0 * alpha * tail[2 * m + i] + beta * beta * tail[m + i]);
      }
      const Eigen::VectorXd expected = kkt.fullPivLu().solve(rhs);
      const Eigen::JacobiSVD<Eigen::MatrixXd> svd(kkt);
      const double kappa = svd.singularValues()(0) / svd.singularValues().tail(1)(0);
      const double bound = 10.0 * static_cast<double>(n + m) * kEpsilon * kappa;
      for (const dense::Kernels kernels :
           {dense::Kernels::kFixedSizeWhereSmall, dense::Kernels::kGeneral}) {
        const Solution s = Solve(n, m, kernels, stage, alpha, beta);
        ASSERT_EQ(s.status, MultiplierStatus::kOk);
        Eigen::VectorXd got(rn + rm);
        for (std::size_t k = 0; k < n; ++k) got(static_cast<Eigen::Index>(k)) = s.vdot[k];
        for (std::size_t i = 0; i < m; ++i) {
          got(rn + static_cast<Eigen::Index>(i)) = s.lambda[i];
        }
        EXPECT_LE((got - expected).norm(), bound * expected.norm()) << n << " × " << m;
      }
    }
  }
}

TEST(DenseMultipliers, BothKernelsReportASingularSAndAnIndefiniteM) {
  for (const std::size_t m : {std::size_t{1}, std::size_t{2}}) {
    const std::size_t n = 3;
    std::vector<double> dependent = RandomStage(n, m, true, 5);
    for (std::size_t k = 0; k < m * n; ++k) dependent[n * n + n + k] = 0.0;  // Φ_q = 0
    std::vector<double> indefinite = RandomStage(n, m, true, 6);
    indefinite[4] = -1.0;  // M_11 < 0
    std::vector<double> not_finite = RandomStage(n, m, true, 7);
    not_finite[n * n + n] = std::nan("");  // a NaN in Φ_q
    for (const dense::Kernels kernels :
         {dense::Kernels::kFixedSizeWhereSmall, dense::Kernels::kGeneral}) {
      EXPECT_EQ(Solve(n, m, kernels, dependent).status, MultiplierStatus::kSingular) << m;
      EXPECT_EQ(Solve(n, m, kernels, indefinite).status, MultiplierStatus::kMassNotPositive);
      EXPECT_EQ(Solve(n, m, kernels, not_finite).status, MultiplierStatus::kSingular) << m;
    }
  }
}

}  // namespace
}  // namespace tether::reduce
