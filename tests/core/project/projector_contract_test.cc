// The contract every projector keeps, as one typed suite over all methods (STYLE.md), plus
// properties of the projecting ones (coupled, sequential): metric, Newton variants, failures.
#include "tether/project/projector.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/simulate/pendulum_spec.h"

namespace tether::testing {
namespace {

using project::Method;
using project::ProjectionReport;
using project::ProjectionStatus;
using reduce::ReducedModel;

std::unique_ptr<ReducedModel> Reduce(const std::string& json) {
  reduce::ReduceResult r = ReducedModel::Build(ParseOrDie(json), {});
  EXPECT_TRUE(r.error.empty()) << r.error;
  return std::move(r.reduced);
}

template <Method kMethod>
struct MethodTag {
  static constexpr Method value = kMethod;
  static constexpr bool projects = kMethod == Method::kCoupled || kMethod == Method::kSequential;
};

template <typename Tag>
class ProjectorContract : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = Reduce(kPendulumSpec);
    projector_ = project::MakeProjector(Tag::value, options_);
    ASSERT_TRUE(projector_);
    projector_->Resize(*model_);
  }
  // Scale of Φ (ℓ²) and of h (2(|x vx| + |y vy|), ≥ 1) in the projector's norm.
  static double VelocityScale(const std::vector<double>& z) {
    return std::max(1.0, 2 * (std::abs(z[0] * z[2]) + std::abs(z[1] * z[3])));
  }

  project::ProjectorOptions options_;
  std::unique_ptr<ReducedModel> model_;
  std::unique_ptr<project::Projector> projector_;
};

using AllMethods = ::testing::Types<MethodTag<Method::kNone>, MethodTag<Method::kBaumgarte>,
                                    MethodTag<Method::kCoupled>, MethodTag<Method::kSequential>>;
TYPED_TEST_SUITE(ProjectorContract, AllMethods);

TYPED_TEST(ProjectorContract, NameAndCloneAgree) {
  EXPECT_EQ(this->projector_->name(), project::ProjectionName(TypeParam::value));
  EXPECT_EQ(this->projector_->Clone()->name(), this->projector_->name());
}

TYPED_TEST(ProjectorContract, AConsistentStateIsLeftAlone) {
  // On the circle of radius 2.5 with a tangent velocity: Φ = 0 and h = 0 up to rounding.
  std::vector<double> z = {1.5, -2.0, 2.0, 1.5};
  const std::vector<double> before = z;
  ProjectionReport report;
  ASSERT_TRUE(this->projector_->Project(*this->model_, 0.0, z, &report)) << report.message;
  EXPECT_EQ(z, before);
  EXPECT_EQ(report.iterations, 0);
  EXPECT_EQ(report.status, ProjectionStatus::kConverged);
}

TYPED_TEST(ProjectorContract, OffManifoldStatesAreProjectedOrMeasured) {
  std::vector<double> z = {1.52, -2.01, 2.03, 1.49};
  const std::vector<double> before = z;
  ProjectionReport report;
  ASSERT_TRUE(this->projector_->Project(*this->model_, 0.0, z, &report)) << report.message;
  double position = 0.0, velocity = 0.0;
  ASSERT_TRUE(this->model_->Residuals(0.0, z, &position, &velocity));
  // The report always describes the state the projector leaves.
  EXPECT_EQ(report.residual_position, position);
  EXPECT_EQ(report.residual_velocity, velocity);
  if (TypeParam::projects) {
    // Stopping rule (projector.h): |H_i| ≤ tolerance·s_i.
    EXPECT_LE(position, 1e-12 * kLength * kLength);
    EXPECT_LE(velocity, 1e-12 * this->VelocityScale(z));
    EXPECT_GE(report.iterations, 1);
  } else {
    EXPECT_EQ(z, before);
    EXPECT_GT(position, 1e-3);
  }
}

