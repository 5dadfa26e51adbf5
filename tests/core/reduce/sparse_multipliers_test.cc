// The sparse multiplier solve (tether/reduce/sparse_multipliers.h) and its LDLᵀ
// (tether/reduce/sparse_ldlt.h): equal to the dense kernel to rounding on trees and loops of
// point masses, chosen where it pays, and every failure named as the dense kernel names it.
#include "tether/reduce/sparse_multipliers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "core/reduce/point_masses.h"
#include "core/simulate/pendulum_spec.h"
#include "tether/reduce/closed_form_multipliers.h"
#include "tether/reduce/reduced_model.h"
#include "tether/reduce/sparse_ldlt.h"

namespace tether::testing {
namespace {

using reduce::LinearAlgebra;
using reduce::ReducedModel;
constexpr double kEpsilon = 0x1p-52;


// S = Φ_q M⁻¹ Φ_qᵀ at z, dense, from the model's own Φ_q (the first m rows of H_z) and M.
Eigen::MatrixXd Schur(ReducedModel& model, const std::vector<double>& z) {
  const std::size_t n = model.mass_size();
  const std::size_t p = model.num_invariants();
  const std::size_t m = model.num_position_invariants();
  std::vector<double> h(p), h_z(p * z.size()), mass(n * n);
  EXPECT_TRUE(model.Invariants(0.0, z, h, h_z));
  EXPECT_TRUE(model.Mass(0.0, z, mass));
  Eigen::MatrixXd phi_q(m, n);
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t k = 0; k < n; ++k) {
      phi_q(Eigen::Index(i), Eigen::Index(k)) = h_z[i * z.size() + k];
    }
  }
  Eigen::VectorXd inverse_mass(n);
  for (std::size_t k = 0; k < n; ++k) inverse_mass(Eigen::Index(k)) = 1.0 / mass[k * n + k];
  return phi_q * inverse_mass.asDiagonal() * phi_q.transpose();
}

// Both kernels solve S λ = r with the same entries summed in other orders: each backward
// stable, so each λ errs by at most c·m·ε·κ(S)·‖λ‖ (c a small constant of the LDLᵀ, 10 here
// with the forming of S and r included), and v' = M⁻¹(f + Φ_qᵀλ) inherits that error through
// ‖M⁻¹ Φ_qᵀ‖. The bound is twice that (both sides err).
TEST(SparseMultipliers, TreesAndLoopsOfMassesEqualTheDenseKernelToRounding) {
  for (const auto& [bodies, loops] : std::vector<std::pair<std::size_t, std::size_t>>{
           {1, 0}, {3, 0}, {12, 0}, {12, 4}, {40, 0}, {40, 10}}) {
    for (unsigned seed : {1u, 2u}) {
      SCOPED_TRACE("bodies " + std::to_string(bodies) + ", loops " + std::to_string(loops) +
                   ", seed " + std::to_string(seed));
      const Case c = RandomCase(bodies, loops, seed);
      auto dense = ReduceWith(c.spec, LinearAlgebra::kDense);
      auto sparse = ReduceWith(c.spec, LinearAlgebra::kSparse);
      ASSERT_TRUE(dense && sparse);
      EXPECT_FALSE(dense->sparse_multipliers());
      EXPECT_TRUE(sparse->sparse_multipliers());
      dense->SetBaumgarte(2.0, 3.0);
      sparse->SetBaumgarte(2.0, 3.0);
      std::vector<double> zdot_dense(c.z.size()), zdot_sparse(c.z.size());
      ASSERT_TRUE(dense->Rhs(0.0, c.z, zdot_dense)) << dense->failure().message;
      ASSERT_TRUE(sparse->Rhs(0.0, c.z, zdot_sparse)) << sparse->failure().message;

      const Eigen::MatrixXd s = Schur(*dense, c.z);
      const Eigen::JacobiSVD<Eigen::MatrixXd> svd(s);
      const double kappa = svd.singularValues()(0) / svd.singularValues().tail(1)(0);
      const auto m = static_cast<double>(s.rows());
      const std::span<const double> lambda_dense = dense->auxiliary();
      const std::span<const double> lambda_sparse = sparse->auxiliary();
      double lambda_norm = 0.0;
      for (double l : lambda_dense) lambda_norm = std::max(lambda_norm, std::abs(l));
      const double lambda_bound = 2 * 10 * m * kEpsilon * kappa * lambda_norm;
      for (std::size_t i = 0; i < lambda_dense.size(); ++i) {
        EXPECT_NEAR(lambda_sparse[i], lambda_dense[i], lambda_bound) << "λ_" << i;
      }
      // ‖M⁻¹ Φ_qᵀ‖∞ ≤ 2 · max |d_k|/m_k ≤ 2 · 2 · 3 for these rods and masses ≥ 1, 3 rods at
      // most on a coordinate; v' adds f/m exactly (the same division on both sides).
      const double rate_bound = lambda_bound * 12 + 4 * kEpsilon * 9.81;
      for (std::size_t k = 0; k < c.z.size(); ++k) {
        EXPECT_NEAR(zdot_sparse[k], zdot_dense[k], rate_bound) << "z'_" << k;
      }
    }
  }
}

