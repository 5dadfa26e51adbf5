// ReducedModel: the symbolically derived reduced ODE satisfies the equations it came from.
#include "tether/reduce/reduced_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/reduce/networks.h"
#include "core/reduce/point_masses.h"
#include "core/simulate/pendulum_spec.h"
#include "tether/reduce/rank.h"

namespace tether::testing {
namespace {

using reduce::AlgebraicMode;
using reduce::ReducedModel;

std::unique_ptr<ReducedModel> Reduce(const std::string& json,
                                     AlgebraicMode mode = AlgebraicMode::kSolve,
                                     bool jacobian = false) {
  reduce::ReduceOptions options;
  options.algebraic = mode;
  options.jacobian = jacobian;
  reduce::ReduceResult r = ReducedModel::Build(ParseOrDie(json), options);
  EXPECT_TRUE(r.error.empty()) << r.error;
  return std::move(r.reduced);
}

// A driven, configuration-dependent full-mass system: M(q) not diagonal, Φ depends on t.
constexpr const char* kDriven = R"json({
  "name": "driven", "form": "mechanical",
  "coordinates": ["x", "y"], "velocities": ["vx", "vy"],
  "mass": [["1 + y^2", "0.5*x*y"], ["0.5*x*y", "2 + x^2"]],
  "forces": ["-x", "-9.81 - vy"],
  "constraints": ["x^2 + 2*y^2 - 1 - 0.5*sin(t)"]
})json";

// Central difference of the invariants along (ż, 1): dH/dt along the reduced flow + O(ε²).
std::vector<double> InvariantRate(ReducedModel& m, double t, const std::vector<double>& z,
                                  const std::vector<double>& zdot, double eps) {
  const std::size_t p = m.num_invariants();
  std::vector<double> hp(p), hm(p), jac(p * z.size()), zp(z), zm(z), rate(p);
  for (std::size_t j = 0; j < z.size(); ++j) {
    zp[j] += eps * zdot[j];
    zm[j] -= eps * zdot[j];
  }
  EXPECT_TRUE(m.Invariants(t + eps, zp, hp, jac));
  EXPECT_TRUE(m.Invariants(t - eps, zm, hm, jac));
  for (std::size_t i = 0; i < p; ++i) rate[i] = (hp[i] - hm[i]) / (2 * eps);
  return rate;
}

TEST(ReducedModel, PendulumMultiplierIsEquation11_4) {
  auto m = Reduce(kPendulumSpec);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->ode_size(), 4u);
  EXPECT_EQ(m->num_invariants(), 2u);
  // Any state, on the manifold or not: λ = −m/(2 qᵀq)(vᵀv − g y) (chapter 11, eq. 11.4).
  const std::vector<double> z = {1.1, -2.2, 0.7, 0.3};
  std::vector<double> zdot(4);
  ASSERT_TRUE(m->Rhs(0.0, z, zdot));
  const double qq = z[0] * z[0] + z[1] * z[1];
  const double lambda = -kMass / (2 * qq) * (z[2] * z[2] + z[3] * z[3] - kGravity * z[1]);
  // Both sides compute λ from the same few products and sums without cancellation (vᵀv ≥ 0
  // and −g·y > 0 here, qᵀq > 0): the model through f, Φ_q, M and the 1×1 Schur complement
  // Φ_q M⁻¹ Φ_qᵀ, about 20 roundings, the formula above about 10. Each rounding contributes
  // at most u = 2⁻⁵³ relative, so they differ by at most 30u relative; 32u is the bound.
  constexpr double u = 0x1p-53;
  EXPECT_NEAR(m->auxiliary()[0], lambda, 32 * u * std::abs(lambda));
  // m v' = −m g e₂ + 2 q λ: three more roundings on λ's error, relative to the size of the
  // terms (v̇_y = −g + 2yλ/m cancels: −9.81 + 8.05), so 32u·(|g| + |2 q_i λ / m|) with room.
  const double ax = 2 * z[0] * lambda / kMass;
  const double ay = 2 * z[1] * lambda / kMass;
  EXPECT_NEAR(zdot[2], ax, 32 * u * std::abs(ax));
  EXPECT_NEAR(zdot[3], -kGravity + ay, 32 * u * (kGravity + std::abs(ay)));
}

