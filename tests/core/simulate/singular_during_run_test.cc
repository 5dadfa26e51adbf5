// A constraint Jacobian that becomes singular during the run, not at initialization.
//
// The model: a free particle (M = m I, no force) held on the "cross" Φ = x² − y² = 0, the two
// lines y = ±x. Φ_q = (2x, −2y) vanishes at the crossing (0, 0), which lies on the manifold.
// Started at q0 = (1, 1) with v0 = (−1, −1) (consistent: Φ = 0, h = Φ_q v = −2 + 2 = 0) it
// moves along y = x towards the crossing: a = h_q v = 2(vx² − vy²) = 0, so λ = 0, v' = 0 and
// q(t) = (1 − t, 1 − t) reaches the crossing at t = 1. RK4 integrates this linear motion
// exactly, and with h = 1/4 every stage point is a dyadic rational: the last stage of the step
// [0.75, 1] is evaluated at q = (0.25, 0.25) + 0.25·(−1, −1) = (0, 0) exactly, where
// S = Φ_q M⁻¹ Φ_qᵀ = 4(x² + y²)/m = 0.
#include <gtest/gtest.h>

#include <cmath>

#include "core/simulate/pendulum_spec.h"
#include "core/simulate/sim_helpers.h"

namespace tether::testing {
namespace {

using simulate::Termination;

TEST(Failure, AJacobianThatVanishesDuringTheRunEndsWithSingularConstraints) {
  simulate::Setup setup;
  setup.model = ParseOrDie(R"json({"name": "cross", "form": "mechanical",
      "parameters": {"m": {"value": 2.0}},
      "coordinates": ["x", "y"], "velocities": ["vx", "vy"], "mass": [["m", "0"], ["0", "m"]],
      "forces": ["0", "0"], "constraints": ["x^2 - y^2"],
      "initial": {"x": 1, "y": 1, "vx": -1, "vy": -1}})json");
  setup.options.method = "rk4";
  setup.options.step = 0.25;
  setup.options.output_interval = 0.25;
  setup.options.t_end = 5.0;
  auto sim = CreateOrFail(setup);
  ASSERT_TRUE(sim);
  std::vector<Row> rows;
  const simulate::Status status = sim->Advance(1000, Collect(&rows));
  EXPECT_EQ(status.reason, Termination::kSingularConstraints) << status.message;
  EXPECT_EQ(status.t, 0.75);  // the step that fails starts from the last good state
  EXPECT_NE(status.message.find("rank-deficient at t = 1"), std::string::npos) << status.message;
  EXPECT_NE(status.message.find("'constraints[0]'"), std::string::npos) << status.message;
  EXPECT_NE(status.message.find("vanishing gradient"), std::string::npos) << status.message;

  // The last good state: samples t = 0, 0.25, 0.5, 0.75, exactly on the line y = x (the motion
  // is integrated exactly, see above), so both residuals are 0 up to rounding of Φ = x² − y².
  ASSERT_EQ(rows.size(), 4u);
  const Row& last = rows.back();
  EXPECT_EQ(last.t, 0.75);
  EXPECT_EQ(sim->time(), 0.75);
  const std::size_t x = Column(*sim, "x");
  const std::size_t y = Column(*sim, "y");
  EXPECT_DOUBLE_EQ(last.values[x], 0.25);
  EXPECT_DOUBLE_EQ(last.values[y], 0.25);
  for (double value : last.values) EXPECT_TRUE(std::isfinite(value));
  EXPECT_LE(last.residual_position, 1e-15);
  EXPECT_LE(last.residual_velocity, 1e-15);
  EXPECT_EQ(sim->CurrentValues(), last.values);
  const simulate::Statistics& stats = sim->statistics();
  EXPECT_EQ(stats.steps, 3u);
  EXPECT_EQ(stats.samples, 4u);
  EXPECT_TRUE(std::isfinite(stats.max_residual_position));
  EXPECT_TRUE(std::isfinite(stats.max_residual_velocity));
  EXPECT_EQ(sim->Advance(10, Collect(&rows)).reason, Termination::kSingularConstraints);  // sticky
  EXPECT_EQ(rows.size(), 4u);
}

}  // namespace
}  // namespace tether::testing
