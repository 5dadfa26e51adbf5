// Every catalog model runs to its end time with every sample on the manifold; the index-1 and
// index-2 examples match their analytic solutions (their specs' *_error outputs).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "core/simulate/sim_helpers.h"
#include "tether/model/registry.h"

namespace tether::testing {
namespace {

// A measured figure for the test report (RecordProperty), in scientific notation.
std::string Sci(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3e", x);
  return buffer;
}

using simulate::Termination;

std::shared_ptr<const model::Model> Catalog(const std::string& name) { return CatalogModel(name); }

struct CatalogCase {
  const char* model;
  simulate::Projection projection;
  simulate::Metric metric;
  simulate::AlgebraicMode algebraic;
  // Outputs holding the difference to the model's analytic solution (none for mechanisms).
  std::vector<std::string> analytic_errors = {};
};

// A run of `model` by `method` to the model's own t_end, sampled on its own grid.
simulate::Setup OnItsGrid(std::shared_ptr<const model::Model> model, const std::string& method) {
  simulate::Setup setup;
  setup.model = std::move(model);
  setup.options.method = method;
  if (setup.model) {
    setup.options.t_end = setup.model->t_end.value_or(10.0);
    setup.options.output_interval = setup.model->output_interval.value_or(0.05);
  }
  return setup;
}

class CatalogRun : public ::testing::TestWithParam<CatalogCase> {};

TEST_P(CatalogRun, RunsToItsEndOnTheManifold) {
  const CatalogCase c = GetParam();
  simulate::Setup setup = OnItsGrid(Catalog(c.model), "dp5");
  ASSERT_TRUE(setup.model) << c.model;
  setup.options.rtol = 1e-10;
  setup.options.atol = 1e-10;
  setup.options.projection = c.projection;
  setup.options.metric = c.metric;
  setup.options.algebraic = c.algebraic;
  auto sim = CreateOrFail(setup);
  ASSERT_TRUE(sim);
  simulate::Status status;
  const std::vector<Row> rows = RunAll(*sim, &status);
  ASSERT_EQ(status.reason, Termination::kReachedEnd) << status.message;
  EXPECT_EQ(rows.back().t, setup.options.t_end);
  // Newton stops at scaled residual 1e-12 with s_i = max(1, Σ|∂H_i/∂z_j z_j|); the catalog's
  // constraints are at most quadratic in coordinates of at most a few metres, so s_i ≤ 100.
  for (const Row& r : rows) {
    ASSERT_LE(r.residual_inequality, 1e-10) << c.model << " t = " << r.t;
    ASSERT_LE(r.residual_position, 1e-10) << c.model << " t = " << r.t;
    ASSERT_LE(r.residual_velocity, 1e-10) << c.model << " t = " << r.t;
  }
  char residuals[64];
  std::snprintf(residuals, sizeof residuals, "%.2e %.2e", sim->statistics().max_residual_position,
                sim->statistics().max_residual_velocity);
  RecordProperty("max_residuals", residuals);
  // Analytic solutions: global error of a 5th-order pair at rtol = atol = 1e-10 over a few
  // hundred steps is ≤ steps·1e-10 ≈ 1e-7. The columns are named here, so that a renamed or
  // dropped output fails the test instead of skipping the check.
  const auto& columns = sim->columns();
  // And the other way round: an output that compares with an analytic solution (named
  // `*_error` by the catalog's convention) must be listed in the case, or it would go unchecked.
  for (const auto& column : columns) {
    const std::string& name = column.name;
    const bool is_error = name.size() > 6 && name.compare(name.size() - 6, 6, "_error") == 0;
    if (!is_error) continue;
    EXPECT_NE(std::find(c.analytic_errors.begin(), c.analytic_errors.end(), name),
              c.analytic_errors.end())
        << c.model << ": output '" << name << "' is not checked; list it in the CatalogCase";
  }
  for (const std::string& name : c.analytic_errors) {
    const auto column = std::find_if(columns.begin(), columns.end(),
                                     [&](const auto& col) { return col.name == name; });
    ASSERT_NE(column, columns.end()) << c.model << " has no output column '" << name << "'";
    const auto k = static_cast<std::size_t>(column - columns.begin());
    double worst = 0.0;
    for (const Row& r : rows) worst = std::max(worst, std::abs(r.values[k]));
    EXPECT_LE(worst, 1e-7) << c.model << " " << name;
    RecordProperty(name, Sci(worst));
  }
}

// Every catalog model by every implicit method at the default tolerances, sampled on its own
// grid: each run reaches t_end with a sample at every grid point. radau5 ends a step at every
// grid point, and a step can fall short of one by an ulp (it keeps its h to reuse its factors):
// such a step lands on the grid point, or the next one would be below the floor (Robertson,
// t = 14.4).
TEST(CatalogImplicitMethods, EveryModelRunsToItsEndOnItsGrid) {
  for (const model::CatalogEntry& entry : model::BuiltinCatalog()) {
    const model::ModelResult parsed = model::ParseModel(entry.json);
    ASSERT_TRUE(parsed.ok()) << entry.file << ": " << parsed.ErrorText();
    for (const std::string method : {"radau5", "bdf", "auto"}) {
      SCOPED_TRACE(std::string(entry.file) + " " + method);
      const simulate::Setup setup = OnItsGrid(parsed.model, method);
      auto sim = CreateOrFail(setup);
      ASSERT_TRUE(sim);
      simulate::Status status;
      const std::vector<Row> rows = RunAll(*sim, &status);
      ASSERT_EQ(status.reason, Termination::kReachedEnd) << status.message;
      EXPECT_EQ(rows.back().t, setup.options.t_end);
      // One sample per grid point, and with inequalities one more at each switch.
      const double grid = std::ceil(setup.options.t_end / setup.options.output_interval - 1e-9);
      if (setup.model->inequalities.empty()) {
        EXPECT_EQ(static_cast<double>(rows.size()), grid + 1);
      } else {
        EXPECT_GE(static_cast<double>(rows.size()), grid + 1);
      }
    }
  }
}

using simulate::AlgebraicMode;
using simulate::Metric;
using simulate::Projection;

const std::vector<std::string> kIndex1Errors = {"x_error", "y_error", "z_error"};
const std::vector<std::string> kIndex2Errors = {"x1_error", "x2_error", "y_error"};

INSTANTIATE_TEST_SUITE_P(
    Models, CatalogRun,
    ::testing::Values(
        CatalogCase{"pendulum", Projection::kCoupled, Metric::kEuclidean, AlgebraicMode::kSolve},
        CatalogCase{"pendulum", Projection::kCoupled, Metric::kMass, AlgebraicMode::kSolve},
        CatalogCase{"double_pendulum", Projection::kCoupled, Metric::kEuclidean, AlgebraicMode::kSolve},
        CatalogCase{"double_pendulum", Projection::kCoupled, Metric::kMass, AlgebraicMode::kSolve},
        CatalogCase{"double_pendulum", Projection::kSequential, Metric::kEuclidean, AlgebraicMode::kSolve},
        CatalogCase{"slider_crank", Projection::kCoupled, Metric::kEuclidean, AlgebraicMode::kSolve},
        CatalogCase{"slider_crank", Projection::kSequential, Metric::kMass, AlgebraicMode::kSolve},
        CatalogCase{"index1_tanh", Projection::kCoupled, Metric::kEuclidean, AlgebraicMode::kSolve, kIndex1Errors},
        CatalogCase{"index1_tanh", Projection::kCoupled, Metric::kEuclidean, AlgebraicMode::kOde, kIndex1Errors},
        CatalogCase{"index2_spiral", Projection::kCoupled, Metric::kEuclidean, AlgebraicMode::kSolve, kIndex2Errors},
        CatalogCase{"index2_spiral", Projection::kCoupled, Metric::kEuclidean, AlgebraicMode::kOde, kIndex2Errors},
        CatalogCase{"index2_spiral", Projection::kSequential, Metric::kEuclidean, AlgebraicMode::kOde, kIndex2Errors},
        CatalogCase{"pds_half_plane", Projection::kCoupled, Metric::kEuclidean, AlgebraicMode::kSolve, {"x_error"}},
        CatalogCase{"pds_disc", Projection::kCoupled, Metric::kEuclidean, AlgebraicMode::kSolve, {"theta_error"}},
        CatalogCase{"pendulum_implicit", Projection::kCoupled, Metric::kEuclidean, AlgebraicMode::kSolve},
        CatalogCase{"pendulum_implicit", Projection::kSequential, Metric::kEuclidean, AlgebraicMode::kSolve},
        CatalogCase{"double_pendulum_implicit", Projection::kSequential, Metric::kEuclidean, AlgebraicMode::kSolve},
        CatalogCase{"rc_floating_capacitor", Projection::kCoupled, Metric::kEuclidean, AlgebraicMode::kSolve},
        CatalogCase{"rc_floating_capacitor", Projection::kSequential, Metric::kEuclidean, AlgebraicMode::kSolve},
        CatalogCase{"reactor_conservation", Projection::kCoupled, Metric::kEuclidean, AlgebraicMode::kSolve,
                    {"a_error", "b_error", "c_error"}}),
    [](const auto& param_info) {
      const CatalogCase& c = param_info.param;
      return std::string(c.model) + "_" + std::string(simulate::ProjectionName(c.projection)) +
             "_" + std::string(simulate::MetricName(c.metric)) +
             (c.algebraic == AlgebraicMode::kOde ? "_ode" : "");
    });

}  // namespace
}  // namespace tether::testing