// The invariants program runs once for equal inputs (a sample's residuals right after the
// projection that ended at its state) and again whenever an input changes: the state, the
// parameters. Values exact in binary: 1.5² + 2² − 2.5² = 0, 2(1.5·2 + 2·(−1.5)) = 0.
TEST(ReducedModel, ResidualsFollowEveryChangedInput) {
  auto m = Reduce(kPendulumSpec);
  ASSERT_TRUE(m);
  std::vector<double> z = {1.5, 2.0, 2.0, -1.5};
  std::vector<double> h(m->num_invariants());
  std::vector<double> h_z(m->invariant_jacobian_pattern().col.size());
  double position = -1.0;
  double velocity = -1.0;
  ASSERT_TRUE(m->InvariantValues(0.0, z, h, h_z));
  ASSERT_TRUE(m->Residuals(0.0, z, &position, &velocity));
  EXPECT_EQ(position, 0.0);
  EXPECT_EQ(velocity, 0.0);
  const std::vector<double> longer = {kMass, 3.0, kGravity};  // m, l, g
  m->SetParameters(longer);
  ASSERT_TRUE(m->Residuals(0.0, z, &position, &velocity));
  EXPECT_EQ(position, 9.0 - 6.25);  // |x² + y² − l²|
  EXPECT_EQ(velocity, 0.0);
  z[2] = 2.5;
  ASSERT_TRUE(m->Residuals(0.0, z, &position, &velocity));
  EXPECT_EQ(velocity, 1.5);  // |2(x vx + y vy)|
  ASSERT_TRUE(m->InvariantValues(0.0, z, h, h_z));
  EXPECT_EQ(h[0], 6.25 - 9.0);
  EXPECT_EQ(h[1], 1.5);
}

TEST(ReducedModel, DrivenSystemSatisfiesItsEquationsAndHiddenConstraints) {
  auto m = Reduce(kDriven);
  ASSERT_TRUE(m);
  const double t = 0.4;
  const std::vector<double> z = {0.6, 0.5, 0.2, -0.3};
  std::vector<double> zdot(4), h(2), hz(8), mass(4);
  ASSERT_TRUE(m->Rhs(t, z, zdot));
  ASSERT_TRUE(m->Invariants(t, z, h, hz));
  ASSERT_TRUE(m->Mass(t, z, mass));
  const double lambda = m->auxiliary()[0];
  // M v' − Φ_qᵀ λ = f, with f = (−x, −9.81 − vy); a 2×2 well-conditioned solve: 1e-12.
  const double f[2] = {-z[0], -9.81 - z[3]};
  for (std::size_t i = 0; i < 2; ++i) {
    const double lhs = mass[2 * i] * zdot[2] + mass[2 * i + 1] * zdot[3] - hz[i] * lambda;
    EXPECT_NEAR(lhs, f[i], 1e-12);
  }
  // Φ_q = (2x, 4y) and h = Φ_q v + Φ_t with Φ_t = −0.5 cos t.
  EXPECT_NEAR(hz[0], 2 * z[0], 1e-15);
  EXPECT_NEAR(hz[1], 4 * z[1], 1e-15);
  EXPECT_NEAR(h[1], 2 * z[0] * z[2] + 4 * z[1] * z[3] - 0.5 * std::cos(t), 1e-15);
  // Along the flow dΦ/dt = h and dh/dt = 0 (that is what a was derived for). The central
  // difference has error O(ε²) ≈ 1e-8 for ε = 1e-4 plus rounding 1e-16/ε ≈ 1e-12.
  const std::vector<double> rate = InvariantRate(*m, t, z, zdot, 1e-4);
  EXPECT_NEAR(rate[0], h[1], 1e-6);
  EXPECT_NEAR(rate[1], 0.0, 1e-6);
}

TEST(ReducedModel, BaumgarteAddsTheStabilizationTerm) {
  auto m = Reduce(kDriven);
  ASSERT_TRUE(m);
  const double t = 0.1;
  const std::vector<double> z = {0.9, 0.1, 0.2, -0.3};  // off the manifold: Φ, h ≠ 0
  std::vector<double> zdot(4), h(2), hz(8);
  m->SetBaumgarte(2.0, 3.0);
  ASSERT_TRUE(m->Rhs(t, z, zdot));
  ASSERT_TRUE(m->Invariants(t, z, h, hz));
  // dh/dt = −2α h − β² Φ along the stabilized flow.
  const std::vector<double> rate = InvariantRate(*m, t, z, zdot, 1e-4);
  EXPECT_NEAR(rate[1], -2 * 2.0 * h[1] - 9.0 * h[0], 1e-6);
}