TYPED_TEST(ProjectorContract, AClonedProjectorProjectsIdentically) {
  auto clone = this->projector_->Clone();
  std::vector<double> a = {1.52, -2.01, 2.03, 1.49};
  std::vector<double> b = a;
  ProjectionReport ra, rb;
  ASSERT_TRUE(this->projector_->Project(*this->model_, 0.0, a, &ra));
  ASSERT_TRUE(clone->Project(*this->model_, 0.0, b, &rb));
  EXPECT_EQ(a, b);
  EXPECT_EQ(ra.iterations, rb.iterations);
}

TYPED_TEST(ProjectorContract, DependentConstraintsAreReportedByName) {
  auto twice = Reduce(R"json({"name": "twice", "form": "mechanical",
      "coordinates": ["x", "y"], "velocities": ["vx", "vy"], "mass": [["1", "0"], ["0", "1"]],
      "forces": ["0", "-1"],
      "constraints": [{"name": "rod", "expr": "x^2 + y^2 - 1"},
                      {"name": "rod_again", "expr": "2*x^2 + 2*y^2 - 2"}]})json");
  ASSERT_TRUE(twice);
  auto projector = project::MakeProjector(TypeParam::value, this->options_);
  projector->Resize(*twice);
  std::vector<double> z = {0.61, 0.8, 0.0, 0.0};
  ProjectionReport report;
  const bool ok = projector->Project(*twice, 0.5, z, &report);
  if (TypeParam::projects) {
    EXPECT_FALSE(ok);
    EXPECT_EQ(report.status, ProjectionStatus::kSingular);
    EXPECT_NE(report.message.find("rank-deficient at t = 0.5: constraints 'rod', 'rod_again'"),
              std::string::npos) << report.message;
  } else {
    EXPECT_TRUE(ok);  // nothing is factored
  }
}

// Properties of the Newton projection itself.

TEST(CoupledProjector, EuclideanPositionProjectionIsTheClosestPointOfTheCircle) {
  auto model = Reduce(kPendulumSpec);
  auto projector = project::MakeProjector(Method::kCoupled, {});
  projector->Resize(*model);
  std::vector<double> z = {kX0, kY0, 0.0, 0.0};
  ProjectionReport report;
  ASSERT_TRUE(projector->Project(*model, 0.0, z, &report));
  const double r = std::hypot(kX0, kY0);
  // |Φ| ≤ 1e-12·ℓ² leaves a distance ≤ |Φ|/‖∇Φ‖ = 1e-12·ℓ/2 to the closest point q̃ℓ/‖q̃‖.
  EXPECT_NEAR(z[0], kX0 * kLength / r, 1e-12 * kLength);
  EXPECT_NEAR(z[1], kY0 * kLength / r, 1e-12 * kLength);
}

// The coupled projection of one pendulum state in `options`' metric equals the Euclidean one.
void ExpectEuclideanMinimizer(const project::ProjectorOptions& options) {
  auto model = Reduce(kPendulumSpec);
  auto euclidean = project::MakeProjector(Method::kCoupled, {});
  auto weighted = project::MakeProjector(Method::kCoupled, options);
  euclidean->Resize(*model);
  weighted->Resize(*model);
  std::vector<double> a = {1.52, -2.01, 2.03, 1.49};
  std::vector<double> b = a;
  ProjectionReport ra, rb;
  ASSERT_TRUE(euclidean->Project(*model, 0.0, a, &ra));
  ASSERT_TRUE(weighted->Project(*model, 0.0, b, &rb));
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(a[i], b[i], 1e-12 * 4);
}

TEST(CoupledProjector, MassMetricWithScalarMassEqualsTheEuclideanOne) {
  // W = diag(mI, mI) = m·I: the minimizer of ½‖z − x̃‖²_W is that of the Euclidean norm.
  project::ProjectorOptions mass;
  mass.metric = project::Metric::kMass;
  ExpectEuclideanMinimizer(mass);
}

