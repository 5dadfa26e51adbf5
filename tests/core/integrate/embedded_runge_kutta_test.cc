// Step-size control of the adaptive pairs (dp5, dop853): FSAL reuse against projection,
// rejection without growth, bounds on the step, the starting step and tolerance
// proportionality.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "core/integrate/test_problems.h"
#include "tether/integrate/stepper.h"

namespace tether::integrate {
namespace {

using testing::Logistic;

struct Pair {
  std::string_view name;
  int stages;       // evaluations of a step that cannot reuse its first stage
  int dense_extra;  // evaluations a reused first stage does not save
};

class EmbeddedPair : public ::testing::TestWithParam<Pair> {
 protected:
  [[nodiscard]] std::unique_ptr<Stepper> Make(const StepperOptions& options) const {
    std::unique_ptr<Stepper> stepper = MakeStepper(GetParam().name, options);
    EXPECT_NE(stepper, nullptr);
    stepper->Resize(1);
    return stepper;
  }
};

// The last stage F(t + h, x_new) is reused iff the next step starts at exactly (t + h,
// x_new); a projected (changed) state costs the full stage count again.
TEST_P(EmbeddedPair, ReusesTheLastStageOnlyForTheUnchangedState) {
  Logistic system(1.0, 0.1);
  StepperOptions options;
  options.step = 0.05;
  const std::unique_ptr<Stepper> stepper = Make(options);
  std::array<double, 1> x = {0.1};
  const StepResult first = stepper->Step(system, 0.0, x, 0.05, x);
  ASSERT_EQ(first.status, StepStatus::kAccepted);
  EXPECT_EQ(first.evaluations, GetParam().stages);

  const double t1 = first.h_taken;
  const StepResult reused = stepper->Step(system, t1, x, 0.05, x);
  ASSERT_EQ(reused.status, StepStatus::kAccepted);
  EXPECT_EQ(reused.evaluations, GetParam().stages - 1);

  const double t2 = t1 + reused.h_taken;
  x[0] = std::nextafter(x[0], 1.0);  // what a projection does, however slightly
  const StepResult projected = stepper->Step(system, t2, x, 0.05, x);
  ASSERT_EQ(projected.status, StepStatus::kAccepted);
  EXPECT_EQ(projected.evaluations, GetParam().stages);
}

// A first step far too large for the tolerance is rejected and shrunk; the accepted step
// then proposes no growth (HNW I, II.4: no increase right after a rejection).
TEST_P(EmbeddedPair, RejectsLargeStepsAndDoesNotGrowRightAfter) {
  Logistic system(5.0, 0.01);
  StepperOptions options;
  options.step = 5.0;
  options.rtol = 1e-10;
  options.atol = 1e-12;
  const std::unique_ptr<Stepper> stepper = Make(options);
  std::array<double, 1> x = {0.01};
  const StepResult result = stepper->Step(system, 0.0, x, 5.0, x);
  ASSERT_EQ(result.status, StepStatus::kAccepted);
  EXPECT_GT(result.rejections, 0);
  EXPECT_LT(result.h_taken, 5.0);
  EXPECT_LE(result.h_next, result.h_taken);
  EXPECT_LE(result.error_norm, 1.0);
}

// The step never exceeds the h passed in (the caller hits output times with it) nor
// max_step, even when the controller would allow more.
TEST_P(EmbeddedPair, NeverExceedsTheGivenStepOrMaxStep) {
  Logistic system(1.0, 0.1);
  StepperOptions options;
  options.step = 1.0;
  options.rtol = 1e-3;
  options.atol = 1e-3;
  options.max_step = 0.25;
  const std::unique_ptr<Stepper> stepper = Make(options);
  std::array<double, 1> x = {0.1};
  StepResult result = stepper->Step(system, 0.0, x, 0.125, x);
  ASSERT_EQ(result.status, StepStatus::kAccepted);
  EXPECT_EQ(result.h_taken, 0.125);
  result = stepper->Step(system, 0.125, x, 1.0, x);
  ASSERT_EQ(result.status, StepStatus::kAccepted);
  EXPECT_LE(result.h_taken, 0.25);
  EXPECT_LE(result.h_next, 0.25);
}

// error_control = false takes exactly the h given, however large, with no estimate.
TEST_P(EmbeddedPair, WithoutErrorControlTakesTheStepAsGiven) {
  Logistic system(5.0, 0.01);
  StepperOptions options;
  options.error_control = false;
  options.rtol = 1e-12;
  const std::unique_ptr<Stepper> stepper = Make(options);
  std::array<double, 1> x = {0.01};
  const StepResult result = stepper->Step(system, 0.0, x, 0.5, x);
  ASSERT_EQ(result.status, StepStatus::kAccepted);
  EXPECT_EQ(result.h_taken, 0.5);
  EXPECT_EQ(result.rejections, 0);
  EXPECT_EQ(result.error_norm, 0.0);
}

// options.step = 0 selects the first step by Hairer's heuristic: one extra evaluation,
// a positive step no larger than the h given.
TEST_P(EmbeddedPair, ChoosesTheStartingStepWhenAskedTo) {
  Logistic system(1.0, 0.1);
  StepperOptions options;
  options.step = 0.0;
  const std::unique_ptr<Stepper> stepper = Make(options);
  std::array<double, 1> x = {0.1};
  const StepResult result = stepper->Step(system, 0.0, x, 10.0, x);
  ASSERT_EQ(result.status, StepStatus::kAccepted);
  EXPECT_GT(result.h_taken, 0.0);
  EXPECT_LT(result.h_taken, 10.0);
  EXPECT_GE(result.evaluations, GetParam().stages + 1);
}

// Tolerance proportionality: the local error per step is held at ≈ tol·scale, and on this
// dissipative problem (the logistic flow contracts towards x = 1) the global error is of
// the order of one local error. So the error must fall as tol does (roughly like
// tol^(p/(p+1)) per step) and stay below 10·tol.
TEST_P(EmbeddedPair, ErrorFollowsTheTolerance) {
  Logistic system(1.0, 0.1);
  const double t_end = 10.0;
  double previous_error = 1.0;
  for (const double tol : {1e-4, 1e-6, 1e-8, 1e-10}) {
    StepperOptions options;
    options.rtol = tol;
    options.atol = tol;
    options.step = 0.0;
    const std::unique_ptr<Stepper> stepper = Make(options);
    std::array<double, 1> x = {system.x0()};
    double t = 0.0;
    double h = t_end;
    int steps = 0;
    while (t < t_end && steps < 100000) {
      const StepResult result = stepper->Step(system, t, x, std::min(h, t_end - t), x);
      ASSERT_EQ(result.status, StepStatus::kAccepted) << "t = " << t;
      t = result.h_taken == t_end - t ? t_end : t + result.h_taken;
      h = result.h_next;
      ++steps;
    }
    const double error = std::abs(x[0] - system.Exact(t_end));
    EXPECT_LT(error, 10.0 * tol) << "tol = " << tol;
    EXPECT_LT(error, previous_error) << "tol = " << tol;
    previous_error = error;
  }
}

std::string PairName(const ::testing::TestParamInfo<Pair>& info) {
  return std::string(info.param.name);
}

// Stage counts from dormand_prince.h (7, FSAL) and dop853.h (12 + k13 + 3 dense stages).
INSTANTIATE_TEST_SUITE_P(AdaptivePairs, EmbeddedPair,
                         ::testing::Values(Pair{"dp5", 7, 0}, Pair{"dop853", 16, 3}), PairName);

}  // namespace
}  // namespace tether::integrate
