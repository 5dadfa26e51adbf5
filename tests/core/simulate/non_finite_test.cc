// Non-finite values through the spec reader and a run: an output that becomes NaN is warned
// about once and counted; a model expression that is non-finite at initialization is named
// with the values that produced it; a parameter override that breaks the model is blamed; a
// method whose own arithmetic overflows is blamed instead of the model.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/simulate/pendulum_spec.h"
#include "core/simulate/sim_helpers.h"
#include "tether/expr/number_text.h"

namespace tether::testing {
namespace {

std::string WithChange(const std::string& from, const std::string& to) {
  std::string spec = kPendulumSpec;
  const std::size_t at = spec.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  spec.replace(at, from.size(), to);
  return spec;
}

// The seed pendulum starts at x = 0.86 near the top and swings through the bottom to the
// other side (energy is conserved), so x < 0 during the run and sqrt(x) is NaN there.
TEST(NonFiniteTest, AnOutputThatBecomesNaNIsWarnedOnceAndCounted) {
  simulate::Setup setup;
  setup.model = ParseOrDie(WithChange(R"j("energy": )j", R"j("root": "sqrt(x)", "energy": )j"));
  setup.options.method = "dp5";
  setup.options.t_end = 5.0;
  setup.options.output_interval = 0.05;
  auto sim = CreateOrFail(setup);
  ASSERT_NE(sim, nullptr);
  const std::size_t x = Column(*sim, "x");
  std::vector<simulate::Warning> warnings;
  double first_negative_t = -1.0;
  double warned_t = -1.0;
  const simulate::Status status = sim->Advance(1u << 20, [&](const simulate::Sample& s) {
    if (first_negative_t < 0 && s.values[x] < 0) first_negative_t = s.t;
    for (const simulate::Warning& w : s.warnings) {
      warnings.push_back(w);
      warned_t = s.t;
    }
  });
  EXPECT_EQ(status.reason, simulate::Termination::kReachedEnd) << status.message;
  ASSERT_GT(first_negative_t, 0.0) << "the pendulum must swing to x < 0 for this test";
  ASSERT_EQ(warnings.size(), 1u) << "once per output, however many samples are NaN";
  EXPECT_EQ(warned_t, first_negative_t);
  EXPECT_EQ(warnings[0].path, "outputs.root");
  EXPECT_EQ(warnings[0].message,
            "output 'root' became NaN at t = " + expr::ShortestText(first_negative_t));
  EXPECT_EQ(sim->statistics().non_finite_outputs, 1u);
}

// 0·log(x − 1) is not simplified to 0 (log may be NaN): the run reports it at t = 0 with the
// expression's path and the value of x (projected onto the rod from 0.86, so below 1 still).
TEST(NonFiniteTest, ANonFiniteForceAtInitializationIsNamedWithItsValues) {
  simulate::Setup setup;
  setup.model = ParseOrDie(WithChange(R"j("forces": ["0")j", R"j("forces": ["0*log(x - 1)")j"));
  setup.options.t_end = 1.0;
  const simulate::CreateResult created = simulate::Simulation::Create(setup);
  ASSERT_TRUE(created.problems.empty());
  EXPECT_EQ(created.status.reason, simulate::Termination::kNonFinite);
  EXPECT_NE(created.status.message.find(
                "at t = 0: forces[0] = '0*log(x - 1)' is nan with x = 0.8"),
            std::string::npos)
      << created.status.message;
  EXPECT_EQ(created.failure_path, "initial");
}

// An implicit model's non-finite equation is named as the spec names it (equations[1]), not by
// the reduced system's field (constraints[1]).
TEST(NonFiniteTest, AnImplicitModelsNonFiniteEquationIsNamedAsWritten) {
  simulate::Setup setup;
  setup.model = ParseOrDie(R"json({"name": "log_drive", "form": "implicit",
      "variables": ["x", "y"], "equations": ["der(x) = -y", "y = log(x - 2)"],
      "initial": {"x": 1, "y": 0}})json");
  setup.options.t_end = 1.0;
  const simulate::CreateResult created = simulate::Simulation::Create(setup);
  ASSERT_TRUE(created.problems.empty());
  ASSERT_TRUE(created.status.failed());
  EXPECT_NE(created.status.message.find("equations[1] = 'y - log(x - 2)' is nan with"),
            std::string::npos)
      << created.status.message;
}

// m = −1 makes the mass matrix indefinite; with the default m = 2 the model initializes.
TEST(NonFiniteTest, AParameterOverrideThatBreaksTheModelIsBlamed) {
  simulate::Setup setup;
  setup.model = Pendulum();
  setup.parameters = {{"m", -1.0}, {"g", 9.81}};
  setup.options.t_end = 1.0;
  const simulate::CreateResult created = simulate::Simulation::Create(setup);
  ASSERT_TRUE(created.problems.empty());
  ASSERT_TRUE(created.status.failed());
  EXPECT_EQ(created.failure_path, "parameters.m");
  EXPECT_NE(created.status.message.find(
                "(caused by parameter 'm' = -1: the model initializes with its default 2)"),
            std::string::npos)
      << created.status.message;
}

// x' = x from 1e308 stays finite until t = ln(1.797) ≈ 0.58, but an explicit or implicit
// method's stage sums (Σ a_ij k_j with k ≈ 1e308) overflow at once: the NaN reaching the model
// is the method's, and the message says so instead of blaming 'x'.
TEST(NonFiniteTest, AStateNearTheLargestDoubleBlamesTheMethodsArithmetic) {
  for (const char* method : {"dp5", "radau5"}) {
    SCOPED_TRACE(method);
    simulate::Setup setup;
    setup.model = ParseOrDie(R"json({"name": "grow", "form": "index1",
        "differential": ["x"], "rhs": ["x"], "initial": {"x": 1e308}})json");
    setup.options.method = method;
    setup.options.t_end = 1.0;
    const std::unique_ptr<simulate::Simulation> sim = CreateOrFail(setup);
    ASSERT_TRUE(sim);
    simulate::Status status;
    RunAll(*sim, &status);
    ASSERT_TRUE(status.failed());
    EXPECT_NE(status.message.find("(x = nan): the method's own arithmetic overflowed, not the "
                                  "model's expressions"),
              std::string::npos)
        << status.message;
    EXPECT_EQ(status.message.find("is nan with"), std::string::npos) << status.message;
  }
}

}  // namespace
}  // namespace tether::testing