TEST(CoupledProjector, ErrorWeightsWithoutRtolEqualTheEuclideanMetric) {
  // rtol = 0 and one atol for all: W = I/atol², a multiple of I, so the same minimizer.
  project::ProjectorOptions options;
  options.metric = project::Metric::kWeighted;
  options.weight_rtol = 0.0;
  options.weight_atol = {1e-6};
  ExpectEuclideanMinimizer(options);
}

TEST(CoupledProjector, ErrorWeightsMoveEachEntryInProportionToItsAllowance) {
  // Position level of the pendulum from (x̃, ỹ): to first order δ = W⁻¹∇Φ μ, so an entry with
  // a 100 times larger allowance (atol_x = 100 atol_y, rtol = 0) moves 100² times as far per
  // unit of gradient: δx/δy = 1e4 · x̃/ỹ, up to the second-order terms of one Newton step
  // (relative size |δ|/ℓ ≈ 2e-3 here, so 1 % suffices).
  auto model = Reduce(kPendulumSpec);
  project::ProjectorOptions options;
  options.metric = project::Metric::kWeighted;
  options.weight_rtol = 0.0;
  options.weight_atol = {1e-4, 1e-6, 1e-6, 1e-6};
  auto projector = project::MakeProjector(Method::kSequential, options);
  projector->Resize(*model);
  const double x0 = 1.505, y0 = -2.0;
  std::vector<double> z = {x0, y0, 0.0, 0.0};
  ProjectionReport report;
  ASSERT_TRUE(projector->Project(*model, 0.0, z, &report));
  const double dx = z[0] - x0;
  const double dy = z[1] - y0;
  ASSERT_NE(dy, 0.0);
  EXPECT_NEAR((dx / dy) / (1e4 * x0 / y0), 1.0, 1e-2);
}

// The scaled residual max_i |H_i|/s_i after exactly k Newton iterations from z (the iteration
// limit stops the projection there, or convergence earlier).
double ScaledResidualAfter(ReducedModel& model, project::NewtonVariant variant, int k,
                           std::vector<double> z) {
  project::ProjectorOptions options;
  options.newton = variant;
  options.max_iterations = k;
  auto projector = project::MakeProjector(Method::kCoupled, options);
  projector->Resize(model);
  ProjectionReport report;
  projector->Project(model, 0.0, z, &report);
  EXPECT_EQ(report.iterations, k);
  return report.scaled_residual;
}

TEST(CoupledProjector, SimplifiedNewtonConvergesLinearlyAndFullNewtonQuadratically) {
  auto model = Reduce(kPendulumSpec);
  // 0.14 outside the circle of radius ℓ = 2.5, with a velocity 0.84/12.6 off the tangent.
  const std::vector<double> start = {1.6, -2.1, 2.1, 1.4};
  using project::NewtonVariant;
  // Full Newton: r_{k+1} ≤ C r_k², so its contraction r_{k+1}/r_k = C r_k shrinks with r_k.
  // Simplified Newton (H_z frozen at x̃): e_{k+1} = (I − S₀⁻¹ S(z_k)) e_k, a fixed contraction
  // ρ ≈ C‖x̃ − z*‖ ≈ C r_0 once z_k is near z*. So the simplified rate is constant from
  // iteration to iteration, and each full step after the first contracts by C r_k ≤ ρ r_1/r_0,
  // at least ten times more than ρ, since one step already reduced r_0 ≈ 0.1 by a factor > 10.
  double full[4], frozen[4];
  for (int k = 1; k <= 3; ++k) {
    full[k] = ScaledResidualAfter(*model, NewtonVariant::kFull, k, start);
    frozen[k] = ScaledResidualAfter(*model, NewtonVariant::kSimplified, k, start);
  }
  EXPECT_EQ(full[1], frozen[1]) << "the first iteration is the same Newton step";
  const double rho = frozen[3] / frozen[2];
  EXPECT_NEAR(frozen[2] / frozen[1], rho, 0.1 * rho) << "a constant rate: linear convergence";
  EXPECT_GT(rho, 1e-3) << "not superlinear";
  EXPECT_LT(rho, 0.5);
  EXPECT_LT(full[2] / full[1], rho / 10);
  EXPECT_LT(full[3] / full[2], rho / 10);

  // To the tolerance 1e-12 from r_1: full needs ~log₂ log steps, the simplified one
  // log(1e-12/r_1)/log ρ more, so strictly more iterations in all.
  project::ProjectorOptions simplified;
  simplified.newton = NewtonVariant::kSimplified;
  simplified.max_iterations = 30;
  auto fast = project::MakeProjector(Method::kCoupled, {});
  auto slow = project::MakeProjector(Method::kCoupled, simplified);
  fast->Resize(*model);
  slow->Resize(*model);
  std::vector<double> a = start;
  std::vector<double> b = start;
  ProjectionReport ra, rb;
  ASSERT_TRUE(fast->Project(*model, 0.0, a, &ra)) << ra.message;
  ASSERT_TRUE(slow->Project(*model, 0.0, b, &rb)) << rb.message;
  EXPECT_GT(rb.iterations, ra.iterations);
  EXPECT_LE(rb.residual_position, 1e-12 * kLength * kLength);
}

