// The closed-form multiplier (tether/reduce/closed_form_multipliers.h): taken by kAuto for one
// constraint and a diagonal M when native code is on, equal to the dense kernel to rounding
// with and without Baumgarte terms, and every failure diagnosed in the dense kernel's words.
#include "tether/reduce/closed_form_multipliers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

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

TEST(ClosedFormMultipliers, AutoTakesItForOneConstraintAndADiagonalMassWithNativeCode) {
  if (!expr::NativeCodeEnabled()) GTEST_SKIP() << "no native code on this platform";
  EXPECT_TRUE(ReduceWith(OneBody(), LinearAlgebra::kAuto)->closed_form_multipliers());
  EXPECT_FALSE(ReduceWith(OneBody(), LinearAlgebra::kDense)->closed_form_multipliers());
  EXPECT_FALSE(  // two constraints
      ReduceWith(MassesSpec({-1, 0}, {1.0, 1.0}, {}), LinearAlgebra::kAuto)
          ->closed_form_multipliers());
  expr::SetNativeCodeEnabled(false);  // the interpreter runs DenseMultipliers' loops faster
  const bool interpreted = ReduceWith(OneBody(), LinearAlgebra::kAuto)->closed_form_multipliers();
  expr::SetNativeCodeEnabled(true);
  EXPECT_FALSE(interpreted);
}

// Both compute λ = r/s and v' = w + λx from the same products; the sums may be ordered
// differently, so each of r, s errs by a few ε of its terms' magnitudes: λ within
// 8·n·ε·(Σ|terms of r|/|s| + |λ|·Σ|terms of s|/|s|), bounded here by 64·n·ε·(1 + |λ|)·c with
// c the size of the states (these states keep the terms within a factor 10 of each other).
TEST(ClosedFormMultipliers, EqualsTheDenseKernelToRounding) {
  if (!expr::NativeCodeEnabled()) GTEST_SKIP() << "no native code on this platform";
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

// Each failure reaches the dense layout, which names it as the dense kernel always has.
TEST(ClosedFormMultipliers, FailuresAreNamedAsTheDenseKernelNamesThem) {
  if (!expr::NativeCodeEnabled()) GTEST_SKIP() << "no native code on this platform";
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
  };
  for (const Case& c : cases) {
    auto closed = ReduceWith(c.spec, LinearAlgebra::kAuto);
    auto dense = ReduceWith(c.spec, LinearAlgebra::kDense);
    ASSERT_TRUE(closed && dense);
    ASSERT_TRUE(closed->closed_form_multipliers());
    std::vector<double> zdot(4);
    EXPECT_FALSE(closed->Rhs(0.0, c.z, zdot));
    EXPECT_FALSE(dense->Rhs(0.0, c.z, zdot));
    EXPECT_EQ(closed->failure().status, dense->failure().status);
    EXPECT_EQ(closed->failure().message, dense->failure().message);
    EXPECT_FALSE(closed->failure().message.empty());
  }
}

}  // namespace
}  // namespace tether::testing
