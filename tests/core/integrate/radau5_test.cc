// radau5 beyond the shared contract: convergence orders on a stiff problem, Robertson's
// kinetics in ODE and DAE form, van der Pol at μ = 1e6, mass-matrix DAEs, dense against sparse
// linear algebra, Jacobians by differences against symbolic ones, and failed stages.
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/integrate/stiff_problems.h"
#include "tether/integrate/stepper.h"

namespace tether::integrate {
namespace {

using testing::CoupledMassDae;
using testing::Kaps;
using testing::Robertson;
using testing::RobertsonDae;
using testing::StiffChain;
using testing::VanDerPol;
using testing::VanDerPolMass;
using testing::WithoutJacobian;

constexpr double kEps = std::numeric_limits<double>::epsilon();

// The statistics of a run, summed over its steps.
struct RunStatistics {
  bool reached_end = false;
  int steps = 0;
  int rejections = 0;
  int evaluations = 0;
  int jacobians = 0;
  int factorizations = 0;
  int newton_iterations = 0;
};

// Integrates from (t0, x) to t_end in place with the stepper's own step sizes (or, for
// error_control = false, n steps of (t_end − t0)/n), calling after(t, x) after each step.
RunStatistics Integrate(Stepper& stepper, OdeSystem& system, double t0, std::span<double> x,
              double t_end, int n = 0,
              const std::function<void(double, std::span<const double>)>& after = {}) {
  stepper.Resize(x.size());
  const bool fixed = !stepper.options().error_control;
  RunStatistics run;
  double t = t0;
  while (fixed ? run.steps < n : t < t_end) {
    const double h = fixed ? (t_end - t0) / n : t_end - t;
    const StepResult r = stepper.Step(system, t, x, h, x);
    run.rejections += r.rejections;
    run.evaluations += r.evaluations;
    run.jacobians += r.jacobians;
    run.factorizations += r.factorizations;
    run.newton_iterations += r.newton_iterations;
    if (r.status != StepStatus::kAccepted) return run;
    ++run.steps;
    t = fixed ? t0 + run.steps * h : (r.h_taken == t_end - t ? t_end : t + r.h_taken);
    if (after) after(t, x);
  }
  run.reached_end = true;
  return run;
}

std::unique_ptr<Stepper> MakeRadau5(const StepperOptions& options) {
  std::unique_ptr<Stepper> stepper = MakeStepper("radau5", options);
  EXPECT_NE(stepper, nullptr);
  return stepper;
}

// Fixed steps (error_control = false) with the Newton iteration converged far below the
// truncation errors measured (see the contract suite's MakeFixed).
StepperOptions FixedStepOptions() {
  StepperOptions options;
  options.error_control = false;
  options.rtol = 1e-13;
  options.atol = 1e-13;
  options.newton_max_iterations = 50;
  return options;
}

// Kaps' problem with ε = 1e-6 over [0, 1] in n fixed steps: the error at t = 1, and the
// largest error of the dense output over θ = 0.1 … 0.9 of the last step.
struct KapsErrors {
  double end = 0.0;
  double dense = 0.0;
};

KapsErrors KapsErrorsWithSteps(int n) {
  Kaps system(1e-6);
  const std::unique_ptr<Stepper> stepper = MakeRadau5(FixedStepOptions());
  std::array<double, 2> x = {1.0, 1.0};
  EXPECT_TRUE(Integrate(*stepper, system, 0.0, x, 1.0, n).reached_end);
  const auto error = [](std::span<const double> y, double t) {
    const std::array<double, 2> exact = Kaps::Exact(t);
    return std::max(std::abs(y[0] - exact[0]), std::abs(y[1] - exact[1]));
  };
  KapsErrors errors;
  errors.end = error(x, 1.0);
  const double h = 1.0 / n;
  for (int k = 1; k <= 9; ++k) {
    const double t = 1.0 - h + 0.1 * k * h;
    std::array<double, 2> out{};
    stepper->Interpolate(t, out);
    errors.dense = std::max(errors.dense, error(out, t));
  }
  return errors;
}

// Kaps with n = 4, 8, 16: hλ ≥ 6e4, deep in the stiff regime, with a smooth solution on the
// slow manifold.
// Step points: Radau IIA is stiffly accurate, and on such singular perturbation problems its
// global error is O(h⁵) + O(ε h⁴) (HW II, VI.3, Table 3.1: no order reduction for y and z),
// so halving h divides the error at t = 1 by 2⁵ = 32: log2 of the ratio within 0.3 of 5.
// Measured 3.6e-8, 1.2e-9, 4.2e-11: far above the Newton error (≈ 1e-15, FixedStepOptions)
// and rounding, and ε h⁴ ≤ 4e-9 · ε.
// Dense output: the collocation polynomial, of order 3 (radau5.h): its error inside a step is
// C(θ) h⁴ (the collocation polynomial of s = 3 stages approximates to O(h^(s+1)), HW II, IV.8),
// which dominates the O(h⁵) error of the step's ends. So its largest error falls by 2⁴ = 16
// per halving (not 2³: an interpolant's order counts like a method's, error h^(order+1) per
// step): log2 within 0.3 of 4. Measured 6.4e-6, 3.6e-7, 2.1e-8.
TEST(Radau5, ConvergesAtOrderFiveWithDenseOutputOfOrderThreeOnAStiffProblem) {
  KapsErrors previous;
  for (int n : {4, 8, 16}) {
    const KapsErrors errors = KapsErrorsWithSteps(n);
    ASSERT_GT(errors.end, 1e-12) << "n = " << n << ": too close to the Newton error";
    if (n > 4) {
      EXPECT_NEAR(std::log2(previous.end / errors.end), 5.0, 0.3) << "n = " << n;
      EXPECT_NEAR(std::log2(previous.dense / errors.dense), 4.0, 0.3) << "n = " << n;
    }
    previous = errors;
  }
}

// Robertson to t = 4e10 with relative control of every component (y2 falls to 2e-13, so its
// atol is 1e-14·rtol), against the reference of stiff_problems.h (scipy's Radau at rtol 1e-13,
// an independent implementation). radau5 keeps its order-3 error estimate below rtol
// (radau5.h), which on damped problems like this one leaves a global error below rtol, so the
// run at rtol = 1e-7 must meet y2 within 1e-6 relative with a margin of 10.
StepperOptions RobertsonOptions() {
  StepperOptions options;
  options.rtol = 1e-7;
  options.atol_per_component = {1e-15, 1e-21, 1e-15};
  options.step = 1e-6;
  return options;
}

// The ODE form keeps y1 + y2 + y3 = 1 as every Runge–Kutta method keeps linear invariants, up
// to rounding: ≤ 10 ε per step (the sums of the stage updates), a bound that grows with the
// step count. The DAE form solves 0 = y1 + y2 + y3 − 1 at every step, and since that row of J
// is exact the Newton iteration leaves only rounding, ≤ 10 ε, not accumulating.
template <typename System>
void ReachesFourE10InFewerThan2000StepsAccurately(bool accumulates) {
  System system;
  std::array<double, 3> y = Robertson::kInitial;
  int steps = 0;
  double worst = 0.0;  // the largest drift relative to its bound
  const RunStatistics run = Integrate(*MakeRadau5(RobertsonOptions()), system, 0.0, y,
                                      Robertson::kEnd, 0, [&](double, std::span<const double> v) {
                                        ++steps;
                                        const double drift = std::abs(v[0] + v[1] + v[2] - 1.0);
                                        const double bound = 10.0 * kEps * (accumulates ? steps : 1);
                                        worst = std::max(worst, drift / bound);
                                      });
  ASSERT_TRUE(run.reached_end);
  EXPECT_LT(run.steps, 2000);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(y[i], Robertson::kReference[i], 1e-6 * Robertson::kReference[i]) << "y" << i + 1;
  }
  EXPECT_LE(worst, 1.0) << "y1 + y2 + y3 − 1 exceeded its bound";
  // Jacobians are kept while Newton converges fast (θ ≤ 0.001): fewer than one per attempt.
  EXPECT_GT(run.jacobians, 0);
  EXPECT_LT(run.jacobians, run.steps + run.rejections);
}

TEST(Radau5, RobertsonOdeReachesFourE10InFewerThan2000StepsAccurately) {
  ReachesFourE10InFewerThan2000StepsAccurately<Robertson>(/*accumulates=*/true);
}

TEST(Radau5, RobertsonDaeReachesFourE10InFewerThan2000StepsAccurately) {
  ReachesFourE10InFewerThan2000StepsAccurately<RobertsonDae>(/*accumulates=*/false);
}

// The Jacobian by forward differences gives the same solution to within the tolerance, at
// n = 3 more evaluations per Jacobian.
TEST(Radau5, JacobianByDifferencesMatchesTheSymbolicOne) {
  RobertsonDae symbolic;
  WithoutJacobian<RobertsonDae> differenced;
  std::array<double, 3> a = Robertson::kInitial;
  std::array<double, 3> b = Robertson::kInitial;
  const RunStatistics with_jacobian =
      Integrate(*MakeRadau5(RobertsonOptions()), symbolic, 0.0, a, Robertson::kEnd);
  const RunStatistics with_differences =
      Integrate(*MakeRadau5(RobertsonOptions()), differenced, 0.0, b, Robertson::kEnd);
  ASSERT_TRUE(with_jacobian.reached_end && with_differences.reached_end);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(a[i], b[i], 1e-6 * std::abs(a[i])) << i;
  EXPECT_GE(with_differences.evaluations,
            with_jacobian.evaluations + 2 * with_differences.jacobians);
}

// Van der Pol with μ = 1e6 (ε = 1e-6) from (2, 0) over two periods (T = 3 − 2 ln 2 + O(ε^(2/3))
// ≈ 1.614 in the scaled time) to t = 3.5: four fast transitions, each crossing y1 = 0, in the
// ODE form and with M = diag(1, ε). Against Hairer's reference solution of VDPOL at t = 1, 2, 3
// (RADAU5's test data, reproduced in github.com/cpmech/hwode tests/data/vdp_exact.txt) and the
// scipy reference at t = 3.5 of stiff_problems.h. At rtol = atol = 1e-6 the global error stays
// within 10·rtol (RADAU5 delivers about rtol here; measured 2e-7).
template <typename System>
void CrossesTwoPeriodsAccurately() {
  constexpr std::array<std::array<double, 2>, 3> kHairer = {{
      {-0.1863646254808130e+01, 0.7535430865435460e+00},   // t = 1
      {0.1706167732170456e+01, -0.8928097010248257e+00},   // t = 2
      {-0.1510606936744095e+01, 0.1178380000730945e+01},   // t = 3
  }};
  System system;
  StepperOptions options;
  options.rtol = 1e-6;
  options.atol = 1e-6;
  options.step = 1e-6;
  const std::unique_ptr<Stepper> stepper = MakeRadau5(options);
  std::array<double, 2> y = VanDerPol::kInitial;
  int crossings = 0;
  int steps = 0;
  double previous = y[0];
  const auto count = [&](double, std::span<const double> v) {
    if ((v[0] > 0.0) != (previous > 0.0)) ++crossings;
    previous = v[0];
    ++steps;
  };
  const auto expect_near = [&](const std::array<double, 2>& reference, double t) {
    for (std::size_t i = 0; i < 2; ++i) {
      EXPECT_NEAR(y[i], reference[i], 1e-5 * std::abs(reference[i])) << "t = " << t << ", y" << i + 1;
    }
  };
  for (std::size_t k = 0; k < kHairer.size(); ++k) {
    const double t = static_cast<double>(k);
    ASSERT_TRUE(Integrate(*stepper, system, t, y, t + 1.0, 0, count).reached_end);
    expect_near(kHairer[k], t + 1.0);
  }
  ASSERT_TRUE(Integrate(*stepper, system, 3.0, y, VanDerPol::kEnd, 0, count).reached_end);
  expect_near(VanDerPol::kReference, VanDerPol::kEnd);
  EXPECT_EQ(crossings, 4);
  EXPECT_LT(steps, 2000);  // measured 939
}

TEST(Radau5, VanDerPolStiffOverTwoPeriods) { CrossesTwoPeriodsAccurately<VanDerPol>(); }

TEST(Radau5, VanDerPolWithMassMatrixOverTwoPeriods) {
  CrossesTwoPeriodsAccurately<VanDerPolMass>();
}

// A singular, non-diagonal M (CoupledMassDae, index 1) over [0, 10] at rtol = atol = 1e-8:
// the exact solution within 100·rtol (the oscillation accumulates the local errors over
// 1.6 periods; measured 1.2e-8), and at every step the algebraic equation y = x1 x2 holds to
// what the Newton tolerance leaves: κ·tol = 6.8e-4 in the weighted norm with weights
// ≈ rtol' = 4.6e-7 (radau5.h), i.e. ≤ 3.2e-10 (measured 2e-16).
TEST(Radau5, SolvesAnIndexOneDaeWithANonDiagonalSingularMassMatrix) {
  CoupledMassDae symbolic_system;
  WithoutJacobian<CoupledMassDae> differenced_system;
  for (const bool symbolic : {true, false}) {
    OdeSystem& system = symbolic ? static_cast<OdeSystem&>(symbolic_system) : differenced_system;
    StepperOptions options;
    options.rtol = 1e-8;
    options.atol = 1e-8;
    std::array<double, 3> x = {1.0, 0.0, 0.0};
    double residual = 0.0;
    double error = 0.0;
    const RunStatistics run =
        Integrate(*MakeRadau5(options), system, 0.0, x, 10.0, 0,
                  [&](double t, std::span<const double> v) {
                    residual = std::max(residual, std::abs(v[2] - v[0] * v[1]));
                    const std::array<double, 3> exact = CoupledMassDae::Exact(t);
                    for (std::size_t i = 0; i < 3; ++i) {
                      error = std::max(error, std::abs(v[i] - exact[i]));
                    }
                  });
    ASSERT_TRUE(run.reached_end);
    EXPECT_LE(error, 1e-6) << (symbolic ? "symbolic" : "differences");
    EXPECT_LE(residual, 3.2e-10) << (symbolic ? "symbolic" : "differences");
  }
}

// The same stiff chain (n = 40, tridiagonal J) with sparse LU (KLU) and with dense LU: the
// same steps, results equal to rounding (relative 1e-12: the factorizations differ in the
// order of their operations only, and the damped problem does not amplify that).
TEST(Radau5, SparseAndDenseLinearAlgebraAgree) {
  std::vector<double> results[2];
  RunStatistics runs[2];
  for (int dense = 0; dense < 2; ++dense) {
    StiffChain system(40);
    StepperOptions options;
    options.rtol = 1e-6;
    options.atol = 1e-8;
    options.sparse_min_size = dense != 0 ? 1000 : 1;
    results[dense].assign(40, 0.0);
    runs[dense] = Integrate(*MakeRadau5(options), system, 0.0, results[dense], 0.5);
    ASSERT_TRUE(runs[dense].reached_end);
  }
  EXPECT_EQ(runs[0].steps, runs[1].steps);
  EXPECT_EQ(runs[0].factorizations, runs[1].factorizations);
  for (std::size_t i = 0; i < results[0].size(); ++i) {
    EXPECT_NEAR(results[0][i], results[1][i], 1e-12 * std::abs(results[1][i])) << i;
  }
}

// A clone taken mid-run continues like the original, also with sparse factors (which a
// clone re-analyses: tether/linalg/klu_factorization.h).
TEST(Radau5, SparseCloneContinuesLikeTheOriginal) {
  StiffChain system(40);
  StepperOptions options;
  options.sparse_min_size = 1;
  const std::unique_ptr<Stepper> original = MakeRadau5(options);
  std::vector<double> x(40, 0.0);
  original->Resize(x.size());
  double t = 0.0;
  for (int k = 0; k < 5; ++k) {
    const StepResult r = original->Step(system, t, x, 1.0, x);
    ASSERT_EQ(r.status, StepStatus::kAccepted);
    t += r.h_taken;
  }
  const std::unique_ptr<Stepper> clone = original->Clone();
  std::vector<double> a = x;
  std::vector<double> b = x;
  const StepResult ra = original->Step(system, t, a, 1.0, a);
  const StepResult rb = clone->Step(system, t, b, 1.0, b);
  ASSERT_EQ(rb.status, StepStatus::kAccepted);
  EXPECT_EQ(ra.h_taken, rb.h_taken);
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-13) << i;
}

