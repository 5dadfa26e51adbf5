// StepperOptions validation, the WRMS norm and the registry.
#include <cmath>
#include <limits>
#include <string>
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
  EXPECT_DOUBLE_EQ(WrmsNorm(e, x, y, 1e-6, 1e-8), std::sqrt((w0 * w0 + w1 * w1) / 2));
  EXPECT_EQ(WrmsNorm({}, {}, {}, 1e-6, 1e-8), 0.0);
}

TEST(StepperRegistry, MakesEveryListedMethodAndNothingElse) {
  ASSERT_EQ(StepperNames().size(), 5u);
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
}

}  // namespace
}  // namespace tether::integrate
