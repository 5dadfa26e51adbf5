// StepperOptions validation, the WRMS norm and the registry.
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "tether/integrate/stepper.h"

namespace tether::integrate {
namespace {

TEST(StepperOptions, DefaultsAreValid) {
  std::string why;
  EXPECT_TRUE(StepperOptions{}.IsValid(&why)) << why;
  EXPECT_TRUE(StepperOptions{}.IsValid(nullptr));
}

// Each invalid value is rejected with a message that names the field, the value and the
// violated condition.
TEST(StepperOptions, InvalidFieldsAreNamed) {
  struct Case {
    void (*set)(StepperOptions&);
    const char* message;
  };
  const std::vector<Case> cases = {
      {[](StepperOptions& o) { o.step = -1e-3; }, "StepperOptions::step = -0.001; must be >= 0"},
      {[](StepperOptions& o) { o.rtol = -1; }, "StepperOptions::rtol = -1; must be >= 1e-15"},
      {[](StepperOptions& o) { o.rtol = 1e-16; }, "StepperOptions::rtol = 1e-16; must be >= 1e-15"},
      {[](StepperOptions& o) { o.rtol = std::nan(""); }, "StepperOptions::rtol = nan; must be"},
      {[](StepperOptions& o) { o.atol = 0; }, "StepperOptions::atol = 0; must be > 0"},
      {[](StepperOptions& o) { o.safety = 1; }, "StepperOptions::safety = 1; must be in (0, 1)"},
      {[](StepperOptions& o) { o.min_factor = 0; },
       "StepperOptions::min_factor = 0; must be in (0, 1)"},
      {[](StepperOptions& o) { o.max_factor = 0.5; },
       "StepperOptions::max_factor = 0.5; must be > 1"},
      {[](StepperOptions& o) { o.max_factor = std::numeric_limits<double>::infinity(); },
       "StepperOptions::max_factor = inf; must be > 1 and finite"},
      {[](StepperOptions& o) { o.max_step = -2; }, "StepperOptions::max_step = -2; must be >= 0"},
      {[](StepperOptions& o) { o.min_step_relative = 0; },
       "StepperOptions::min_step_relative = 0; must be in (0, 1)"},
      {[](StepperOptions& o) { o.max_rejections = 0; },
       "StepperOptions::max_rejections = 0; must be >= 1"},
      {[](StepperOptions& o) { o.atol_per_component = {1e-6, -1.0}; },
       "StepperOptions::atol_per_component[1] = -1; must be > 0 and finite"},
      {[](StepperOptions& o) { o.failure_factor = 1.0; },
       "StepperOptions::failure_factor = 1; must be in (0, 1)"},
      {[](StepperOptions& o) { o.newton_max_iterations = 0; },
       "StepperOptions::newton_max_iterations = 0; must be >= 1"},
      {[](StepperOptions& o) { o.newton_tolerance = -1e-3; },
       "StepperOptions::newton_tolerance = -0.001; must be >= 0 (0 = automatic) and finite"},
      {[](StepperOptions& o) { o.jacobian_reuse_theta = 1.0; },
       "StepperOptions::jacobian_reuse_theta = 1; must be in [0, 1)"},
      {[](StepperOptions& o) { o.keep_step_lower = 1.5; },
       "StepperOptions::keep_step_lower = 1.5; must be in (0, 1]"},
      {[](StepperOptions& o) { o.keep_step_upper = 0.9; },
       "StepperOptions::keep_step_upper = 0.9; must be >= 1 and finite"},
      {[](StepperOptions& o) { o.sparse_min_size = 0; },
       "StepperOptions::sparse_min_size = 0; must be >= 1"},
      {[](StepperOptions& o) { o.sparse_max_density = 0.0; },
       "StepperOptions::sparse_max_density = 0; must be in (0, 1]"},
  };
  for (const Case& c : cases) {
    StepperOptions options;
    c.set(options);
    std::string why;
    EXPECT_FALSE(options.IsValid(&why)) << c.message;
    EXPECT_EQ(why.rfind(c.message, 0), 0u) << "got: " << why;
  }
}

// ‖e‖ = sqrt(mean((e_i / (atol + rtol·max(|x_i|, |y_i|)))²)).
TEST(WrmsNorm, WeighsByTheLargerOfBothStates) {
  const std::vector<double> e = {1e-6, 2e-6};
  const std::vector<double> x = {1.0, -3.0};
  const std::vector<double> y = {2.0, 1.0};
  // weights: 1e-8 + 1e-6·2 and 1e-8 + 1e-6·3
  const double w0 = 1e-6 / (1e-8 + 2e-6);
  const double w1 = 2e-6 / (1e-8 + 3e-6);
  StepperOptions options;
  options.rtol = 1e-6;
  options.atol = 1e-8;
  EXPECT_DOUBLE_EQ(WrmsNorm(e, x, y, options), std::sqrt((w0 * w0 + w1 * w1) / 2));
  EXPECT_EQ(WrmsNorm({}, {}, {}, options), 0.0);
  // Per-component tolerances replace atol, component by component.
  options.atol_per_component = {1e-8, 1e-3};
  const double w1_loose = 2e-6 / (1e-3 + 3e-6);
  EXPECT_DOUBLE_EQ(WrmsNorm(e, x, y, options), std::sqrt((w0 * w0 + w1_loose * w1_loose) / 2));
}

TEST(StepperRegistry, MakesEveryListedMethodAndNothingElse) {
  ASSERT_EQ(StepperNames().size(), 6u);
  for (std::string_view name : StepperNames()) {
    const std::unique_ptr<Stepper> stepper = MakeStepper(name, {});
    ASSERT_NE(stepper, nullptr) << name;
    EXPECT_EQ(stepper->name(), name);
  }
  EXPECT_EQ(MakeStepper("rk45", {}), nullptr);
  EXPECT_EQ(MakeStepper("", {}), nullptr);
}

TEST(StepperRegistry, AdaptivityAsDocumented) {
  EXPECT_FALSE(MakeStepper("euler", {})->adaptive());
  EXPECT_FALSE(MakeStepper("rk4", {})->adaptive());
  EXPECT_TRUE(MakeStepper("dp5", {})->adaptive());
  EXPECT_TRUE(MakeStepper("dop853", {})->adaptive());
  EXPECT_TRUE(MakeStepper("bdf", {})->adaptive());
  EXPECT_TRUE(MakeStepper("radau5", {})->adaptive());
}

TEST(StepperRegistry, TheImplicitMethodsAreBdfAndRadau5) {
  for (std::string_view name : StepperNames()) {
    EXPECT_EQ(MakeStepper(name, {})->implicit(), name == "bdf" || name == "radau5") << name;
  }
}

// Every failure has its own phrase for messages.
TEST(AttemptFailure, EachIsDescribed) {
  EXPECT_EQ(Describe(AttemptFailure::kErrorTooLarge),
            "the local error estimate exceeded the tolerances");
  EXPECT_EQ(Describe(AttemptFailure::kRhsFailed), "the right-hand side could not be evaluated");
  EXPECT_EQ(Describe(AttemptFailure::kNewtonDiverged), "the stage Newton iteration diverged");
  EXPECT_EQ(Describe(AttemptFailure::kSingularMatrix), "the Newton matrix was singular");
}

}  // namespace
}  // namespace tether::integrate
