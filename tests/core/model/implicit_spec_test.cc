// The implicit form's spec half: what the structural analysis makes of the catalog's examples.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/model/spec_fixtures.h"
#include "tether/model/registry.h"

namespace tether::model {
namespace {

std::vector<std::string> Names(const std::vector<Variable>& variables) {
  std::vector<std::string> names;
  for (const Variable& v : variables) names.push_back(v.name);
  return names;
}

std::shared_ptr<const Model> Read(const std::string& text) {
  ModelResult result = ParseModel(text);
  EXPECT_TRUE(result.ok()) << result.ErrorText();
  return result.model;
}

// Σ-method offsets of the Cartesian pendulum (Pryce 2001, §2): c = (1, 1, 0, 0, 2) for
// x' = u, y' = v, the two force balances and the rod; d = (2, 2, 1, 1, 0); index
// max c + 1 = 3 (λ has d = 0). x' = u and y' = v are substituted, so z = (x, y, u, v) and
// w = (u', v', λ); the rod is differentiated twice: H_0 = rod, H_1 = rod'; 4 − 2 = 2 degrees
// of freedom (angle and angular velocity).
TEST(ImplicitSpec, PendulumIsAnalyzedAsIndexThree) {
  const auto model = Read(testing::ImplicitPendulumSpec().dump());
  ASSERT_TRUE(model);
  EXPECT_EQ(model->form, Form::kImplicit);
  ASSERT_TRUE(model->implicit);
  const ImplicitForm& form = *model->implicit;
  EXPECT_EQ(form.report.structural_index, 3);
  EXPECT_EQ(form.report.degrees_of_freedom, 2u);
  ASSERT_EQ(form.report.equations.size(), 5u);
  const int differentiations[] = {1, 1, 0, 0, 2};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(form.report.equations[i].differentiations, differentiations[i]) << i;
  }
  EXPECT_EQ(form.report.equations[0].defines_derivative_of, 0u);  // der(x) = u
  EXPECT_EQ(form.report.equations[1].defines_derivative_of, 1u);  // der(y) = v
  EXPECT_EQ(Names(model->differential), (std::vector<std::string>{"x", "y", "u", "v"}));
  EXPECT_EQ(Names(model->algebraic), (std::vector<std::string>{"der(u)", "der(v)", "lam"}));
  EXPECT_EQ(model->constraint_names,
            (std::vector<std::string>{"equations[2]", "vertical", "rod''"}));
  ASSERT_EQ(form.invariant_names.size(), 2u);
  EXPECT_EQ(form.invariant_names[0], std::vector<std::string>{"rod"});
  EXPECT_EQ(form.invariant_names[1], std::vector<std::string>{"rod'"});
  EXPECT_EQ(model->differential[0].unit, "");  // the minimal spec gives no units
}

// The floating capacitor's two node equations have dependent derivative rows (C1, −C1) and
// (−C1, C1): one is replaced by their derivative-free sum, which becomes the invariant; the
// index is 1 and every voltage stays a state (3 states − 1 invariant = 2 degrees of freedom).
TEST(ImplicitSpec, FloatingCapacitorEliminatesTheDependentDerivative) {
  std::shared_ptr<const Model> model;
  for (const CatalogEntry& entry : BuiltinCatalog()) {
    if (std::string(entry.file) == "rc_floating_capacitor.json") model = Read(std::string(entry.json));
  }
  ASSERT_TRUE(model && model->implicit);
  const ImplicitForm& form = *model->implicit;
  EXPECT_EQ(form.report.structural_index, 1);
  EXPECT_EQ(form.report.degrees_of_freedom, 2u);
  int eliminated = 0;
  for (const auto& e : form.report.equations) eliminated += e.derivatives_eliminated ? 1 : 0;
  EXPECT_EQ(eliminated, 1);
  ASSERT_EQ(form.invariant_names.size(), 1u);
  EXPECT_EQ(form.invariant_names[0].size(), 1u);
  EXPECT_EQ(model->differential.size(), 3u);
  // Units of derivatives are the variable's per time unit.
  EXPECT_EQ(model->algebraic[0].unit, "V/s");
}

// der(x) of a state in an output becomes its right-hand side: the pendulum's der(x) is u.
TEST(ImplicitSpec, OutputsMayUseDerivativesOfStates) {
  auto spec = testing::ImplicitPendulumSpec();
  spec["outputs"] = {{"speed_x", "der(x)"}, {"accel_y", "der(v)"}};
  const auto model = Read(spec.dump());
  ASSERT_TRUE(model);
  ASSERT_EQ(model->outputs.size(), 2u);
  EXPECT_EQ(model->context->ToString(model->outputs[0].value), "u");
  EXPECT_EQ(model->context->ToString(model->outputs[1].value), "der(v)");
}

// `initial` takes start values for the derivatives the analysis made states or unknowns (the
// pendulum's der(u), der(v)): the guess consistent initialization starts from. A der(x) it
// substituted (der(x) = u) is refused by path, and der() of a name that is no variable is an
// unknown variable as before.
TEST(ImplicitSpec, InitialTakesTheDerivativesThatAreUnknowns) {
  auto spec = testing::ImplicitPendulumSpec();
  spec["initial"]["der(u)"] = 1.5;
  const auto model = Read(spec.dump());
  ASSERT_TRUE(model);
  ASSERT_EQ(model->initial.count("der(u)"), 1u);
  EXPECT_EQ(model->initial.at("der(u)"), 1.5);

  spec["initial"]["der(x)"] = 1.0;
  spec["initial"]["der(q)"] = 1.0;
  const ModelResult refused = ParseModel(spec.dump());
  ASSERT_FALSE(refused.ok());
  std::vector<std::string> paths;
  for (const SpecProblem& p : refused.problems) paths.push_back(p.path + ": " + p.message);
  ASSERT_EQ(paths.size(), 1u) << refused.ErrorText();  // der(q) first: unknown variable
  EXPECT_NE(paths[0].find("initial.der(q): unknown variable 'der(q)'"), std::string::npos)
      << paths[0];
  spec["initial"].erase("der(q)");
  const ModelResult substituted = ParseModel(spec.dump());
  ASSERT_EQ(substituted.problems.size(), 1u) << substituted.ErrorText();
  EXPECT_EQ(substituted.problems[0].path, "initial.der(x)");
  EXPECT_NE(substituted.problems[0].message.find("'der(x)' is no state or unknown"),
            std::string::npos);
}

}  // namespace
}  // namespace tether::model