TEST(SparseMultipliers, AutoChoosesSparseWhereItPays) {
  EXPECT_FALSE(ReduceWith(kPendulumSpec, LinearAlgebra::kAuto)->sparse_multipliers());
  // Up to ClosedFormMultipliers::kMaxConstraints bodies the closed form comes first.
  const std::size_t first = std::max(reduce::SparseMultipliers::kFromConstraints,
                                     reduce::ClosedFormMultipliers::kMaxConstraints + 1);
  const Case chain = RandomCase(first, 0, 3);
  EXPECT_TRUE(ReduceWith(chain.spec, LinearAlgebra::kAuto)->sparse_multipliers());
  EXPECT_FALSE(ReduceWith(chain.spec, LinearAlgebra::kDense)->sparse_multipliers());
  const Case closed = RandomCase(reduce::ClosedFormMultipliers::kMaxConstraints, 0, 3);
  EXPECT_FALSE(ReduceWith(closed.spec, LinearAlgebra::kAuto)->sparse_multipliers());
  EXPECT_TRUE(ReduceWith(closed.spec, LinearAlgebra::kSparse)->sparse_multipliers());
  const Case small = RandomCase(reduce::SparseMultipliers::kFromConstraints - 1, 0, 3);
  EXPECT_FALSE(ReduceWith(small.spec, LinearAlgebra::kAuto)->sparse_multipliers());
  // A star: every rod touches body 0, so every pair of constraints shares its coordinates and
  // S is full. Large enough for the density rule, it stays dense under kAuto.
  const std::size_t bodies = reduce::SparseMultipliers::kDensityFromConstraints + 2;
  std::vector<int> star(bodies, 0);
  star[0] = -1;
  const std::string full = MassesSpec(star, std::vector<double>(bodies, 1.0), {});
  EXPECT_FALSE(ReduceWith(full, LinearAlgebra::kAuto)->sparse_multipliers());
  EXPECT_TRUE(ReduceWith(full, LinearAlgebra::kSparse)->sparse_multipliers());
}

TEST(SparseMultipliers, SparseOnAFullMassMatrixIsRefusedByName) {
  reduce::ReduceOptions options;
  options.linear_algebra = LinearAlgebra::kSparse;
  const reduce::ReduceResult r = ReducedModel::Build(ParseOrDie(R"json({
    "name": "coupled", "form": "mechanical", "coordinates": ["x", "y"],
    "velocities": ["vx", "vy"], "mass": [["2", "1"], ["1", "2"]], "forces": ["0", "-1"],
    "constraints": ["x^2 + y^2 - 1"]})json"), options);
  EXPECT_EQ(r.reduced, nullptr);
  EXPECT_NE(r.error.find("model 'coupled': sparse linear algebra needs a diagonal mass matrix"),
            std::string::npos) << r.error;
}

TEST(SparseMultipliers, DependentConstraintsAreNamed) {
  // Body 1 hangs from body 0 twice: constraints[1] and constraints[2] are the same rod.
  const std::string spec = MassesSpec({-1, 0, 1}, {1.0, 1.0, 1.0}, {{1, 0}});
  auto model = ReduceWith(spec, LinearAlgebra::kSparse);
  ASSERT_TRUE(model);
  const std::vector<double> z = {0.0, -1.0, 0.6, -1.8, 0.6, -2.8, 0, 0, 0, 0, 0, 0};
  std::vector<double> zdot(z.size());
  EXPECT_FALSE(model->Rhs(0.0, z, zdot));
  EXPECT_EQ(model->failure().status, reduce::EvalStatus::kSingular);
  EXPECT_NE(model->failure().message.find("'constraints[1]', 'constraints[3]' are dependent"),
            std::string::npos) << model->failure().message;
}

