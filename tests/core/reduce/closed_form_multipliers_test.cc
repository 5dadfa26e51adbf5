// The closed-form multipliers (tether/reduce/closed_form_multipliers.h): taken by kAuto for one
// or two constraints and a diagonal M, with native code on or off, equal to the dense kernel to
// rounding with and without Baumgarte terms, and every failure diagnosed in the dense kernel's
// words.
#include "tether/reduce/closed_form_multipliers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "core/reduce/point_masses.h"
#include "core/simulate/pendulum_spec.h"
#include "tether/expr/program.h"
#include "tether/reduce/reduced_model.h"

namespace tether::testing {
namespace {

using reduce::LinearAlgebra;
using reduce::ReducedModel;
constexpr double kEpsilon = 0x1p-52;

// One body on a rod of length 1 with mass 1.7: the pendulum in a mass other than 1.
std::string OneBody() { return MassesSpec({-1}, {1.7}, {}); }

TEST(ClosedFormMultipliers, AutoTakesItForOneOrTwoConstraintsAndADiagonalMass) {
  const std::string two_bodies = MassesSpec({-1, 0}, {1.0, 1.0}, {});
  const std::string three_bodies = MassesSpec({-1, 0, 1}, {1.0, 1.0, 1.0}, {});
  for (const bool native : {true, false}) {  // native code off changes no kernel, no result
    SCOPED_TRACE(native ? "native code" : "interpreter");
    expr::SetNativeCodeEnabled(native);
    EXPECT_TRUE(ReduceWith(OneBody(), LinearAlgebra::kAuto)->closed_form_multipliers());
    EXPECT_TRUE(ReduceWith(two_bodies, LinearAlgebra::kAuto)->closed_form_multipliers());
    EXPECT_FALSE(ReduceWith(three_bodies, LinearAlgebra::kAuto)->closed_form_multipliers());
    EXPECT_FALSE(ReduceWith(OneBody(), LinearAlgebra::kDense)->closed_form_multipliers());
    EXPECT_FALSE(ReduceWith(two_bodies, LinearAlgebra::kSparse)->closed_form_multipliers());
  }
  expr::SetNativeCodeEnabled(true);
  EXPECT_FALSE(ReduceWith(R"json({
    "name": "coupled", "form": "mechanical", "coordinates": ["x", "y"],
    "velocities": ["vx", "vy"], "mass": [["2", "1"], ["1", "2"]], "forces": ["0", "-1"],
    "constraints": ["x^2 + y^2 - 1"]})json", LinearAlgebra::kAuto)->closed_form_multipliers());
}

// Both compute λ = r/s and v' = w + λx from the same products; the sums may be ordered
// differently, so each of r, s errs by a few ε of its terms' magnitudes: λ within
// 8·n·ε·(Σ|terms of r|/|s| + |λ|·Σ|terms of s|/|s|), bounded here by 64·n·ε·(1 + |λ|)·c with
// c the size of the states (these states keep the terms within a factor 10 of each other).
TEST(ClosedFormMultipliers, EqualsTheDenseKernelToRounding) {
  auto closed = ReducedModel::Build(Pendulum(), {});
  reduce::ReduceOptions dense_options;
  dense_options.linear_algebra = LinearAlgebra::kDense;
  auto dense = ReducedModel::Build(Pendulum(), dense_options);
  auto closed_body = ReduceWith(OneBody(), LinearAlgebra::kAuto);
  auto dense_body = ReduceWith(OneBody(), LinearAlgebra::kDense);
  ASSERT_TRUE(closed.reduced && dense.reduced && closed_body && dense_body);
  ASSERT_TRUE(closed.reduced->closed_form_multipliers());
  std::mt19937 random(3);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  int compared = 0;
  for (const auto& [a, b] : std::vector<std::pair<ReducedModel*, ReducedModel*>>{
           {closed.reduced.get(), dense.reduced.get()}, {closed_body.get(), dense_body.get()}}) {
    for (const auto& [alpha, beta] : std::vector<std::pair<double, double>>{{0, 0}, {5, 7}}) {
      a->SetBaumgarte(alpha, beta);
      b->SetBaumgarte(alpha, beta);
      for (int trial = 0; trial < 20; ++trial) {
        const std::vector<double> z = {2 * unit(random), 2 * unit(random), unit(random),
                                       unit(random)};
        std::vector<double> za(4), zb(4);
        ASSERT_TRUE(a->Rhs(0.0, z, za)) << a->failure().message;
        ASSERT_TRUE(b->Rhs(0.0, z, zb)) << b->failure().message;
        const double lambda = b->auxiliary()[0];
        const double size = 1.0 + std::abs(alpha) + beta * beta;
        const double bound = 64 * 2 * kEpsilon * (1 + std::abs(lambda)) * 10 * size;
        EXPECT_NEAR(a->auxiliary()[0], lambda, bound * std::max(1.0, std::abs(lambda)));
        for (std::size_t k = 0; k < 4; ++k) EXPECT_NEAR(za[k], zb[k], bound) << "z'_" << k;
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 80);
}

// Two bodies, two rods (a chain and a star), states off the manifold. Both kernels form S and r
// from the same products, each entry to a few ε of its terms (DenseMultipliers through M's
// Cholesky factor, the closed form through quotients), then solve: LDLᵀ against Cramer's rule,
// both forward stable for 2 × 2 systems. So λ agrees within 64·n·ε·κ(S)·(1 + |λ|)·c, c the
// size of the terms as above, κ(S) computed here from Φ_q and M.
TEST(ClosedFormMultipliers, TwoConstraintsEqualTheDenseKernelToRounding) {
  const std::vector<double> masses = {1.3, 0.7};
  std::mt19937 random(5);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  int compared = 0;
  for (const std::vector<int>& parent : std::vector<std::vector<int>>{{-1, 0}, {-1, -1}}) {
    const std::string spec = MassesSpec(parent, masses, {});
    auto closed = ReduceWith(spec, LinearAlgebra::kAuto);
    auto dense = ReduceWith(spec, LinearAlgebra::kDense);
    ASSERT_TRUE(closed && dense);
    ASSERT_TRUE(closed->closed_form_multipliers());
    for (const auto& [alpha, beta] : std::vector<std::pair<double, double>>{{0, 0}, {5, 7}}) {
      closed->SetBaumgarte(alpha, beta);
      dense->SetBaumgarte(alpha, beta);
      for (int trial = 0; trial < 20; ++trial) {
        std::vector<double> z(8);
        for (double& value : z) value = unit(random);
        // Φ_q: rod k joins body k to its parent (the origin for −1); its gradient is
        // ±2·(p_k − p_parent).
        Eigen::Matrix<double, 2, 4> phi_q = Eigen::Matrix<double, 2, 4>::Zero();
        for (int k = 0; k < 2; ++k) {
          const int p = parent[static_cast<std::size_t>(k)];
          const auto at = [&](int i) { return z[static_cast<std::size_t>(i)]; };
          const double dx = at(2 * k) - (p < 0 ? 0.0 : at(2 * p));
          const double dy = at(2 * k + 1) - (p < 0 ? 0.0 : at(2 * p + 1));
          phi_q(k, 2 * k) = 2 * dx;
          phi_q(k, 2 * k + 1) = 2 * dy;
          if (p >= 0) {
            phi_q(k, 2 * p) = -2 * dx;
            phi_q(k, 2 * p + 1) = -2 * dy;
          }
        }
        const Eigen::Vector4d inverse_mass(1 / masses[0], 1 / masses[0], 1 / masses[1],
                                           1 / masses[1]);
        const Eigen::Matrix2d schur = phi_q * inverse_mass.asDiagonal() * phi_q.transpose();
        const Eigen::Vector2d eigenvalues = Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d>(schur)
                                                .eigenvalues().cwiseAbs();
        const double kappa = eigenvalues.maxCoeff() / eigenvalues.minCoeff();
        if (kappa > 1e6) continue;  // nearly parallel rods: the bound says little
        std::vector<double> za(8), zb(8);
        const std::uint64_t evaluations = closed->stage_evaluations();
        ASSERT_TRUE(closed->Rhs(0.0, z, za)) << closed->failure().message;
        // One program call: the closed form held, the dense layout was not evaluated.
        EXPECT_EQ(closed->stage_evaluations(), evaluations + 1);
        ASSERT_TRUE(dense->Rhs(0.0, z, zb)) << dense->failure().message;
        const double size = (1.0 + std::abs(alpha) + beta * beta) * 10;
        for (std::size_t i = 0; i < 2; ++i) {
          const double lambda = dense->auxiliary()[i];
          const double bound = 64 * 4 * kEpsilon * kappa * (1 + std::abs(lambda)) * size;
          EXPECT_NEAR(closed->auxiliary()[i], lambda, bound) << "λ_" << i;
        }
        const double lambda_size = 1 + std::max(std::abs(dense->auxiliary()[0]),
                                                std::abs(dense->auxiliary()[1]));
        const double bound = 64 * 4 * kEpsilon * kappa * lambda_size * size * 4;
        for (std::size_t k = 0; k < 8; ++k) EXPECT_NEAR(za[k], zb[k], bound) << "z'_" << k;
        ++compared;
      }
    }
  }
  EXPECT_GE(compared, 60);
}

// Each failure reaches the dense layout, which names it as the dense kernel always has.
TEST(ClosedFormMultipliers, FailuresAreNamedAsTheDenseKernelNamesThem) {
  struct Case {
    std::string spec;
    std::vector<double> z;
  };
  const std::vector<Case> cases = {
      {OneBody(), {0.0, 0.0, 0.3, 0.1}},                  // Φ_q = 0 at the origin
      {MassesSpec({-1}, {-2.0}, {}), {0.6, -0.8, 0, 0}},  // a negative mass
      {MassesSpec({-1}, {0.0}, {}), {0.6, -0.8, 0, 0}},   // a zero mass
      {OneBody(), {std::nan(""), -0.8, 0, 0}},            // a NaN state
      {OneBody(), {0.6, -0.8, INFINITY, 0}},              // an infinite velocity
      {MassesSpec({-1, 0}, {1.0, 1.0}, {}), {0, 0, 0.6, -0.8, 0, 0, 0, 0}},  // rod 0 vanishes
      {MassesSpec({-1, 0}, {1.0, -1.0}, {}), {0.6, -0.8, 0.6, -1.8, 0, 0, 0, 0}},
      {MassesSpec({-1, 0}, {1.0, 1.0}, {}), {0.6, -0.8, std::nan(""), -1.8, 0, 0, 0, 0}},
      {R"json({"name": "twice", "form": "mechanical", "coordinates": ["x", "y"],
        "velocities": ["vx", "vy"], "mass": [["1", "0"], ["0", "1"]], "forces": ["0", "-1"],
        "constraints": ["x^2 + y^2 - 1", "2*x^2 + 2*y^2 - 2"]})json",
       {0.6, -0.8, 0.1, 0.2}},  // one rod stated twice: S singular everywhere
  };
  for (const Case& c : cases) {
    auto closed = ReduceWith(c.spec, LinearAlgebra::kAuto);
    auto dense = ReduceWith(c.spec, LinearAlgebra::kDense);
    ASSERT_TRUE(closed && dense);
    ASSERT_TRUE(closed->closed_form_multipliers());
    std::vector<double> zdot(c.z.size());
    EXPECT_FALSE(closed->Rhs(0.0, c.z, zdot));
    EXPECT_FALSE(dense->Rhs(0.0, c.z, zdot));
    EXPECT_EQ(closed->failure().status, dense->failure().status);
    EXPECT_EQ(closed->failure().message, dense->failure().message);
    EXPECT_FALSE(closed->failure().message.empty());
  }
}

}  // namespace
}  // namespace tether::testing
