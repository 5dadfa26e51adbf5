// A driven mechanism (time-dependent constraint) with a configuration-dependent full mass
// matrix: both metrics keep the invariants and converge to the same solution.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "core/simulate/pendulum_spec.h"
#include "core/simulate/sim_helpers.h"

namespace tether::testing {
namespace {

constexpr const char* kDriven = R"json({
  "name": "driven", "form": "mechanical",
  "coordinates": ["x", "y"], "velocities": ["vx", "vy"],
  "mass": [["1 + y^2", "0.5*x*y"], ["0.5*x*y", "2 + x^2"]],
  "forces": ["-x", "-9.81 - vy"],
  "constraints": [{"name": "track", "expr": "x^2 + 2*y^2 - 1 - 0.5*sin(t)"}],
  "initial": {"x": 1, "y": 0, "vx": 0.25, "vy": 0}
})json";

// The run's tolerance: rtol = atol.
constexpr double kTolerance = 1e-11;

std::vector<Row> RunDriven(simulate::Metric metric, simulate::Projection projection,
                           simulate::InitializationReport* init, std::uint64_t* steps) {
  simulate::Setup setup;
  setup.model = ParseOrDie(kDriven);
  setup.options.method = "dp5";
  setup.options.rtol = kTolerance;
  setup.options.atol = kTolerance;
  setup.options.metric = metric;
  setup.options.projection = projection;
  setup.options.t_end = 3.0;
  setup.options.output_interval = 0.1;
  auto sim = CreateOrFail(setup);
  if (!sim) return {};
  *init = sim->initialization();
  simulate::Status status;
  std::vector<Row> rows = RunAll(*sim, &status);
  EXPECT_EQ(status.reason, simulate::Termination::kReachedEnd) << status.message;
  *steps = sim->statistics().steps;
  return rows;
}

TEST(Driven, BothMetricsKeepTheInvariantsAndAgree) {
  simulate::InitializationReport init_e, init_m;
  std::uint64_t steps_e = 0, steps_m = 0;
  const auto euclidean =
      RunDriven(simulate::Metric::kEuclidean, simulate::Projection::kCoupled, &init_e, &steps_e);
  const auto mass =
      RunDriven(simulate::Metric::kMass, simulate::Projection::kSequential, &init_m, &steps_m);
  ASSERT_EQ(euclidean.size(), 31u);
  ASSERT_EQ(mass.size(), 31u);
  // The start is consistent: Φ = 1 − 1 = 0 and h = 2x vx − 0.5 cos 0 = 0.
  EXPECT_TRUE(init_e.changes.empty()) << init_e.ToString();
  EXPECT_TRUE(init_m.changes.empty()) << init_m.ToString();
  for (const auto* rows : {&euclidean, &mass}) {
    for (const Row& r : *rows) {
      // Scales (projector.h): Φ: x² + 2y² = 1 + 0.5 sin t ≤ 1.5;  h: stays O(10) here.
      ASSERT_LE(r.residual_position, 1e-12 * 1.5) << "t = " << r.t;
      ASSERT_LE(r.residual_velocity, 1e-12 * 100) << "t = " << r.t;
    }
  }
  // Each run's error control keeps every step's local error ≤ tol·(1 + |z_i|) per component,
  // and the projection moves a step's result by at most its distance to the manifold, itself
  // a local error: the metric only changes the direction of that move. The flow is damped
  // (the force −vy) and its constraint is compact, so errors are not amplified over 3 s and
  // each run is within Σ_steps tol·(1 + |z|∞) of the exact solution; the two runs differ by at
  // most the sum of both bounds, with |z|∞ the largest state component of either run.
  double z_max = 0.0;
  for (const auto* rows : {&euclidean, &mass}) {
    for (const Row& r : *rows) {
      for (std::size_t k = 0; k < 4; ++k) z_max = std::max(z_max, std::abs(r.values[k]));
    }
  }
  const double bound = static_cast<double>(steps_e + steps_m) * kTolerance * (1 + z_max);
  double difference = 0.0;
  for (std::size_t k = 0; k < 4; ++k) {
    difference = std::max(difference, std::abs(euclidean.back().values[k] - mass.back().values[k]));
  }
  std::printf("driven: %llu + %llu steps, |z| <= %.2f, final states differ by %.2e, bound %.2e\n",
              static_cast<unsigned long long>(steps_e), static_cast<unsigned long long>(steps_m),
              z_max, difference, bound);
  EXPECT_LE(difference, bound);
}

}  // namespace
}  // namespace tether::testing