constexpr const char* kSpiral = R"json({
  "name": "spiral", "form": "index2", "differential": ["x1", "x2"], "algebraic": ["y"],
  "rhs": ["x2 + y*x1", "-x1 + y*x2"], "constraints": ["x1^2 + x2^2 - exp(-t^2)"],
  "initial": {"x1": 0, "x2": 1, "y": 0}
})json";

TEST(ReducedModel, Index2OdeModeKeepsTheHiddenConstraint) {
  auto m = Reduce(kSpiral, AlgebraicMode::kOde);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->ode_size(), 3u);
  EXPECT_EQ(m->position_size(), 2u);
  ASSERT_EQ(m->num_invariants(), 2u);
  const double t = 0.7;
  const std::vector<double> z = {0.3, 0.5, -0.4};
  std::vector<double> zdot(3), h(2), hz(6);
  ASSERT_TRUE(m->Rhs(t, z, zdot));
  ASSERT_TRUE(m->Invariants(t, z, h, hz));
  const std::vector<double> rate = InvariantRate(*m, t, z, zdot, 1e-4);
  EXPECT_NEAR(rate[0], h[1], 1e-6);  // dg/dt = h
  EXPECT_NEAR(rate[1], 0.0, 1e-6);   // dh/dt = 0 (y' chosen for it)
}

TEST(ReducedModel, Index2SolveModeFindsYFromTheHiddenConstraint) {
  auto m = Reduce(kSpiral);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->ode_size(), 2u);
  // On the analytic solution at t the hidden constraint gives y = −t.
  const double t = 0.8;
  const double r = std::exp(-t * t / 2);
  const std::vector<double> z = {r * std::sin(t), r * std::cos(t)};
  std::vector<double> zdot(2);
  ASSERT_TRUE(m->Rhs(t, z, zdot));
  // h = 2y(x1² + x2²) + 2t e^{−t²} is linear in y: Newton is exact after one step.
  EXPECT_NEAR(m->auxiliary()[0], -t, 1e-14);
}

TEST(ReducedModel, SingularAlgebraicJacobianIsNamed) {
  auto m = Reduce(R"json({"name": "fold", "form": "index1", "differential": ["x"],
      "algebraic": ["y"], "rhs": ["1"], "constraints": [{"name": "fold", "expr": "y^2 - x"}]})json");
  ASSERT_TRUE(m);
  std::vector<double> x = {1.0}, y = {0.0};  // g_y = 2y = 0 at the start
  EXPECT_FALSE(m->SolveAlgebraic(0.0, x, y, nullptr));
  EXPECT_EQ(m->failure().status, reduce::EvalStatus::kSingular);
  EXPECT_NE(m->failure().message.find("g_y is rank-deficient at t = 0: constraints 'fold'"),
            std::string::npos) << m->failure().message;
}

TEST(ReducedModel, DependentConstraintsAreNamedNotDividedThrough) {
  auto m = Reduce(R"json({"name": "twice", "form": "mechanical",
      "coordinates": ["x", "y"], "velocities": ["vx", "vy"], "mass": [["1", "0"], ["0", "1"]],
      "forces": ["0", "-1"], "constraints": ["x^2 + y^2 - 1", "3*x^2 + 3*y^2 - 3"]})json");
  ASSERT_TRUE(m);
  std::vector<double> z = {0.6, 0.8, 0.0, 0.0}, zdot(4);
  EXPECT_FALSE(m->Rhs(0.0, z, zdot));
  EXPECT_EQ(m->failure().status, reduce::EvalStatus::kSingular);
  EXPECT_NE(m->failure().message.find("'constraints[0]', 'constraints[1]' are dependent"),
            std::string::npos) << m->failure().message;
}

