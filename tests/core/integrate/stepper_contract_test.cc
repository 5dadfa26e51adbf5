// The contract every stepper of StepperNames() must satisfy (one TEST_P suite over the
// registry, like Drake's generic integrator tests): exactness on polynomials, convergence
// order by step halving, dense output, error paths, Clone and statistics.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "core/integrate/test_problems.h"
#include "tether/integrate/stepper.h"

namespace tether::integrate {
namespace {

using testing::Blowup;
using testing::CircularKepler;
using testing::Failing;
using testing::Logistic;
using testing::Monomial;
using testing::NanAfter;
using testing::PositiveDecay;

constexpr double kEps = std::numeric_limits<double>::epsilon();

// What each method's header promises: order of the solution, order of the dense output,
// and evaluations of F in a step that cannot reuse a previous stage (0 for implicit methods,
// whose count depends on the Newton iterations: see StatisticsArePlausible). Plus, per method,
// the step sizes of the convergence tests, chosen (see the tests) so that the errors are in
// the asymptotic regime and far above rounding.
//
// Where a multistep method legitimately differs (bdf, through SUNDIALS):
//  - it has no fixed-step mode (Stepper::supports_fixed_step() is false), so the tests that
//    take exact steps of h — exactness on monomials, order by step halving, dense-output
//    order — are skipped; bdf_test.cc measures its order by tolerance proportionality and
//    its dense output against an exact solution instead;
//  - it starts at order 1, so the step the tolerances accept at once is smaller
//    (statistics_step) and its cost is that of backward Euler's first step;
//  - a clone cannot copy SUNDIALS' memory: its next step restarts at order 1 (bdf.h), so it
//    equals a fresh stepper's step from the same state rather than the original's.
struct Expected {
  int order;
  int dense_order;
  int evaluations;
  bool kepler;     // convergence problem: circular Kepler orbit, else the logistic equation
  int coarse_n;    // steps of the coarsest grid of the convergence test
  double dense_h;  // largest step of the dense-output test
  double statistics_step = 0.01;  // a first step the default tolerances accept at once
  bool clone_continues = true;    // a clone's next step is the original's
  // StepResult::failure names the cause of a failed attempt, and a run of failed attempts
  // ends with kStepSizeUnderflow (stepper.h).
  bool reports_failure = true;
};

Expected ExpectedFor(std::string_view name) {
  if (name == "euler") return {1, 1, 1, false, 32, 0.5};   // explicit_euler.h
  if (name == "rk4") return {4, 3, 4, false, 16, 1.0};     // rk4.h: order-3 extension
  if (name == "dp5") return {5, 4, 7, false, 16, 0.5};     // dormand_prince.h: 7 stages
  if (name == "dop853") return {8, 7, 16, true, 20, 1.0};  // dop853.h: 12 + 1 + 3 stages
  // bdf.h: orders 1–5, Nordsieck interpolant of the step's order. Its first step is backward
  // Euler, local error ≈ h²/2·|x''| = h²/2·0.072 for the logistic equation at x = 0.1, below
  // the tolerance rtol·x + atol = 1.1e-9 for h = 1e-5 (300 times), and costs 5 evaluations:
  // 2 for the starting-step estimate (F at t0 and at Hairer's trial step; it allows 9e-5, so
  // the step tried stays 1e-5), F(t0) for the history, 1 for the difference-quotient Jacobian
  // (n = 1), 1 Newton iteration (the predictor is already within the convergence test).
  // bdf reports SUNDIALS' failures in StepResult::message; it sets no StepResult::failure yet
  // and ends a run of failed attempts with SUNDIALS' verdict (CV_REPTD_RHSFUNC_ERR after its
  // own count of recoverable failures → kRhsFailed or kNonFinite) rather than
  // kStepSizeUnderflow (reports_failure = false).
  if (name == "bdf") return {5, 5, 5, false, 0, 0.0, 1e-5, false, false};
  if (name == "radau5") return {5, 3, 0, false, 16, 0.5};  // radau5.h: collocation, order 3
  ADD_FAILURE() << "no expectations for stepper '" << name << "'";
  return {0, 0, 0, false, 1, 1.0};
}

// Integrates from (t0, x) to t_end, in place. Fixed-step use (error_control = false, or a
// fixed-step method): exactly n steps of (t_end − t0)/n. Adaptive use: steps of
// min(h_next, t_end − t). *status and *failure get the first non-accepted step's status and
// cause, if any.
void Integrate(Stepper& stepper, OdeSystem& system, double t0, std::span<double> x,
               double t_end, int n, StepStatus* status = nullptr, int* steps = nullptr,
               AttemptFailure* failure = nullptr) {
  stepper.Resize(x.size());
  const double h = (t_end - t0) / n;
  const bool fixed = !stepper.adaptive() || !stepper.options().error_control;
  double t = t0;
  double h_next = h;
  int count = 0;
  for (; fixed ? count < n : t < t_end; ++count) {
    const double h_try = fixed ? h : std::min(h_next, t_end - t);
    const StepResult result = stepper.Step(system, t, x, h_try, x);
    if (result.status != StepStatus::kAccepted) {
      if (status != nullptr) *status = result.status;
      if (failure != nullptr) *failure = result.failure;
      break;
    }
    t = fixed ? t0 + (count + 1) * h : (result.h_taken == t_end - t ? t_end : t + result.h_taken);
    h_next = result.h_next;
  }
  if (steps != nullptr) *steps = count;
}

// The scalar case: returns x(t_end).
double Integrate(Stepper& stepper, OdeSystem& system, double t0, double x0, double t_end,
                 int n, StepStatus* status = nullptr, int* steps = nullptr,
                 AttemptFailure* failure = nullptr) {
  std::array<double, 1> x = {x0};
  Integrate(stepper, system, t0, x, t_end, n, status, steps, failure);
  return x[0];
}

class StepperContract : public ::testing::TestWithParam<std::string_view> {
 protected:
  [[nodiscard]] std::unique_ptr<Stepper> Make(StepperOptions options = {}) const {
    std::unique_ptr<Stepper> stepper = MakeStepper(GetParam(), options);
    EXPECT_NE(stepper, nullptr);
    return stepper;
  }
  // Every step with exactly the h given, for methods with and without error control.
  // Implicit methods stop their Newton iteration at a tolerance derived from rtol and atol
  // (radau5.h: η‖ΔW‖ ≤ FNEWT ≈ 1.5e-5 in a norm weighted by rtol' = 0.1·rtol^(2/3) ≈ 2e-10
  // here), so 1e-13 keeps that error near 1e-15, far below the truncation errors the tests
  // measure. From a zero start that takes more than RADAU5's 7 iterations at the coarse
  // steps (contraction ≈ 0.1 for 15 orders of magnitude), hence the limit of 50; explicit
  // methods ignore all three options in fixed-step use.
  [[nodiscard]] std::unique_ptr<Stepper> MakeFixed() const {
    StepperOptions options;
    options.error_control = false;
    options.rtol = 1e-13;
    options.atol = 1e-13;
    options.newton_max_iterations = 50;
    return Make(options);
  }
  [[nodiscard]] bool Fixed(const Stepper& stepper) const {
    return !stepper.adaptive() || !stepper.options().error_control;
  }
  [[nodiscard]] Expected expected() const { return ExpectedFor(GetParam()); }
  // Skips a test that takes exact steps of h with a method that cannot (see Expected).
  [[nodiscard]] bool LacksFixedSteps() const {
    return !MakeStepper(GetParam(), StepperOptions{})->supports_fixed_step();
  }
};

TEST_P(StepperContract, NameAndOrderMatchTheRegistry) {
  const std::unique_ptr<Stepper> stepper = Make();
  EXPECT_EQ(stepper->name(), GetParam());
  EXPECT_EQ(stepper->order(), expected().order);
}

// A method of order p has Σ b_i c_i^(k−1) = 1/k for k ≤ p, so it integrates x' = k t^(k−1)
// exactly. Rounding bound: each of the 4 steps adds h Σ b_i f_i with |f_i| ≤ k and
// Σ|b_i| ≤ 13 (DOP853's weights; the others' are smaller) over ≤ 12 stages, so the error
// is ≤ 4 · (1 + h·k·13) · 12 · ε.
TEST_P(StepperContract, IntegratesMonomialsUpToItsOrderExactly) {
  if (LacksFixedSteps()) GTEST_SKIP() << GetParam() << " has no fixed-step mode";
  const int p = expected().order;
  const double h = 0.25;
  for (int k = 1; k <= p; ++k) {
    Monomial system(k);
    const std::unique_ptr<Stepper> stepper = MakeFixed();
    const double x = Integrate(*stepper, system, 0.0, 0.0, 1.0, 4);
    const double bound = 4.0 * (1.0 + h * k * 13.0) * 12.0 * kEps;
    EXPECT_NEAR(x, system.Exact(1.0), bound) << "x' = " << k << "·t^" << (k - 1);
  }
}

// The order is sharp: t^(p+1) is not integrated exactly. One step of h = 1 leaves the
// quadrature error constant itself, far above the rounding bound of the test above.
TEST_P(StepperContract, DoesNotIntegrateTheNextMonomialExactly) {
  if (LacksFixedSteps()) GTEST_SKIP() << GetParam() << " has no fixed-step mode";
  const int k = expected().order + 1;
  Monomial system(k);
  const std::unique_ptr<Stepper> stepper = MakeFixed();
  const double x = Integrate(*stepper, system, 0.0, 0.0, 1.0, 1);
  EXPECT_GT(std::abs(x - system.Exact(1.0)), 1e-9);
}

// Global error of a method of order p behaves like C·h^p, so halving h divides it by 2^p:
// log2(err(h)/err(h/2)) → p. The coarse grids (Expected::coarse_n) keep every error
// ≥ 100 times the rounding accumulated over its n steps (≈ n·ε for states of size 1), and
// small enough that the next error term (relative size O(h)) shifts the observed order by
// < 0.3.
// DOP853 reaches rounding on the logistic equation before its asymptotic regime starts, so
// it runs the circular Kepler orbit over t ∈ [0, 10] (error growing with each revolution).
TEST_P(StepperContract, ConvergesAtItsOrderUnderStepHalving) {
  if (LacksFixedSteps()) GTEST_SKIP() << GetParam() << " has no fixed-step mode";
  const Expected e = expected();
  Logistic logistic(1.0, 0.1);
  CircularKepler kepler;
  const double t_end = e.kepler ? 10.0 : 8.0;
  double previous_error = 0.0;
  for (int level = 0; level < 3; ++level) {
    const int n = e.coarse_n << level;
    const std::unique_ptr<Stepper> stepper = MakeFixed();
    double error = 0.0;
    if (e.kepler) {
      std::array<double, 4> x = {1.0, 0.0, 0.0, 1.0};
      Integrate(*stepper, kepler, 0.0, x, t_end, n);
      error = CircularKepler::PositionError(t_end, x);
    } else {
      const double x = Integrate(*stepper, logistic, 0.0, logistic.x0(), t_end, n);
      error = std::abs(x - logistic.Exact(t_end));
    }
    ASSERT_GT(error, 100.0 * n * kEps) << "n = " << n << ": too close to rounding";
    if (level > 0) {
      EXPECT_NEAR(std::log2(previous_error / error), e.order, 0.3) << "n = " << n;
    }
    previous_error = error;
  }
}

// Dense output over one step from the exact x(t0): an interpolant of order r has the local
// error C(θ)·h^(r+1), so halving h divides the largest error over θ = 0.1 … 0.9 by 2^(r+1).
// (The maximum over θ, because C(θ) of a single θ may pass near zero.) Expected::dense_h
// keeps the errors ≥ 1e-13 (≥ 500 ε) and in the asymptotic regime (±0.35).
TEST_P(StepperContract, DenseOutputConvergesAtTheInterpolantOrder) {
  if (LacksFixedSteps()) GTEST_SKIP() << GetParam() << " has no fixed-step mode";
  Logistic system(1.0, 0.1);
  const int r = expected().dense_order;
  const double t0 = 1.0;
  double h = expected().dense_h;
  double previous_error = 0.0;
  for (int level = 0; level < 3; ++level, h /= 2) {
    const std::unique_ptr<Stepper> stepper = MakeFixed();
    stepper->Resize(1);
    std::array<double, 1> x = {system.Exact(t0)};
    std::array<double, 1> x_new = {0.0};
    ASSERT_EQ(stepper->Step(system, t0, x, h, x_new).status, StepStatus::kAccepted);
    double error = 0.0;
    for (int k = 1; k <= 9; ++k) {
      const double t = t0 + 0.1 * k * h;
      std::array<double, 1> x_out = {0.0};
      stepper->Interpolate(t, x_out);
      error = std::max(error, std::abs(x_out[0] - system.Exact(t)));
    }
    ASSERT_GT(error, 1e-13) << "h = " << h << ": too close to rounding";
    if (level > 0) {
      EXPECT_NEAR(std::log2(previous_error / error), r + 1, 0.35) << "h = " << h;
    }
    previous_error = error;
  }
}

// The interpolant reproduces the step's endpoints exactly (the caller samples output
// times that coincide with step ends).
TEST_P(StepperContract, DenseOutputAtTheEndsIsTheStepsEndpoints) {
  Logistic system(1.0, 0.1);
  const std::unique_ptr<Stepper> stepper = Make();
  stepper->Resize(1);
  const std::array<double, 1> x = {0.3};
  std::array<double, 1> x_new = {0.0};
  const StepResult result = stepper->Step(system, 0.5, x, 0.1, x_new);
  ASSERT_EQ(result.status, StepStatus::kAccepted);
  std::array<double, 1> out = {0.0};
  stepper->Interpolate(0.5, out);
  EXPECT_EQ(out[0], x[0]);
  stepper->Interpolate(0.5 + result.h_taken, out);
  EXPECT_EQ(out[0], x_new[0]);
}

// NaN at the step's start: no step size can help, so every method ends at once.
TEST_P(StepperContract, NanRightHandSideEndsWithNonFinite) {
  NanAfter system(-1.0);  // NaN everywhere in t ≥ 0
  const std::unique_ptr<Stepper> stepper = Make();
  stepper->Resize(1);
  std::array<double, 1> x = {0.0};
  const StepResult result = stepper->Step(system, 0.0, x, 0.1, x);
  EXPECT_EQ(result.status, StepStatus::kNonFinite);
  if (expected().reports_failure) {
    EXPECT_EQ(result.failure, AttemptFailure::kNonFinite);
  }
}

// F turns NaN at t > 0.5: steps up to there succeed, then an adaptive method shrinks its
// step towards 0.5 until it underflows, naming the non-finite stage as the cause; a
// fixed-step method cannot retry and ends with kNonFinite. Either way in bounded time.
TEST_P(StepperContract, RightHandSideTurningNanEndsWithItsCause) {
  NanAfter system(0.5);
  StepStatus status = StepStatus::kAccepted;
  AttemptFailure failure = AttemptFailure::kNone;
  int steps = 0;
  const std::unique_ptr<Stepper> stepper = Make();
  Integrate(*stepper, system, 0.0, 0.0, 2.0, 40, &status, &steps, &failure);
  if (expected().reports_failure) {
    EXPECT_EQ(status, Fixed(*stepper) ? StepStatus::kNonFinite : StepStatus::kStepSizeUnderflow);
    EXPECT_EQ(failure, AttemptFailure::kNonFinite);
  } else {
    EXPECT_NE(status, StepStatus::kAccepted);
  }
  EXPECT_GE(steps, 1);
}

TEST_P(StepperContract, FailingEvaluationEndsWithRhsFailed) {
  Failing system;
  const std::unique_ptr<Stepper> stepper = Make();
  stepper->Resize(1);
  std::array<double, 1> x = {1.0};
  const StepResult result = stepper->Step(system, 0.0, x, 0.1, x);
  EXPECT_EQ(result.status, StepStatus::kRhsFailed);
  if (expected().reports_failure) {
    EXPECT_EQ(result.failure, AttemptFailure::kRhsFailed);
  }
}

// PositiveDecay fails for x < 0, which a first step of 0.4 (hλ = 20) reaches in a stage of
// every method (test_problems.h). An adaptive method rejects those attempts, shrinks and runs
// to t = 0.4, where x = e^−20 ≈ 2e-9 still lies far above atol = 1e-14, so no accepted state
// comes near the domain's edge. Its result is then accurate to the tolerances: relative
// errors add up over the steps (≈ 100 to 1000 here, each ≤ a few rtol = 1e-8), hence 1e-4.
TEST_P(StepperContract, AdaptiveMethodsRecoverFromAFailingStage) {
  constexpr double kEnd = 0.4;
  PositiveDecay system;
  StepperOptions options;
  options.rtol = 1e-8;
  options.atol = 1e-14;
  options.step = kEnd;
  const std::unique_ptr<Stepper> stepper = Make(options);
  if (Fixed(*stepper)) GTEST_SKIP() << "fixed-step method: see FixedStepMethodsCannotRetry";
  if (stepper->name() == "bdf") {
    GTEST_SKIP() << "bdf never tries the first step of " << kEnd << " that fails here: its "
                 << "first step is at most its starting-step estimate (bdf.h, StartingStep); "
                 << "Bdf.FailingRightHandSideIsRetriedWithSmallerSteps covers its retries";
  }
  stepper->Resize(1);
  std::array<double, 1> x = {1.0};
  double t = 0.0;
  for (int step = 0; step < 100000 && t < kEnd; ++step) {
    const StepResult result = stepper->Step(system, t, x, kEnd - t, x);
    ASSERT_EQ(result.status, StepStatus::kAccepted) << "t = " << t << ": " << result.message;
    t = result.h_taken == kEnd - t ? kEnd : t + result.h_taken;
  }
  EXPECT_EQ(t, kEnd);
  EXPECT_GE(system.failures(), 1) << "the test must provoke a failing stage";
  EXPECT_NEAR(x[0], PositiveDecay::Exact(kEnd), 1e-4 * PositiveDecay::Exact(kEnd));
}

// Allowed a single attempt (max_rejections = 1), the same first step ends at its failing
// stage: an underflow whose cause is the failed evaluation, not the error control (stepper.h),
// with the step size that failed.
TEST_P(StepperContract, UnderflowNamesAFailedEvaluationAsItsCause) {
  PositiveDecay system;
  StepperOptions options;
  options.step = 0.4;
  options.max_rejections = 1;
  const std::unique_ptr<Stepper> stepper = Make(options);
  if (Fixed(*stepper) || !expected().reports_failure) {
    GTEST_SKIP() << GetParam() << " does not retry by this contract";
  }
  stepper->Resize(1);
  std::array<double, 1> x = {1.0};
  const StepResult result = stepper->Step(system, 0.0, x, 0.4, x);
  EXPECT_EQ(result.status, StepStatus::kStepSizeUnderflow);
  EXPECT_EQ(result.failure, AttemptFailure::kRhsFailed) << Describe(result.failure);
  EXPECT_EQ(result.h_failed, 0.4);
  EXPECT_EQ(result.rejections, 1);
}

// The same first step taken as a fixed step: a fixed-step method cannot retry, so the step
// (euler: the next one, whose start x = 1 − 50 lies outside the domain) ends with kRhsFailed.
TEST_P(StepperContract, FixedStepMethodsCannotRetry) {
  if (LacksFixedSteps()) GTEST_SKIP() << GetParam() << " has no fixed-step mode";
  PositiveDecay system;
  const std::unique_ptr<Stepper> stepper = MakeFixed();
  std::array<double, 1> x = {1.0};
  StepStatus status = StepStatus::kAccepted;
  AttemptFailure failure = AttemptFailure::kNone;
  Integrate(*stepper, system, 0.0, x, 2.0, 2, &status, nullptr, &failure);
  EXPECT_EQ(status, StepStatus::kRhsFailed);
  EXPECT_EQ(failure, AttemptFailure::kRhsFailed);
}

// x' = x² blows up at t = 1. An adaptive method shrinks its steps like (1 − t) until they
// fall below min_step_relative → kStepSizeUnderflow; a fixed-step method overshoots to ∞
// → kNonFinite. Either way within a bounded number of steps (measured: dp5 204, dop853 85
// steps at rtol = atol = 1e-6; the bound 20000 only rules out a creeping loop).
TEST_P(StepperContract, BlowupEndsWithAReasonInBoundedTime) {
  Blowup system;
  StepperOptions options;
  options.rtol = 1e-6;
  options.atol = 1e-6;
  const std::unique_ptr<Stepper> stepper = Make(options);
  StepStatus status = StepStatus::kAccepted;
  int steps = 0;
  Integrate(*stepper, system, 0.0, 1.0, 2.0, 200, &status, &steps);
  if (stepper->adaptive()) {
    EXPECT_EQ(status, StepStatus::kStepSizeUnderflow);
  } else {
    EXPECT_EQ(status, StepStatus::kNonFinite);
  }
  EXPECT_LT(steps, 20000);
}

TEST_P(StepperContract, NonPositiveOrNanStepIsAnUnderflow) {
  Logistic system(1.0, 0.1);
  const std::unique_ptr<Stepper> stepper = Make();
  stepper->Resize(1);
  std::array<double, 1> x = {0.1};
  EXPECT_EQ(stepper->Step(system, 0.0, x, 0.0, x).status, StepStatus::kStepSizeUnderflow);
  EXPECT_EQ(stepper->Step(system, 0.0, x, -0.1, x).status, StepStatus::kStepSizeUnderflow);
  EXPECT_EQ(stepper->Step(system, 0.0, x, std::nan(""), x).status,
            StepStatus::kStepSizeUnderflow);
}

// A clone continues exactly like the original (a multistep method that cannot copy its
// history: exactly like a fresh stepper from the same state), and stepping one leaves the
// other alone.
TEST_P(StepperContract, CloneIsIndependentWithTheSameResults) {
  Logistic system(1.0, 0.1);
  const std::unique_ptr<Stepper> original = Make();
  original->Resize(1);
  std::array<double, 1> x = {0.1};
  const StepResult first = original->Step(system, 0.0, x, 0.1, x);
  ASSERT_EQ(first.status, StepStatus::kAccepted);
  const double t = first.h_taken;
  const std::unique_ptr<Stepper> clone = original->Clone();
  EXPECT_EQ(clone->name(), original->name());
  const std::unique_ptr<Stepper> fresh = Make();
  fresh->Resize(1);
  Stepper& reference = expected().clone_continues ? *original : *fresh;

  std::array<double, 1> from_original = {0.0};
  std::array<double, 1> from_clone = {0.0};
  const StepResult a = reference.Step(system, t, x, 0.1, from_original);
  const StepResult b = clone->Step(system, t, x, 0.1, from_clone);
  EXPECT_EQ(from_original[0], from_clone[0]);
  EXPECT_EQ(a.h_taken, b.h_taken);
  EXPECT_EQ(a.h_next, b.h_next);
  EXPECT_EQ(a.evaluations, b.evaluations);

  std::array<double, 1> mid_before = {0.0};
  reference.Interpolate(t + 0.5 * a.h_taken, mid_before);
  std::array<double, 1> elsewhere = {0.7};
  ASSERT_EQ(clone->Step(system, 3.0, elsewhere, 0.2, elsewhere).status, StepStatus::kAccepted);
  std::array<double, 1> mid_after = {0.0};
  reference.Interpolate(t + 0.5 * a.h_taken, mid_after);
  EXPECT_EQ(mid_before[0], mid_after[0]);
}

// One step that reuses nothing costs the method's stage count (rk4.h: 4 per step; bdf: see
// Expected); radau5's cost follows radau5.h: F(t0, x0), one Jacobian by differences (n = 1
// evaluation), 3 per Newton iteration and at most 1 for the error estimate, with one
// Jacobian and one factorization (the step is accepted at once). A step the tolerances accept
// at once has no rejections and an error norm ≤ 1.
TEST_P(StepperContract, StatisticsArePlausible) {
  Logistic system(1.0, 0.1);
  const double h = expected().statistics_step;
  StepperOptions options;
  options.step = h;
  const std::unique_ptr<Stepper> stepper = Make(options);
  stepper->Resize(1);
  std::array<double, 1> x = {0.1};
  const StepResult result = stepper->Step(system, 0.0, x, h, x);
  ASSERT_EQ(result.status, StepStatus::kAccepted);
  if (expected().evaluations > 0) {
    EXPECT_EQ(result.evaluations, expected().evaluations);
  } else {  // radau5
    EXPECT_EQ(result.jacobians, 1);
    EXPECT_EQ(result.factorizations, 1);
    EXPECT_GE(result.newton_iterations, 1);
    const int base = 1 + 1 + 3 * result.newton_iterations;
    EXPECT_GE(result.evaluations, base);
    EXPECT_LE(result.evaluations, base + 1);
  }
  if (!stepper->implicit()) {
    EXPECT_EQ(result.jacobians + result.factorizations + result.newton_iterations, 0);
  }
  EXPECT_EQ(result.rejections, 0);
  EXPECT_EQ(result.failure, AttemptFailure::kNone);  // also where not reported
  EXPECT_EQ(result.h_taken, h);
  EXPECT_LE(result.error_norm, 1.0);
  EXPECT_GE(result.error_norm, 0.0);
  if (!stepper->adaptive()) {
    EXPECT_EQ(result.error_norm, 0.0);
  }
}

// Two copies of x' = −x, x(0) = 1, apart only in their absolute tolerances: per-component
// tolerances reach the error norm of every adaptive method, so the component held to 1e-12
// ends far more accurate than the one held to 1e-3 (rtol 1e-15 leaves atol in charge), and
// tightening one component's tolerance costs steps.
TEST_P(StepperContract, PerComponentToleranceHoldsEachComponent) {
  if (Fixed(*Make())) GTEST_SKIP() << GetParam() << " has no error control";
  class TwoDecays final : public OdeSystem {
   public:
    [[nodiscard]] std::size_t size() const override { return 2; }
    bool Evaluate(double /*t*/, std::span<const double> x, std::span<double> dxdt) override {
      dxdt[0] = -x[0];
      dxdt[1] = -x[1];
      return true;
    }
  } system;
  auto run = [&](std::vector<double> atol, int* steps) {
    StepperOptions options;
    options.rtol = 1e-15;
    options.atol_per_component = std::move(atol);
    std::unique_ptr<Stepper> stepper = Make(options);
    std::array<double, 2> x = {1.0, 1.0};
    StepStatus status = StepStatus::kAccepted;
    Integrate(*stepper, system, 0.0, x, 1.0, 1, &status, steps);
    EXPECT_EQ(status, StepStatus::kAccepted);
    return std::array<double, 2>{std::abs(x[0] - std::exp(-1.0)), std::abs(x[1] - std::exp(-1.0))};
  };
  int loose_steps = 0;
  int mixed_steps = 0;
  const std::array<double, 2> loose = run({1e-3, 1e-3}, &loose_steps);
  const std::array<double, 2> mixed = run({1e-3, 1e-12}, &mixed_steps);
  EXPECT_GT(mixed_steps, loose_steps);
  // The tight component: within a few hundred times its tolerance after the run's steps
  // (local errors of ≤ 1e-12 each, accumulated over ≤ a few hundred steps).
  EXPECT_LT(mixed[1], 1e-9) << "loose " << loose[1];
  EXPECT_LT(mixed[1], loose[1] / 100);
}

// No accepted step (fresh after Resize, or after a failed Step): Interpolate yields NaN
// rather than a stale state (stepper.h).
TEST_P(StepperContract, InterpolateWithoutAnAcceptedStepIsNan) {
  Logistic system(1.0, 0.1);
  Failing failing;
  const std::unique_ptr<Stepper> stepper = Make();
  stepper->Resize(1);
  std::array<double, 1> out = {0.0};
  stepper->Interpolate(0.0, out);
  EXPECT_TRUE(std::isnan(out[0]));
  std::array<double, 1> x = {0.1};
  ASSERT_EQ(stepper->Step(system, 0.0, x, 0.1, x).status, StepStatus::kAccepted);
  ASSERT_EQ(stepper->Step(failing, 0.1, x, 0.1, x).status, StepStatus::kRhsFailed);
  stepper->Interpolate(0.15, out);
  EXPECT_TRUE(std::isnan(out[0]));
}

// Arrays of another size than Resize's are a caller's programming error: abort with a
// message naming the stepper and both sizes (internal invariant, always on).
TEST_P(StepperContract, SizeMismatchAbortsWithAMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Logistic system(1.0, 0.1);
  const std::unique_ptr<Stepper> stepper = Make();
  stepper->Resize(1);
  std::array<double, 2> x = {0.1, 0.2};
  const std::string message =
      std::string(GetParam()) + "::Step got x of size 2 and x_new of size 2 after Resize\\(1\\)";
  EXPECT_DEATH(stepper->Step(system, 0.0, x, 0.1, x), message);
}

// The state may be advanced in place (x and x_new the same array).
TEST_P(StepperContract, StepsInPlaceLikeOutOfPlace) {
  Logistic system(1.0, 0.1);
  const std::unique_ptr<Stepper> a = Make();
  const std::unique_ptr<Stepper> b = Make();
  a->Resize(1);
  b->Resize(1);
  std::array<double, 1> in_place = {0.1};
  const std::array<double, 1> x = {0.1};
  std::array<double, 1> out = {0.0};
  ASSERT_EQ(a->Step(system, 0.0, in_place, 0.1, in_place).status, StepStatus::kAccepted);
  ASSERT_EQ(b->Step(system, 0.0, x, 0.1, out).status, StepStatus::kAccepted);
  EXPECT_EQ(in_place[0], out[0]);
}

std::string ParamName(const ::testing::TestParamInfo<std::string_view>& info) {
  return std::string(info.param);
}

INSTANTIATE_TEST_SUITE_P(AllSteppers, StepperContract,
                         ::testing::ValuesIn(StepperNames().begin(), StepperNames().end()),
                         ParamName);

}  // namespace
}  // namespace tether::integrate
