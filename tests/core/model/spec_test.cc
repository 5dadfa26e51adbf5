// ParseModel beyond the malformed-spec table: message format, collection of every problem,
// definitions, did-you-mean, limits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/model/spec_fixtures.h"
#include "model/definitions.h"
#include "tether/expr/suggest.h"

namespace tether::model {
namespace {

using expr::DidYouMean;
using expr::EditDistance;
using Json = nlohmann::ordered_json;
using testing::Evaluate;
using testing::PendulumSpec;
using testing::SemiExplicitSpec;

bool HasProblem(const ModelResult& result, const std::string& path, const std::string& text) {
  return std::any_of(result.problems.begin(), result.problems.end(), [&](const SpecProblem& p) {
    return p.path == path && p.message.find(text) != std::string::npos;
  });
}

TEST(SpecProblemTest, ToStringNamesPathColumnAndMessage) {
  const SpecProblem in_expression{"constraints[0]", 7,
                                  "unknown name 'lenght' (did you mean 'length'?)"};
  EXPECT_EQ(in_expression.ToString(),
            "constraints[0], col 7: unknown name 'lenght' (did you mean 'length'?)");
  EXPECT_EQ((SpecProblem{"name", 0, "required field is missing"}).ToString(),
            "name: required field is missing");
  EXPECT_EQ((SpecProblem{"", 0, "invalid JSON"}).ToString(), "invalid JSON");
}

TEST(SpecTest, MinimalSpecsOfEachFormValidate) {
  for (const Json& spec :
       {PendulumSpec(), SemiExplicitSpec("index1"), SemiExplicitSpec("index2")}) {
    const ModelResult result = ParseModel(spec.dump());
    EXPECT_TRUE(result.ok()) << result.ErrorText();
    EXPECT_TRUE(result.problems.empty());
  }
}

TEST(SpecTest, ExpressionsMayBeJsonNumbers) {
  Json spec = PendulumSpec();
  spec["forces"] = {0, -19.62};
  const ModelResult result = ParseModel(spec.dump());
  ASSERT_TRUE(result.ok()) << result.ErrorText();
  EXPECT_EQ(Evaluate(*result.model, result.model->forces[1], {}), -19.62);
}

TEST(SpecTest, DiagonalMassIsExpandedRowMajor) {
  Json spec = PendulumSpec();
  spec["mass"] = {"m", "2*m"};
  const ModelResult result = ParseModel(spec.dump());
  ASSERT_TRUE(result.ok()) << result.ErrorText();
  const std::vector<expr::Expr>& mass = result.model->mass;
  ASSERT_EQ(mass.size(), 4u);
  EXPECT_EQ(Evaluate(*result.model, mass[0], {}), 2.0);
  EXPECT_EQ(Evaluate(*result.model, mass[1], {}), 0.0);
  EXPECT_EQ(Evaluate(*result.model, mass[2], {}), 0.0);
  EXPECT_EQ(Evaluate(*result.model, mass[3], {}), 4.0);
}

TEST(SpecTest, EveryProblemIsReported) {
  Json spec = PendulumSpec();
  spec["name"] = "Bad Name";
  spec["colour"] = "red";
  spec["constraints"] = {"x^2 + y^2 - lenght^2", "vx"};
  spec["initial"]["w"] = 1;
  spec["mass"] = {"m"};
  const ModelResult result = ParseModel(spec.dump());
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(HasProblem(result, "name", "is invalid"));
  EXPECT_TRUE(HasProblem(result, "colour", "unknown field 'colour'"));
  EXPECT_TRUE(HasProblem(result, "constraints[0]", "unknown name 'lenght'"));
  EXPECT_TRUE(HasProblem(result, "constraints[1]", "may not use velocity 'vx'"));
  EXPECT_TRUE(HasProblem(result, "initial.w", "unknown variable 'w'"));
  EXPECT_TRUE(HasProblem(result, "mass", "has 1 entries but there are 2 coordinates"));
  EXPECT_EQ(result.problems.size(), 6u) << result.ErrorText();
}

// Definitions may come in any order and use each other; they are substituted, so the model's
// expressions mention only variables, parameters and t.
TEST(SpecTest, DefinitionsAreSubstitutedInAnyOrder) {
  Json spec = PendulumSpec();
  spec["definitions"] = {{"b", "a*2"}, {"a", "x + 1"}, {"unused", "b^2"}};
  spec["forces"] = {"b + t", "-m*g"};
  spec["outputs"]["with_definition"] = "a*b";
  const ModelResult result = ParseModel(spec.dump());
  ASSERT_TRUE(result.ok()) << result.ErrorText();
  const Model& model = *result.model;
  // b + t = 2(x + 1) + t = 8.5 at x = 3, t = 0.5.
  EXPECT_DOUBLE_EQ(Evaluate(model, model.forces[0], {{"x", 3.0}, {"t", 0.5}}), 8.5);
  EXPECT_DOUBLE_EQ(Evaluate(model, model.outputs[1].value, {{"x", 3.0}}), 4.0 * 8.0);
  for (expr::Expr symbol : model.context->FreeSymbols(model.forces[0])) {
    const std::string& name = model.context->symbol_name(symbol);
    EXPECT_TRUE(name == "x" || name == "t") << name;
  }
}

TEST(SpecTest, DefinitionCyclesNameTheirPath) {
  Json spec = PendulumSpec();
  spec["definitions"] = {{"a", "c + 1"}, {"b", "a*x"}, {"c", "b - y"}, {"ok", "x + y"}};
  spec["forces"] = {"a", "ok"};
  const ModelResult result = ParseModel(spec.dump());
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(HasProblem(result, "definitions.a", "definitions form a cycle: a -> c -> b -> a"))
      << result.ErrorText();
  // The use of a definition on a cycle is not reported again, and `ok` is fine.
  EXPECT_EQ(result.problems.size(), 1u) << result.ErrorText();
}

TEST(DefinitionOrderTest, DependenciesComeFirstAndCyclesAreBroken) {
  // 0 uses 1, 1 uses 2; 3 ↔ 4; 5 uses 3.
  const DefinitionOrder order = OrderDefinitions({{1}, {2}, {}, {4}, {3}, {3}});
  EXPECT_EQ(order.order, (std::vector<std::size_t>{2, 1, 0}));
  ASSERT_EQ(order.cycles.size(), 1u);
  EXPECT_EQ(order.cycles[0], (std::vector<std::size_t>{3, 4, 3}));
  EXPECT_EQ(order.broken, (std::vector<bool>{false, false, false, true, true, true}));
}

TEST(SuggestTest, DidYouMeanFindsCloseNamesOnly) {
  EXPECT_EQ(EditDistance("lenght", "length"), 1u);  // one transposition
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  const std::vector<std::string> names = {"length", "mass", "x", "y"};
  EXPECT_EQ(DidYouMean("lenght", names), " (did you mean 'length'?)");
  EXPECT_EQ(DidYouMean("mas", names), " (did you mean 'mass'?)");
  EXPECT_EQ(DidYouMean("z", names), "");  // one letter off a one-letter name is no hint
  EXPECT_EQ(DidYouMean("velocity", names), "");
}

TEST(SpecTest, JsonSyntaxErrorGivesLineAndColumn) {
  const ModelResult result = ParseModel("{\n  \"name\": \"p\"\n  \"form\": \"index1\"\n}");
  ASSERT_EQ(result.problems.size(), 1u);
  EXPECT_EQ(result.problems[0].path, "");
  EXPECT_NE(result.problems[0].message.find("invalid JSON at line 3, column 8"), std::string::npos)
      << result.problems[0].message;
}

TEST(SpecLimitsTest, DefaultsAreValidAndZeroIsNot) {
  std::string why;
  EXPECT_TRUE(SpecLimits{}.IsValid(&why)) << why;
  SpecLimits limits;
  limits.max_nodes = 0;
  EXPECT_FALSE(limits.IsValid(&why));
  EXPECT_EQ(why, "SpecLimits::max_nodes must be > 0");
}

TEST(SpecLimitsTest, OversizedDocumentIsRefusedUnread) {
  const std::string text = PendulumSpec().dump();
  SpecLimits limits;
  limits.max_document_bytes = 100;
  const ModelResult result = ParseModel(text, limits);
  ASSERT_EQ(result.problems.size(), 1u);
  EXPECT_EQ(result.problems[0].message,
            "the document has " + std::to_string(text.size()) + " bytes; the limit is 100");
  // The default limit (1 MiB) refuses a 2 MiB document of blanks as well.
  EXPECT_FALSE(ParseModel(std::string(2 << 20, ' ')).ok());
}

TEST(SpecLimitsTest, DeepExpressionIsRefused) {
  Json spec = PendulumSpec();
  const int depth = 1000;
  spec["forces"][0] = std::string(depth, '(') + "x" + std::string(depth, ')');
  const ModelResult result = ParseModel(spec.dump());
  ASSERT_FALSE(result.ok());
  ASSERT_FALSE(result.problems.empty());
  EXPECT_EQ(result.problems[0].path, "forces[0]");
  EXPECT_GT(result.problems[0].column, 0);
}

TEST(SpecLimitsTest, DeeplyNestedJsonIsRefusedEarly) {
  const std::string text = "{\"a\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  const ModelResult result = ParseModel(text);
  ASSERT_EQ(result.problems.size(), 1u);
  EXPECT_EQ(result.problems[0].path, "a[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]");
  EXPECT_EQ(result.problems[0].message,
            "JSON nested deeper than 16 levels; a model spec needs at most 4");
}

TEST(SpecLimitsTest, LongExpressionIsRefused) {
  Json spec = PendulumSpec();
  SpecLimits limits;
  limits.max_expression_length = 10;
  spec["forces"][1] = "m*g + m*g + m*g";
  const ModelResult result = ParseModel(spec.dump(), limits);
  EXPECT_TRUE(HasProblem(result, "forces[1]", "expression has 15 characters; the limit is 10"))
      << result.ErrorText();
}

TEST(SpecLimitsTest, TooManyVariablesIsRefusedBeforeExpressions) {
  Json spec = PendulumSpec();
  SpecLimits limits;
  limits.max_variables = 3;
  spec["forces"][0] = "unknown_name";  // never parsed: the spec is refused first
  const ModelResult result = ParseModel(spec.dump(), limits);
  ASSERT_EQ(result.problems.size(), 1u) << result.ErrorText();
  EXPECT_EQ(result.problems[0].message, "has 4 state variables; the limit is 3");
}

TEST(SpecLimitsTest, DefinitionChainDeeperThanTheLimitIsRefused) {
  Json spec = PendulumSpec();
  SpecLimits limits;
  limits.max_expanded_depth = 50;
  Json definitions = Json::object();
  definitions["d0"] = "x";
  for (int i = 1; i < 60; ++i) {
    definitions["d" + std::to_string(i)] = "sin(d" + std::to_string(i - 1) + ")";
  }
  spec["definitions"] = definitions;
  spec["forces"][0] = "d59";
  const ModelResult result = ParseModel(spec.dump(), limits);
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(HasProblem(result, "definitions.d50", "nested too deeply")) << result.ErrorText();
  EXPECT_TRUE(HasProblem(result, "forces[0]", "nested too deeply")) << result.ErrorText();
}

TEST(SpecLimitsTest, NodeLimitRefusesLargeModels) {
  Json spec = PendulumSpec();
  SpecLimits limits;
  limits.max_nodes = 40;
  std::string sum = "x";
  for (int i = 1; i < 30; ++i) sum += " + sin(" + std::to_string(i) + "*x)";
  spec["forces"][0] = sum;
  const ModelResult result = ParseModel(spec.dump(), limits);
  EXPECT_TRUE(HasProblem(result, "", "expression nodes")) << result.ErrorText();
}

// A hostile spec with thousands of problems gets the first 100 and a count, fast: no
// suggestions are searched once the list is full.
TEST(SpecLimitsTest, ProblemListIsCapped) {
  Json spec = PendulumSpec();
  std::string sum = "u0";
  for (int i = 1; i < 2000; ++i) sum += "+u" + std::to_string(i);
  spec["forces"][0] = sum;
  const ModelResult result = ParseModel(spec.dump());
  ASSERT_EQ(result.problems.size(), 101u);
  EXPECT_EQ(result.problems.back().message, "and 1900 more problems not listed");
}

TEST(SpecTest, NamedConstraintsAndUnits) {
  Json spec = PendulumSpec();
  spec["constraints"] = {{{"name", "rod"}, {"expr", "x^2 + y^2 - l^2"}}};
  spec["units"] = {{"t", "s"}, {"x", "m"}, {"vy", "m/s"}};
  spec["parameters"]["m"] = {{"value", 2.0}, {"unit", "kg"}, {"description", "bob"}};
  const ModelResult result = ParseModel(spec.dump());
  ASSERT_TRUE(result.ok()) << result.ErrorText();
  EXPECT_EQ(result.model->constraint_names, std::vector<std::string>{"rod"});
  EXPECT_EQ(result.model->time_unit, "s");
  EXPECT_EQ(result.model->coordinates[0].unit, "m");
  EXPECT_EQ(result.model->velocities[1].unit, "m/s");
  EXPECT_EQ(result.model->parameters[0].unit, "kg");
  EXPECT_EQ(result.model->parameters[0].description, "bob");
}

// A range is closed, either end may be absent, and the default may sit on an end.
TEST(SpecTest, ParameterRangesAreReadWithEitherOrBothEnds) {
  Json spec = PendulumSpec();
  spec["parameters"]["m"] = {{"value", 2.0}, {"min", 0.5}, {"max", 10}};
  spec["parameters"]["l"] = {{"value", 2.5}, {"min", 2.5}};
  spec["parameters"]["g"] = {{"value", 9.81}, {"max", 20}};
  spec["parameters"]["k"] = {{"value", -1}};
  const ModelResult result = ParseModel(spec.dump());
  ASSERT_TRUE(result.ok()) << result.ErrorText();
  const Parameter& m = *result.model->FindParameter("m");
  const Parameter& l = *result.model->FindParameter("l");
  const Parameter& g = *result.model->FindParameter("g");
  const Parameter& k = *result.model->FindParameter("k");
  EXPECT_EQ(m.minimum, 0.5);
  EXPECT_EQ(m.maximum, 10.0);
  EXPECT_EQ(l.minimum, 2.5);
  EXPECT_FALSE(l.maximum.has_value());
  EXPECT_FALSE(g.minimum.has_value());
  EXPECT_EQ(g.maximum, 20.0);
  EXPECT_FALSE(k.minimum.has_value() || k.maximum.has_value());

  EXPECT_EQ(m.RangeText(), "in [0.5, 10]");
  EXPECT_EQ(l.RangeText(), ">= 2.5");
  EXPECT_EQ(g.RangeText(), "<= 20");
  EXPECT_EQ(k.RangeText(), "");
  // Closed at both ends; NaN is in no range (but in the absent one: finiteness is checked
  // apart from ranges).
  EXPECT_TRUE(m.InRange(0.5) && m.InRange(10) && !m.InRange(0.49) && !m.InRange(10.01));
  EXPECT_TRUE(l.InRange(1e300) && !l.InRange(2.4));
  EXPECT_TRUE(g.InRange(-1e300) && !g.InRange(21));
  EXPECT_FALSE(m.InRange(std::nan("")) || l.InRange(std::nan("")) || g.InRange(std::nan("")));
  EXPECT_TRUE(k.InRange(-1e300) && k.InRange(std::nan("")));
}

TEST(SpecTest, Index2ConstraintMayUseTimeAndIndex1MayUseAlgebraic) {
  EXPECT_TRUE(ParseModel(SemiExplicitSpec("index2").dump()).ok());
  Json index1 = SemiExplicitSpec("index1");
  index1["inequalities"] = {"1 - y"};
  const ModelResult result = ParseModel(index1.dump());
  ASSERT_TRUE(result.ok()) << result.ErrorText();
  EXPECT_EQ(result.model->inequalities.size(), 1u);
}

TEST(ModelNameTest, Pattern) {
  EXPECT_TRUE(IsValidModelName("pendulum"));
  EXPECT_TRUE(IsValidModelName("slider-crank_2"));
  EXPECT_TRUE(IsValidModelName(std::string(63, 'a')));
  EXPECT_FALSE(IsValidModelName(std::string(64, 'a')));
  EXPECT_FALSE(IsValidModelName(""));
  EXPECT_FALSE(IsValidModelName("2pendulum"));
  EXPECT_FALSE(IsValidModelName("Pendulum"));
  EXPECT_FALSE(IsValidModelName("pend ulum"));
}

}  // namespace
}  // namespace tether::model