TEST(SparseMultipliers, ANonPositiveMassIsNamed) {
  auto model = ReduceWith(MassesSpec({-1, 0, 1}, {1.0, -1.0, 1.0}, {}), LinearAlgebra::kSparse);
  ASSERT_TRUE(model);
  const std::vector<double> z(12, 0.5);
  std::vector<double> zdot(z.size());
  EXPECT_FALSE(model->Rhs(0.0, z, zdot));
  EXPECT_NE(model->failure().message.find("mass matrix is not symmetric positive definite"),
            std::string::npos) << model->failure().message;
}

// A = B Bᵀ + I over a random sparse B: the factor in a fill-reducing order solves A x = b
// with a backward error of a few ε·size (LDLᵀ of a positive definite matrix is backward
// stable without pivoting): ‖A x − b‖∞ ≤ 10·size·ε·(‖A‖∞‖x‖∞ + ‖b‖∞).
TEST(SparseLdlt, SolvesRandomSparsePositiveDefiniteSystems) {
  for (unsigned seed : {1u, 2u, 3u}) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    constexpr int kSize = 60;
    Eigen::MatrixXd b = Eigen::MatrixXd::Zero(kSize, kSize);
    for (int i = 0; i < kSize; ++i) {
      b(i, i) = unit(random);
      for (int e = 0; e < 2; ++e) b(i, static_cast<int>(random() % kSize)) = unit(random);
    }
    const Eigen::MatrixXd a = b * b.transpose() + Eigen::MatrixXd::Identity(kSize, kSize);
    std::vector<std::pair<int, int>> pairs;
    for (int i = 0; i < kSize; ++i) {
      for (int j = i + 1; j < kSize; ++j) {
        if (a(i, j) != 0.0) pairs.emplace_back(i, j);
      }
    }
    const std::vector<int> order = reduce::FillReducingOrder(kSize, pairs);
    std::vector<int> start{0}, rows;
    std::vector<double> values;
    for (int j = 0; j < kSize; ++j) {  // the permuted matrix's upper triangle
      for (int i = 0; i <= j; ++i) {
        const double v = a(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
        if (v != 0.0 || i == j) {
          rows.push_back(i);
          values.push_back(v);
        }
      }
      start.push_back(static_cast<int>(rows.size()));
    }
    reduce::SparseLdlt ldlt;
    ldlt.Analyze(kSize, start, rows);
    ASSERT_TRUE(ldlt.Factor(values));
    EXPECT_LT(ldlt.factor_nonzeros(), static_cast<std::size_t>(kSize * (kSize - 1) / 2));
    Eigen::VectorXd rhs(kSize), x(kSize);
    for (int i = 0; i < kSize; ++i) rhs(i) = unit(random);
    for (int k = 0; k < kSize; ++k) x(k) = rhs(order[static_cast<std::size_t>(k)]);
    ldlt.Solve(x.data());
    Eigen::VectorXd solution(kSize);
    for (int k = 0; k < kSize; ++k) solution(order[static_cast<std::size_t>(k)]) = x(k);
    const double bound = 10 * kSize * kEpsilon *
                         (a.cwiseAbs().rowwise().sum().maxCoeff() * solution.cwiseAbs().maxCoeff() +
                          rhs.cwiseAbs().maxCoeff());
    EXPECT_LE((a * solution - rhs).cwiseAbs().maxCoeff(), bound) << "seed " << seed;
  }
}

TEST(SparseLdlt, AZeroPivotIsReported) {
  // [[1, 1], [1, 1]]: the second pivot is 1 − 1·1 = 0 exactly.
  reduce::SparseLdlt ldlt;
  const std::vector<int> start{0, 1, 3}, rows{0, 0, 1};
  ldlt.Analyze(2, start, rows);
  EXPECT_FALSE(ldlt.Factor(std::vector<double>{1.0, 1.0, 1.0}));
  EXPECT_EQ(ldlt.d()[1], 0.0);
}

}  // namespace
}  // namespace tether::testing