// Newton control options act as documented: a larger jacobian_reuse_theta keeps J longer,
// and the hysteresis band keep_step_lower … keep_step_upper saves factorizations.
TEST(Radau5, JacobianReuseAndStepHysteresisSaveWork) {
  const auto run = [](double theta, double upper) {
    VanDerPol system;
    StepperOptions options;
    options.rtol = 1e-6;
    options.atol = 1e-6;
    options.jacobian_reuse_theta = theta;
    options.keep_step_upper = upper;
    std::array<double, 2> y = VanDerPol::kInitial;
    const RunStatistics r = Integrate(*MakeRadau5(options), system, 0.0, y, 2.0);
    EXPECT_TRUE(r.reached_end);
    return r;
  };
  const RunStatistics defaults = run(0.001, 1.2);
  const RunStatistics lenient = run(0.3, 1.2);
  const RunStatistics no_band = run(0.001, 1.0);
  EXPECT_LT(lenient.jacobians, defaults.jacobians);
  EXPECT_LT(defaults.factorizations, no_band.factorizations);
  EXPECT_LT(defaults.factorizations, defaults.steps + defaults.rejections);
}

// A first step far too large for the Newton iteration: the attempt fails (too slow or
// diverging), is retried with a smaller h, and the step is accepted, naming the cause.
TEST(Radau5, RecoversFromAFailingNewtonIteration) {
  VanDerPol system;
  StepperOptions options;
  options.rtol = 1e-5;
  options.atol = 1e-5;
  options.step = 0.5;
  const std::unique_ptr<Stepper> stepper = MakeRadau5(options);
  stepper->Resize(2);
  std::array<double, 2> y = VanDerPol::kInitial;
  const StepResult r = stepper->Step(system, 0.0, y, 1.0, y);
  ASSERT_EQ(r.status, StepStatus::kAccepted);
  EXPECT_GT(r.rejections, 0);
  EXPECT_TRUE(r.failure == AttemptFailure::kNewtonTooSlow ||
              r.failure == AttemptFailure::kNewtonDiverged)
      << Describe(r.failure);
  EXPECT_LT(r.h_taken, r.h_failed);
}

