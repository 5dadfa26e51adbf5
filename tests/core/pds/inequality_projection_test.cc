#include "project/inequality_projection.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tether/expr/parse.h"

namespace tether::project {
namespace {

// Builds the feasible set of `texts` over the states (x, y), with parameter r bound to 1.
std::unique_ptr<InequalityProjection> Make(const std::vector<std::string>& texts,
                                           std::string* why = nullptr) {
  expr::Context context;
  std::vector<expr::Expr> c;
  for (const std::string& text : texts) c.push_back(expr::Parse(context, text).expr);
  const std::vector<expr::Expr> states = {context.Symbol("x"), context.Symbol("y")};
  const std::vector<std::pair<std::string, double>> bindings = {{"r", 1.0}};
  return InequalityProjection::Create(context, c, states, bindings, why);
}

TEST(InequalityProjectionTest, DefaultOptionsAreValidAndBadOnesNamed) {
  std::string why;
  EXPECT_TRUE(InequalityProjectionOptions{}.IsValid(&why)) << why;
  InequalityProjectionOptions bad;
  bad.tolerance = -1;
  EXPECT_FALSE(bad.IsValid(&why));
  EXPECT_EQ(why, "InequalityProjectionOptions::tolerance = -1.000000; must be > 0");
}

TEST(InequalityProjectionTest, UnboundSymbolIsRefusedByName) {
  std::string why;
  EXPECT_EQ(Make({"y", "x - lenght"}, &why), nullptr);
  EXPECT_EQ(why, "inequalities[1]: depends on 'lenght', which is neither a state nor bound");
}

TEST(InequalityProjectionTest, DerivativesAreStoredByTheirStructuralNonZeros) {
  // A wide set: m = 256 bounds x_i ≥ 0 and one disc of two states among n = 512. Dense c_z and
  // c_zz held 256·512 + 257·512² ≈ 6.7e7 entries (0.5 GB); the non-zeros are 258 + 2 (the
  // bounds' Hessians vanish, the disc's is diag(−2, −2)).
  expr::Context context;
  std::vector<expr::Expr> states;
  std::vector<expr::Expr> c;
  for (int i = 0; i < 512; ++i) states.push_back(context.Symbol("x" + std::to_string(i)));
  for (int i = 0; i < 256; ++i) c.push_back(states[static_cast<std::size_t>(2 * i)]);
  c.push_back(expr::Parse(context, "1 - x1^2 - x3^2").expr);
  std::string why;
  auto wide = InequalityProjection::Create(context, c, states, {}, &why);
  ASSERT_NE(wide, nullptr) << why;
  EXPECT_EQ(wide->derivative_entries(), 256u + 2u + 2u);

  // The Jacobian is written whole: structural zeros too, over whatever the buffer held.
  std::vector<double> x(512, 0.5);
  std::vector<double> jacobian(257 * 512, 7.0);
  wide->EvaluateJacobian(x, jacobian);
  EXPECT_EQ(jacobian[0], 1.0);                        // ∂x0/∂x0
  EXPECT_EQ(jacobian[1], 0.0);                        // ∂x0/∂x1
  EXPECT_EQ(jacobian[256 * 512 + 1], -1.0);           // ∂(1 − x1² − x3²)/∂x1 at 0.5
  EXPECT_EQ(jacobian[256 * 512 + 2], 0.0);
  EXPECT_EQ(std::count(jacobian.begin(), jacobian.end(), 0.0), 257 * 512 - 258);

  // The disc's curvature still enters Newton: a point outside projects radially in (x1, x3).
  std::vector<double> x_tilde(512, 1.0);
  x_tilde[1] = 1.2;
  x_tilde[3] = 1.6;
  std::vector<double> z(512);
  const InequalityProjectionResult result = wide->Project(x_tilde, {}, z, {});
  ASSERT_TRUE(result.ok()) << result.message;
  EXPECT_NEAR(z[1], 0.6, 1e-12);
  EXPECT_NEAR(z[3], 0.8, 1e-12);
  EXPECT_LE(result.iterations, 8);
}

TEST(InequalityProjectionTest, OutsideTheDiscProjectsRadially) {
  auto disc = Make({"r^2 - x^2 - y^2"});
  ASSERT_NE(disc, nullptr);
  const std::vector<double> x_tilde = {1.2, 1.6};  // |x̃| = 2
  std::vector<double> z(2);
  const InequalityProjectionResult result = disc->Project(x_tilde, {}, z, {});
  ASSERT_TRUE(result.ok()) << result.message;
  // The Euclidean projection onto the unit disc is x̃/|x̃|; stationarity z − x̃ = −2μz gives
  // μ = (|x̃| − 1)/2 = 0/5. Newton stops at |c| ≤ 1e-12, so z is within ~1e-12 of it.
  EXPECT_NEAR(z[0], 0.6, 1e-12);
  EXPECT_NEAR(z[1], 0.8, 1e-12);
  ASSERT_TRUE(result.active[0]);
  EXPECT_NEAR(result.mu[0], 0.5, 1e-11);
  EXPECT_LE(result.residual_inequality, 1e-12);
  EXPECT_LE(result.stationarity, 1e-12);  // Newton's stopping test covers ‖F‖∞
  EXPECT_LE(result.complementarity, 1e-12);
  EXPECT_GE(result.iterations, 1);
  EXPECT_LE(result.iterations, 8);  // Newton with the exact KKT matrix: quadratic from x̃
}

TEST(InequalityProjectionTest, CornerAndEdgeOfTheQuadrant) {
  auto quadrant = Make({"x", "y"});
  ASSERT_NE(quadrant, nullptr);
  std::vector<double> z(2);
  // Below the corner: both active, μ = −(x̃) componentwise (linear, one Newton step).
  InequalityProjectionResult corner = quadrant->Project({{-1.0, -2.0}}, {}, z, {});
  ASSERT_TRUE(corner.ok()) << corner.message;
  EXPECT_EQ(z, (std::vector<double>{0.0, 0.0}));
  EXPECT_EQ(corner.mu, (std::vector<double>{1.0, 2.0}));
  // Left of the edge x = 0 above the corner: only x active; y stays and μ_y = 0.
  InequalityProjectionResult edge = quadrant->Project({{-1.0, 2.0}}, {}, z, {});
  ASSERT_TRUE(edge.ok()) << edge.message;
  EXPECT_EQ(z, (std::vector<double>{0.0, 2.0}));
  EXPECT_EQ(edge.active, (std::vector<bool>{true, false}));
  EXPECT_EQ(edge.mu[1], 0.0);
  // Weighted metric W = diag(1, 4) on a slanted half-plane x + y ≥ 0: z = x̃ + W⁻¹(1,1)μ with
  // c(z) = 0 gives μ = −(x̃₀ + x̃₁)/(1 + 1/4) = 0.8 for x̃ = (−1, 0).
  auto slanted = Make({"x + y"});
  InequalityProjectionResult weighted = slanted->Project({{-1.0, 0.0}}, {{1.0, 4.0}}, z, {});
  ASSERT_TRUE(weighted.ok()) << weighted.message;
  EXPECT_NEAR(weighted.mu[0], 0.8, 1e-15);
  EXPECT_NEAR(z[0], -0.2, 1e-15);
  EXPECT_NEAR(z[1], 0.2, 1e-15);
}

TEST(InequalityProjectionTest, AWrongGuessLeavesTheActiveSet) {
  // x̃ = (−1, −0.5) violates both x ≥ 0 and x + y + 1 ≥ 0, so both start active; their
  // common point (0, −1) needs z − x̃ = (1, −0.5) = μ₀(1, 0) + μ₁(1, 1), μ₁ = −0.5 < 0, so
  // index 1 must leave the set.
  auto set = Make({"x", "x + y + 1"});
  std::vector<double> z(2);
  InequalityProjectionResult result = set->Project({{-1.0, -0.5}}, {}, z, {});
  ASSERT_TRUE(result.ok()) << result.message;
  // Projection onto x ≥ 0 alone gives (0, −0.5), where x + y + 1 = 0.5 ≥ 0: only x active.
  EXPECT_EQ(result.active, (std::vector<bool>{true, false}));
  EXPECT_NEAR(z[0], 0.0, 1e-15);
  EXPECT_NEAR(z[1], -0.5, 1e-15);
  EXPECT_GE(result.active_set_changes, 1);
  EXPECT_LE(result.complementarity, 1e-15);
}

TEST(InequalityProjectionTest, InsideIsLeftAlone) {
  auto disc = Make({"r^2 - x^2 - y^2"});
  std::vector<double> z(2);
  InequalityProjectionResult result = disc->Project({{0.1, 0.2}}, {}, z, {});
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(z, (std::vector<double>{0.1, 0.2}));
  EXPECT_EQ(result.iterations, 0);
  EXPECT_FALSE(result.active[0]);
}

TEST(InequalityProjectionTest, DependentActiveGradientsAreReported) {
  auto twice = Make({"x", "2*x"});  // LICQ fails on x = 0
  std::vector<double> z(2);
  InequalityProjectionResult result = twice->Project({{-1.0, 0.0}}, {}, z, {});
  EXPECT_EQ(result.status, InequalityProjectionStatus::kSingularJacobian);
  EXPECT_EQ(result.message, "inequality projection: active constraint gradients are linearly "
                            "dependent (LICQ violated)");
}

TEST(InequalityProjectionTest, NearlyParallelGradientsAreSingularOnlyAtRoundingLevel) {
  // x ≥ 0 and x + δy ≥ 0 from x̃ = (−1, 0): both active, z = (0, 0), μ = (1, 0). The KKT
  // matrix has a pivot of order δ against entries of order 1: δ = 1e-3 is far above the
  // threshold 1000·4·ε ≈ 9e-13 and solves exactly, δ = 1e-14 is below it and is reported.
  std::vector<double> z(2);
  auto resolved = Make({"x", "x + 0.001*y"});
  InequalityProjectionResult result = resolved->Project({{-1.0, 0.0}}, {}, z, {});
  ASSERT_TRUE(result.ok()) << result.message;
  EXPECT_NEAR(z[0], 0.0, 1e-15);
  EXPECT_NEAR(z[1], 0.0, 1e-12);
  EXPECT_NEAR(result.mu[0], 1.0, 1e-12);
  auto parallel = Make({"x", "x + 1e-14*y"});
  result = parallel->Project({{-1.0, 0.0}}, {}, z, {});
  EXPECT_EQ(result.status, InequalityProjectionStatus::kSingularJacobian);
}

TEST(InequalityProjectionTest, ACallerOwnedResultIsResetAndMatchesAFreshOne) {
  // One result reused across projections with different outcomes (both constraints active,
  // none, one, a failure) must equal a fresh result every time: nothing stale survives.
  auto quadrant = Make({"x", "y"});
  const std::vector<std::vector<double>> points = {{-1.0, -2.0}, {0.5, 0.5}, {-1.0, 2.0}};
  InequalityProjectionResult reused;
  std::vector<double> z(2);
  std::vector<double> z_fresh(2);
  for (const std::vector<double>& x_tilde : points) {
    EXPECT_TRUE(quadrant->Project(x_tilde, {}, z, {}, &reused));
    const InequalityProjectionResult fresh = quadrant->Project(x_tilde, {}, z_fresh, {});
    EXPECT_EQ(z, z_fresh);
    EXPECT_EQ(reused.active, fresh.active);
    EXPECT_EQ(reused.mu, fresh.mu);
    EXPECT_EQ(reused.iterations, fresh.iterations);
    EXPECT_EQ(reused.active_set_changes, fresh.active_set_changes);
    EXPECT_EQ(reused.stationarity, fresh.stationarity);
    EXPECT_TRUE(reused.message.empty());
  }
  auto twice = Make({"x", "2*x"});
  EXPECT_FALSE(twice->Project({{-1.0, 0.0}}, {}, z, {}, &reused));
  EXPECT_EQ(reused.status, InequalityProjectionStatus::kSingularJacobian);
  // After a failure the next call starts clean; `active` may alias the result's own set.
  std::vector<double> x_tilde = {-1.0, 3.0};
  reused.active = {true, false};
  EXPECT_TRUE(quadrant->ProjectOntoActive(x_tilde, {}, reused.active, z, {}, &reused))
      << reused.message;
  EXPECT_TRUE(reused.message.empty());
  EXPECT_EQ(reused.active, (std::vector<bool>{true, false}));
  EXPECT_EQ(z, (std::vector<double>{0.0, 3.0}));
  EXPECT_EQ(reused.mu, (std::vector<double>{1.0, 0.0}));
}

}  // namespace
}  // namespace tether::project