// ∂F/∂z against central differences of Rhs, entry by entry, and zero outside the pattern.
// Central differences with δ = 1e-5·max(1, |z_j|) err by δ²|F'''|/6 ≈ 1e-11 plus rounding
// ε|F|/δ ≈ 1e-11 for these O(1) models; in kSolve mode y comes from a Newton solve stopped at a
// scaled residual ≤ 1e-12, so F moves by up to ~1e-12 between the two evaluations and the
// difference quotient by 1e-12/δ = 1e-7. Hence 1e-6 relative to max(1, |J_ij|).
void ExpectJacobianMatchesDifferences(ReducedModel& m, double t, const std::vector<double>& z) {
  const std::size_t n = z.size();
  const auto pattern = m.jacobian_pattern();
  std::vector<double> values(pattern.size());
  ASSERT_TRUE(m.Jacobian(t, z, values)) << m.failure().message;
  std::vector<double> dense(n * n, 0.0);
  for (std::size_t k = 0; k < pattern.size(); ++k) {
    dense[pattern[k].row * n + pattern[k].col] = values[k];
  }
  std::vector<double> zp(z), zm(z), fp(n), fm(n);
  for (std::size_t j = 0; j < n; ++j) {
    const double delta = 1e-5 * std::max(1.0, std::abs(z[j]));
    zp = z;
    zm = z;
    zp[j] += delta;
    zm[j] -= delta;
    ASSERT_TRUE(m.Rhs(t, zp, fp));
    ASSERT_TRUE(m.Rhs(t, zm, fm));
    for (std::size_t i = 0; i < n; ++i) {
      const double difference = (fp[i] - fm[i]) / (2 * delta);
      EXPECT_NEAR(dense[i * n + j], difference, 1e-6 * std::max(1.0, std::abs(difference)))
          << "entry (" << i << ", " << j << ")";
    }
  }
}

TEST(ReducedJacobian, MechanicalThroughTheKktSystem) {
  auto m = Reduce(kDriven, AlgebraicMode::kSolve, true);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->jacobian_pattern().size(), 10u);  // rows q' = v: 2 entries; rows v': 2 × 4
  ExpectJacobianMatchesDifferences(*m, 0.4, {0.6, 0.5, 0.2, -0.3});
  m->SetBaumgarte(2.0, 3.0);
  ExpectJacobianMatchesDifferences(*m, 0.1, {0.9, 0.1, 0.2, -0.3});
}

TEST(ReducedJacobian, PendulumOffTheManifold) {
  auto m = Reduce(kPendulumSpec, AlgebraicMode::kSolve, true);
  ASSERT_TRUE(m);
  ExpectJacobianMatchesDifferences(*m, 0.0, {1.1, -2.2, 0.7, 0.3});
}

TEST(ReducedJacobian, Index2InBothAlgebraicModes) {
  for (AlgebraicMode mode : {AlgebraicMode::kSolve, AlgebraicMode::kOde}) {
    auto m = Reduce(kSpiral, mode, true);
    ASSERT_TRUE(m);
    std::vector<double> z = {0.3, 0.5};
    if (mode == AlgebraicMode::kOde) z.push_back(-0.4);
    ExpectJacobianMatchesDifferences(*m, 0.7, z);
  }
}

TEST(ReducedJacobian, Index1InBothAlgebraicModesAndAPureOdeIsSparse) {
  constexpr const char* kIndex1 = R"json({"name": "i1", "form": "index1",
      "differential": ["x", "z"], "algebraic": ["y"], "rhs": ["1 - y", "x*(1 - y)"],
      "constraints": ["y + y^3 - x^2 - x^6"]})json";
  for (AlgebraicMode mode : {AlgebraicMode::kSolve, AlgebraicMode::kOde}) {
    auto m = Reduce(kIndex1, mode, true);
    ASSERT_TRUE(m);
    std::vector<double> z = {0.5, 0.1};
    if (mode == AlgebraicMode::kOde) z.push_back(0.3);
    ExpectJacobianMatchesDifferences(*m, 0.0, z);
  }
  // Robertson's kinetics as an ODE: no stage unknowns, so the pattern lists exactly the
  // symbolically non-zero entries of ∂f/∂y.
  auto ode = Reduce(R"json({"name": "rober", "form": "index1",
      "differential": ["y1", "y2", "y3"], "algebraic": [],
      "rhs": ["-0.04*y1 + 1e4*y2*y3", "0.04*y1 - 1e4*y2*y3 - 3e7*y2^2", "3e7*y2^2"],
      "constraints": []})json", AlgebraicMode::kSolve, true);
  ASSERT_TRUE(ode);
  EXPECT_EQ(ode->jacobian_pattern().size(), 7u);  // row 3 has ∂/∂y2 only
  ExpectJacobianMatchesDifferences(*ode, 0.0, {1.0, 3e-5, 0.1});
}