// A fixed step cannot retry: a Newton iteration limited to one iteration fails with
// kNewtonFailed (the first iteration from z = 0 never meets the tolerance).
TEST(Radau5, FixedStepNewtonFailureIsReported) {
  VanDerPol system;
  StepperOptions options = FixedStepOptions();
  options.newton_max_iterations = 1;
  const std::unique_ptr<Stepper> stepper = MakeRadau5(options);
  stepper->Resize(2);
  std::array<double, 2> y = VanDerPol::kInitial;
  const StepResult r = stepper->Step(system, 0.0, y, 0.1, y);
  EXPECT_EQ(r.status, StepStatus::kNewtonFailed);
  EXPECT_EQ(r.failure, AttemptFailure::kNewtonTooSlow);
}

// M = 0 and a singular J: every Newton matrix σM − J = −J is singular, so after RADAU5's
// five singular factorizations the step gives up, naming the cause.
class SingularDae final : public OdeSystem {
 public:
  [[nodiscard]] std::size_t size() const override { return 2; }
  bool Evaluate(double /*t*/, std::span<const double> x, std::span<double> f) override {
    f[0] = x[0] + x[1];
    f[1] = x[0] + x[1] - 1.0;  // inconsistent with the first: no solution
    return true;
  }
  [[nodiscard]] std::span<const MatrixEntry> mass_pattern() const override { return mass_; }
  [[nodiscard]] std::span<const double> mass_values() const override { return zero_; }

