// Which projection keeps a step's accuracy: the coupled projection against the sequential one
// (and the error-weighted metric) on the catalog's mechanisms, each measured against a
// reference computed by dop853 at rtol 1e-13.
//
// Why the coupled projection can lose digits: its velocity rows have the gradient
// (∂h/∂q, ∂h/∂v) = (Φ_qq v, Φ_q), so a velocity residual is corrected partly by moving the
// positions, in proportion to |Φ_qq v| / |Φ_q|. On an oscillating mechanism a step's velocity
// error is the frequency ω times its position error, so positions pick up errors ω times their
// own. The car axis (masses eps²M/2 = 5e-4 on unit springs: ω ≈ 45 rad/s) loses 1.8 digits that
// way (2.4 against 4.2 digits at rtol = atol = 1e-7); the sequential projection moves
// positions only for Φ.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/simulate/sim_helpers.h"

namespace tether::testing {
namespace {

using simulate::Metric;
using simulate::Projection;

struct Variant {
  Projection projection;
  Metric metric;
};

// The state at t_end (q and v: the model's first num_states() columns).
std::vector<double> FinalState(const std::string& model, const std::string& method, double rtol,
                               const Variant* variant) {
  simulate::Setup setup;
  setup.model = CatalogModel(model);
  if (!setup.model) return {};
  setup.options.method = method;
  setup.options.rtol = rtol;
  setup.options.atol = rtol;  // the test set's convention: atol = rtol
  if (variant) {
    setup.options.projection = variant->projection;
    setup.options.metric = variant->metric;
  }
  setup.options.t_end = *setup.model->t_end;
  setup.options.output_interval = setup.options.t_end;
  auto sim = CreateOrFail(setup);
  if (!sim) return {};
  simulate::Status status;
  const std::vector<Row> rows = RunAll(*sim, &status);
  EXPECT_EQ(status.reason, simulate::Termination::kReachedEnd) << status.message;
  if (rows.empty()) return {};
  const std::size_t n = setup.model->num_states();
  return {rows.back().values.begin(), rows.back().values.begin() + static_cast<long>(n)};
}

// Significant correct digits: −log10 max_i |x_i − ref_i| / (|ref_i| + 1e-3); the floor keeps
// a component that passes near zero (the car axis' vl = 0.0074 at t = 3) from deciding alone.
double Digits(const std::vector<double>& x, const std::vector<double>& ref) {
  double worst = 0.0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    worst = std::max(worst, std::abs(x[i] - ref[i]) / (std::abs(ref[i]) + 1e-3));
  }
  return -std::log10(worst);
}

struct Case {
  const char* model;
  double rtol;
};

class ProjectionAccuracy : public ::testing::TestWithParam<Case> {};

// The default projection (sequential, Euclidean) is never less accurate than the coupled one
// in either metric, beyond the 0.3 digits by which equally good variants scatter at these
// tolerances (measured over the cases below: |Δ| ≤ 0.25 where neither loses).
TEST_P(ProjectionAccuracy, TheDefaultIsNeverLessAccurate) {
  const Case c = GetParam();
  const std::vector<double> ref = FinalState(c.model, "dop853", 1e-13, nullptr);
  ASSERT_FALSE(ref.empty());
  const double by_default = Digits(FinalState(c.model, "dp5", c.rtol, nullptr), ref);
  const Variant coupled{Projection::kCoupled, Metric::kEuclidean};
  const Variant weighted{Projection::kCoupled, Metric::kWeighted};
  const double euclidean_digits = Digits(FinalState(c.model, "dp5", c.rtol, &coupled), ref);
  const double weighted_digits = Digits(FinalState(c.model, "dp5", c.rtol, &weighted), ref);
  RecordProperty("default_digits", std::to_string(by_default));
  RecordProperty("coupled_euclidean_digits", std::to_string(euclidean_digits));
  RecordProperty("coupled_weighted_digits", std::to_string(weighted_digits));
  EXPECT_GE(by_default, euclidean_digits - 0.3) << c.model << " rtol " << c.rtol;
  EXPECT_GE(by_default, weighted_digits - 0.3) << c.model << " rtol " << c.rtol;
}

INSTANTIATE_TEST_SUITE_P(Catalog, ProjectionAccuracy,
                         ::testing::Values(Case{"car_axis", 1e-5}, Case{"car_axis", 1e-7},
                                           Case{"car_axis", 1e-9}, Case{"slider_crank", 1e-7},
                                           Case{"slider_crank", 1e-9}, Case{"pendulum", 1e-7}));

// The car axis shows the loss the default avoids: the coupled projection, in the Euclidean or
// the error-weighted metric, ends at least one digit short of the sequential one (measured:
// 2.4 and 2.4 against 4.2 at rtol = atol = 1e-7). If this fails, the coupling no longer moves
// positions for velocity residuals and the choice of default deserves a new look.
TEST(ProjectionAccuracy, CoupledProjectionLosesDigitsOnTheCarAxis) {
  const std::vector<double> ref = FinalState("car_axis", "dop853", 1e-13, nullptr);
  ASSERT_FALSE(ref.empty());
  const Variant sequential{Projection::kSequential, Metric::kEuclidean};
  const Variant coupled{Projection::kCoupled, Metric::kEuclidean};
  const Variant weighted{Projection::kCoupled, Metric::kWeighted};
  const double sequential_digits = Digits(FinalState("car_axis", "dp5", 1e-7, &sequential), ref);
  EXPECT_GT(sequential_digits, Digits(FinalState("car_axis", "dp5", 1e-7, &coupled), ref) + 1.0);
  EXPECT_GT(sequential_digits, Digits(FinalState("car_axis", "dp5", 1e-7, &weighted), ref) + 1.0);
}

// The reference itself: the test set's solution at t = 3 (carax, given in the model's
// description to 12 digits), reached to 10 digits.
TEST(ProjectionAccuracy, CarAxisReferenceMatchesTheTestSet) {
  const std::vector<double> ref = FinalState("car_axis", "dop853", 1e-13, nullptr);
  ASSERT_GE(ref.size(), 4U);
  const double published[] = {0.0493455784275, 0.496989460230, 1.04174252488, 0.373911027265};
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(ref[i], published[i], 1e-10) << i;
}

}  // namespace
}  // namespace tether::testing