TEST(ReducedJacobian, ImplicitFormThroughItsStageEquations) {
  auto m = Reduce(R"json({"name": "pendulum_implicit", "form": "implicit",
      "parameters": {"m": 1.0, "l": 1.0, "g": 9.81}, "variables": ["x", "y", "u", "v", "lam"],
      "equations": ["der(x) = u", "der(y) = v", "m*der(u) = 2*x*lam",
                    "m*der(v) = -m*g + 2*y*lam", "x^2 + y^2 = l^2"]})json",
                  AlgebraicMode::kSolve, true);
  ASSERT_TRUE(m);
  ASSERT_FALSE(m->jacobian_pattern().empty());
  std::vector<double> z(m->ode_size(), 0.0);
  for (std::size_t i = 0; i < z.size(); ++i) z[i] = 0.3 + 0.1 * static_cast<double>(i);
  ExpectJacobianMatchesDifferences(*m, 0.0, z);
}

// In kStage, z = (x, y): an algebraic y_j that some x_k' equals (the implicit form's der(x_k))
// is marked as x_k's derivative; every other component, and every component in kSolve, is not.
TEST(ReducedModel, StageModeMarksTheDerivativesAmongItsUnknowns) {
  const std::string spec = R"json({"name": "pendulum_implicit", "form": "implicit",
      "parameters": {"m": 1.0, "l": 1.0, "g": 9.81}, "variables": ["x", "y", "u", "v", "lam"],
      "equations": ["der(x) = u", "der(y) = v", "m*der(u) = 2*x*lam",
                    "m*der(v) = -m*g + 2*y*lam", "x^2 + y^2 = l^2"]})json";
  auto stage = Reduce(spec, AlgebraicMode::kStage);
  ASSERT_TRUE(stage);
  const std::vector<const model::Variable*> states = stage->model().states();
  const std::span<const std::uint32_t> of = stage->stage_derivative_of();
  ASSERT_EQ(of.size(), stage->ode_size());
  ASSERT_EQ(states.size(), of.size());
  std::size_t derivatives = 0;
  for (std::size_t i = 0; i < of.size(); ++i) {
    SCOPED_TRACE(states[i]->name);
    if (of[i] == i) continue;
    ++derivatives;
    EXPECT_GE(i, stage->stage_differential_size());  // only an algebraic unknown
    EXPECT_EQ(states[i]->name, "der(" + states[of[i]]->name + ")");
  }
  // der(x), der(y) are substituted by u, v; der(u), der(v) are unknowns; lam is no derivative.
  EXPECT_EQ(derivatives, 2u);

  auto robertson = Reduce(R"json({"name": "robertson", "form": "index1",
      "differential": ["y1", "y2"], "algebraic": ["y3"],
      "rhs": ["-0.04*y1 + 1e4*y2*y3", "0.04*y1 - 1e4*y2*y3 - 3e7*y2^2"],
      "constraints": ["y1 + y2 + y3 - 1"]})json", AlgebraicMode::kStage);
  ASSERT_TRUE(robertson);
  const std::span<const std::uint32_t> none = robertson->stage_derivative_of();
  for (std::size_t i = 0; i < none.size(); ++i) EXPECT_EQ(none[i], i);
  EXPECT_TRUE(Reduce(spec, AlgebraicMode::kSolve)->stage_derivative_of().empty());
}