 private:
  std::array<MatrixEntry, 1> mass_ = {{{0, 0}}};
  std::array<double, 1> zero_ = {0.0};
};

TEST(Radau5, RepeatedlySingularNewtonMatrixEndsTheStep) {
  SingularDae system;
  const std::unique_ptr<Stepper> stepper = MakeRadau5({});
  stepper->Resize(2);
  std::array<double, 2> x = {0.0, 0.0};
  const StepResult r = stepper->Step(system, 0.0, x, 1.0, x);
  EXPECT_EQ(r.status, StepStatus::kStepSizeUnderflow);
  EXPECT_EQ(r.failure, AttemptFailure::kSingularMatrix);
  EXPECT_EQ(r.factorizations, 5);
}

// A Jacobian that fails or is not finite at the step's start ends the step at once: no
// smaller step changes the point it is evaluated at.
class BadJacobian final : public OdeSystem {
 public:
  explicit BadJacobian(bool fails) : fails_(fails) {}
  [[nodiscard]] std::size_t size() const override { return 1; }
  bool Evaluate(double /*t*/, std::span<const double> x, std::span<double> f) override {
    f[0] = -x[0];
    return true;
  }
  [[nodiscard]] std::span<const MatrixEntry> jacobian_pattern() const override { return pattern_; }
  bool Jacobian(double /*t*/, std::span<const double> /*x*/, std::span<double> j) override {
    j[0] = std::numeric_limits<double>::quiet_NaN();
    return !fails_;
  }

 private:
  bool fails_;
  std::array<MatrixEntry, 1> pattern_ = {{{0, 0}}};
};

TEST(Radau5, FailingOrNonFiniteJacobianEndsTheStep) {
  for (const bool fails : {true, false}) {
    BadJacobian system(fails);
    const std::unique_ptr<Stepper> stepper = MakeRadau5({});
    stepper->Resize(1);
    std::array<double, 1> x = {1.0};
    const StepResult r = stepper->Step(system, 0.0, x, 0.1, x);
    EXPECT_EQ(r.status, fails ? StepStatus::kRhsFailed : StepStatus::kNonFinite);
    EXPECT_EQ(r.failure, fails ? AttemptFailure::kRhsFailed : AttemptFailure::kNonFinite);
    EXPECT_EQ(r.rejections, 0);
  }
}

}  // namespace
}  // namespace tether::integrate