// A state within the tolerance but not at round-off (the end of an accurate step) gets one
// polishing correction: Newton's quadratic convergence takes a scaled residual of 4e-13 to
// round-off (64 ε), which the run's error would otherwise accumulate step after step. Without
// the option the state is left where the tolerance accepted it.
TEST(NewtonProjection, APolishingCorrectionTakesAMetToleranceToRoundOff) {
  auto model = Reduce(kPendulumSpec);
  // On the circle (1.5² + 2² = ℓ²) scaled by 1 + 2e-13: Φ ≈ 2.5e-12, scaled by ℓ² 4e-13.
  const double f = 1 + 2e-13;
  const std::vector<double> start = {1.5 * f, -2.0 * f, 2.0, 1.5};
  for (const Method method : {Method::kCoupled, Method::kSequential}) {
    for (const bool polish : {true, false}) {
      project::ProjectorOptions options;
      options.polish = polish;
      auto projector = project::MakeProjector(method, options);
      projector->Resize(*model);
      std::vector<double> z = start;
      ProjectionReport report;
      ASSERT_TRUE(projector->Project(*model, 0.0, z, &report)) << report.message;
      const std::string what = std::string(project::ProjectionName(method)) +
                               (polish ? ", polished" : ", not polished");
      if (polish) {
        EXPECT_LE(report.residual_position, 64 * 2.2e-16 * kLength * kLength) << what;
        EXPECT_GE(report.iterations, 1) << what;
      } else {
        EXPECT_EQ(z, start) << what;
        EXPECT_EQ(report.iterations, 0) << what;
        EXPECT_GT(report.residual_position, 1e-12) << what;
      }
    }
  }
}

TEST(CoupledProjector, IterationLimitGivesADiagnosis) {
  auto model = Reduce(kPendulumSpec);
  project::ProjectorOptions one;
  one.max_iterations = 1;
  auto projector = project::MakeProjector(Method::kCoupled, one);
  projector->Resize(*model);
  std::vector<double> z = {2.0, -2.0, 0.0, 0.0};
  ProjectionReport report;
  EXPECT_FALSE(projector->Project(*model, 1.25, z, &report));
  EXPECT_EQ(report.status, ProjectionStatus::kNotConverged);
  EXPECT_NE(report.message.find("projection did not converge at t = 1.25 after 1 iterations"),
            std::string::npos) << report.message;
}

TEST(ProjectorOptions, DefaultsAreValidAndBadValuesNamed) {
  std::string why;
  EXPECT_TRUE(project::ProjectorOptions{}.IsValid(&why)) << why;
  project::ProjectorOptions bad;
  bad.tolerance = -1;
  EXPECT_FALSE(bad.IsValid(&why));
  EXPECT_EQ(why, "ProjectorOptions::tolerance = -1; must be > 0");
  EXPECT_EQ(project::MakeProjector(Method::kCoupled, bad), nullptr);
}

}  // namespace
}  // namespace tether::testing