// The Jacobian's G_w by KLU (LinearAlgebra::kSparse, and kAuto from SparseAlgebraic's
// crossover) against Eigen's dense LU (kDense), on banded index-1 and index-2 networks of 12
// (c_y as G_w, κ∞ < 10: networks.h) and a tree of 6 point masses (G_w the KKT matrix of M and
// Φ_q). The two paths factor the same G_w with other pivots; in kSolve each also solves y by
// its own Newton, stopped at a scaled residual ≤ 1e-12, which leaves y within κ·4e-12 of the
// root and ∂F/∂z within O(1) times that (F's second derivatives are O(1) here): 1e-9 relative
// to max(1, |∂F/∂z_ij|) bounds both with room.
TEST(ReducedJacobian, SparseStageUnknownsEqualTheDensePathToRounding) {
  std::vector<int> parent = {-1, 0, 1, 1, 3, 0};
  const std::vector<std::string> specs = {
      NetworkSpec("index1", 12, 1, 3), NetworkSpec("index2", 12, 0, 4),
      MassesSpec(parent, {1.0, 0.7, 1.3, 0.9, 1.1, 0.6}, {})};
  for (const std::string& spec : specs) {
    SCOPED_TRACE(spec.substr(0, 60));
    reduce::ReduceOptions options;
    options.jacobian = true;
    options.linear_algebra = reduce::LinearAlgebra::kDense;
    auto dense = ReducedModel::Build(ParseOrDie(spec), options).reduced;
    options.linear_algebra = reduce::LinearAlgebra::kSparse;
    auto sparse = ReducedModel::Build(ParseOrDie(spec), options).reduced;
    options.linear_algebra = reduce::LinearAlgebra::kAuto;
    auto automatic = ReducedModel::Build(ParseOrDie(spec), options).reduced;
    ASSERT_TRUE(dense && sparse && automatic);
    EXPECT_FALSE(dense->sparse_jacobian());
    EXPECT_TRUE(sparse->sparse_jacobian());
    EXPECT_TRUE(automatic->sparse_jacobian());  // |w| ≥ 12, G_w at most 30 % full
    std::vector<double> z(dense->ode_size());
    for (std::size_t j = 0; j < z.size(); ++j) {
      z[j] = 0.4 + 0.05 * static_cast<double>(j % 7) - (j % 2 == 0 ? 0.0 : 0.9);
    }
    ASSERT_EQ(dense->jacobian_pattern().size(), sparse->jacobian_pattern().size());
    std::vector<double> dense_values(dense->jacobian_pattern().size());
    std::vector<double> sparse_values(sparse->jacobian_pattern().size());
    ASSERT_TRUE(dense->Jacobian(0.3, z, dense_values)) << dense->failure().message;
    ASSERT_TRUE(sparse->Jacobian(0.3, z, sparse_values)) << sparse->failure().message;
    for (std::size_t k = 0; k < dense_values.size(); ++k) {
      EXPECT_NEAR(sparse_values[k], dense_values[k],
                  1e-9 * std::max(1.0, std::abs(dense_values[k])))
          << "entry (" << dense->jacobian_pattern()[k].row << ", "
          << dense->jacobian_pattern()[k].col << ")";
    }
    ExpectJacobianMatchesDifferences(*sparse, 0.3, z);
  }
}

TEST(ReducedJacobian, AbsentUnlessRequested) {
  auto m = Reduce(kPendulumSpec);
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->jacobian_pattern().empty());
  std::vector<double> values(16);
  EXPECT_FALSE(m->Jacobian(0.0, std::vector<double>{1.0, 0.0, 0.0, 0.0}, values));
}

TEST(ReduceOptions, DefaultsAreValidAndBadValuesNamed) {
  std::string why;
  EXPECT_TRUE(reduce::ReduceOptions{}.IsValid(&why)) << why;
  reduce::ReduceOptions bad;
  bad.max_newton_iterations = 0;
  EXPECT_FALSE(bad.IsValid(&why));
  EXPECT_EQ(why, "ReduceOptions::max_newton_iterations = 0; must be >= 1");
}

TEST(Rank, ThresholdIsAThousandRoundingsPerInnerProductTerm) {
  EXPECT_DOUBLE_EQ(reduce::RelativePivotThreshold(4), 4000 * 2.220446049250313e-16);
  Eigen::MatrixXd a(2, 3);
  a << 1, 2, 3, 2, 4, 6;  // second row = 2 × first
  EXPECT_EQ(reduce::DependentRows(a), (std::vector<std::size_t>{0, 1}));
}

}  // namespace
}  // namespace tether::testing
