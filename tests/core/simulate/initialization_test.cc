// Consistent (re-)initialization from far off the manifold: the globalized Newton of
// tether/project/newton_projection.h (line search, Levenberg–Marquardt) and its failure reasons.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/simulate/pendulum_spec.h"
#include "core/simulate/sim_helpers.h"

namespace tether::testing {
namespace {

simulate::Setup Seed() {
  simulate::Setup setup;
  setup.model = Pendulum();
  setup.options.method = "dp5";
  setup.options.t_end = 1.0;
  setup.options.output_interval = 0.05;
  return setup;
}

// x² + y² on the circle of radius ℓ to the projection's own criterion: the scaled residual
// |x² + y² − ℓ²| / s ≤ tolerance with s = max(1, x² + y²) = ℓ² (newton_projection.h), plus the
// rounding of the sum x² + y² itself (2 ulp of ℓ²).
double RadiusSquaredTolerance(double l, double tolerance) {
  const double s = std::max(1.0, l * l);
  return tolerance * s + 2.0 * std::numeric_limits<double>::epsilon() * l * l;
}

// The value initialization gave `name` (NaN when it did not move it).
double Corrected(const simulate::InitializationReport& report, const std::string& name) {
  for (const auto& change : report.changes) {
    if (change.name == name) return change.corrected;
  }
  return std::nan("");
}

TEST(Initialization, RodLengthFromFarConvergesOntoTheCircle) {
  // Start 250 rod lengths off the circle: (0.86, 2.35) onto ℓ = 0.01. The local Newton stops
  // there (its projection target is a repelling fixed point that far out); the globalized one
  // halves the radius per step until Newton's quadratic convergence takes over.
  simulate::Setup setup = Seed();
  setup.parameters["l"] = 0.01;
  auto sim = CreateOrFail(setup);
  ASSERT_TRUE(sim);
  std::vector<Row> rows;
  sim->Advance(5, Collect(&rows));
  ASSERT_EQ(rows.size(), 5u);
  const double tolerance = setup.options.projection_tolerance;
  const Row& first = rows.front();
  EXPECT_NEAR(first.values[0] * first.values[0] + first.values[1] * first.values[1], 1e-4,
              RadiusSquaredTolerance(0.01, tolerance));
  // The minimum-norm corrections of a circle are radial: the direction of (0.86, 2.35) stays,
  // to the rounding of a few dozen steps.
  EXPECT_NEAR(std::atan2(first.values[1], first.values[0]), std::atan2(2.35, 0.86), 1e-13);

  // Then the rod grows a thousandfold: re-initialization from the last sample, 10 m off. The
  // local Newton converges here (the scaled residual falls from 100 to 1 in its first step),
  // though not to the closest point: the direction drifts by ~4e-4 rad on the way out, so
  // only the radius is checked.
  const simulate::CreateResult r = sim->Update({{"l", 10.0}}, {});
  ASSERT_TRUE(r.problems.empty());
  ASSERT_FALSE(r.status.ended()) << r.status.message;
  const simulate::InitializationReport& init = sim->initialization();
  EXPECT_GT(init.residual_position_before, 99.0);  // |0.01² − 10²|
  EXPECT_LE(init.residual_position_after, RadiusSquaredTolerance(10.0, tolerance));
  // Velocity level: h = 2(x vx + y vy), scale max(1, 2(|x vx| + |y vy|)).
  EXPECT_LE(init.residual_velocity_after, tolerance * std::max(1.0, 2.0 * 10.0 * 1.0));
  std::vector<Row> after;
  sim->Advance(5, Collect(&after));
  ASSERT_EQ(after.size(), 5u);
  const Row& again = after.front();
  const double x = again.values[0];
  const double y = again.values[1];
  EXPECT_NEAR(x * x + y * y, 100.0, RadiusSquaredTolerance(10.0, tolerance));
  EXPECT_NEAR(after.back().values[0] * after.back().values[0] +
                  after.back().values[1] * after.back().values[1],
              100.0, RadiusSquaredTolerance(10.0, tolerance));

  // And back to 0.01 from 10 m out, where the local Newton stops on a growing residual and the
  // globalized one takes over: radial again.
  const Row& end = after.back();
  const simulate::CreateResult back = sim->Update({{"l", 0.01}}, {});
  ASSERT_FALSE(back.status.ended()) << back.status.message;
  const double xs = Corrected(sim->initialization(), "x");
  const double ys = Corrected(sim->initialization(), "y");
  EXPECT_NEAR(xs * xs + ys * ys, 1e-4, RadiusSquaredTolerance(0.01, tolerance));
  EXPECT_NEAR(std::atan2(ys, xs), std::atan2(end.values[1], end.values[0]), 1e-13);
}

TEST(Initialization, VanishingGradientIsReportedWithTheState) {
  // At the pivot Φ_q = (2x, 2y) = 0 and the merit ½Φ² is stationary: neither Newton nor LM can
  // move, and the reason names the constraint and the values.
  simulate::Setup setup = Seed();
  setup.initial = {{"x", 0.0}, {"y", 0.0}};
  const simulate::CreateResult r = simulate::Simulation::Create(setup);
  ASSERT_TRUE(r.problems.empty());
  EXPECT_FALSE(r.simulation);
  ASSERT_TRUE(r.status.ended());
  EXPECT_EQ(r.status.reason, simulate::Termination::kSingularConstraints) << r.status.message;
  EXPECT_NE(r.status.message.find("rank-deficient at x = 0, y = 0"), std::string::npos)
      << r.status.message;
  EXPECT_NE(r.status.message.find("'constraints[0]'"), std::string::npos) << r.status.message;
}

TEST(Initialization, NearlySingularStartConverges) {
  // One coordinate 1e-9 from the pivot: S = 4x² = 4e-18 is regular but the Newton step
  // (ℓ² / 2x ≈ 3e9) overshoots by nine orders; the line search cuts it back.
  simulate::Setup setup = Seed();
  setup.initial = {{"x", 1e-9}, {"y", 0.0}};
  auto sim = CreateOrFail(setup);
  ASSERT_TRUE(sim);
  EXPECT_LE(sim->initialization().residual_position_after,
            RadiusSquaredTolerance(2.5, setup.options.projection_tolerance));
  std::vector<Row> rows;
  sim->Advance(1, Collect(&rows));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_NEAR(rows[0].values[0], 2.5, 2.5 * setup.options.projection_tolerance);
  EXPECT_EQ(rows[0].values[1], 0.0);  // the correction is along Φ_q = (2x, 0)
}

TEST(Initialization, IterationLimitIsReported) {
  // From radius 2.5 to 0.01 the radius halves per step for ~8 steps: 3 cannot reach it.
  simulate::Setup setup = Seed();
  setup.parameters["l"] = 0.01;
  setup.options.max_initialization_iterations = 3;
  const simulate::CreateResult r = simulate::Simulation::Create(setup);
  ASSERT_TRUE(r.status.ended());
  EXPECT_EQ(r.status.reason, simulate::Termination::kProjectionFailed) << r.status.message;
  EXPECT_NE(r.status.message.find("the iteration limit 3 was reached"), std::string::npos)
      << r.status.message;
  EXPECT_NE(r.status.message.find("after 3 iterations"), std::string::npos) << r.status.message;
}

TEST(Initialization, IterationLimitIsValidated) {
  simulate::Setup setup = Seed();
  setup.options.max_initialization_iterations = 0;
  const simulate::CreateResult r = simulate::Simulation::Create(setup);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].path, "options.max_initialization_iterations");
  EXPECT_EQ(r.problems[0].message, "max_initialization_iterations = 0; must be >= 1");
}

}  // namespace
}  // namespace tether::testing
