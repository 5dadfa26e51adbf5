// Validation says what is wrong, and only that: each case gives the complete list of problems
// a spec produces, by path, column and message text, so that a cascade of follow-up problems
// fails the test as much as a wrong message does.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/model/spec_fixtures.h"
#include "tether/model/registry.h"

namespace tether::model {
namespace {

using Json = nlohmann::ordered_json;
using testing::PendulumSpec;
using testing::SemiExplicitSpec;

struct Expected {
  std::string path;
  int column;
  std::string message;  // the whole message
};

struct Case {
  std::string label;
  std::string spec;
  std::vector<Expected> problems;  // all of them, in order
};

std::string Pendulum(const std::function<void(Json&)>& change) {
  Json spec = PendulumSpec();
  change(spec);
  return spec.dump();
}

std::string Semi(const std::function<void(Json&)>& change) {
  Json spec = SemiExplicitSpec("index1");
  change(spec);
  return spec.dump();
}

const char* const kMechanicalFields =
    "name, title, description, form, parameters, definitions, constraints, inequalities, "
    "initial, outputs, units, simulation, coordinates, velocities, mass, forces";

std::vector<Case> Cases() {
  return {
      {"asymmetric mass matrix",
       Pendulum([](Json& s) { s["mass"] = Json::parse(R"j([["m", "5"], ["0", "m"]])j"); }),
       {{"mass[0][1]", 0,
         "the mass matrix must be symmetric, but mass[0][1] is '5' and mass[1][0] is '0'"}}},
      {"asymmetric mass matrix, symbolic",
       Pendulum([](Json& s) { s["mass"] = Json::parse(R"j([["m", "x*m"], ["0", "m"]])j"); }),
       {{"mass[0][1]", 0,
         "the mass matrix must be symmetric, but mass[0][1] is 'm*x' and mass[1][0] is '0'"}}},
      {"select is reserved", Pendulum([](Json& s) { s["parameters"]["select"] = 1.0; }),
       {{"parameters.select", 0, "'select' is reserved (a function of the expression language)"}}},
      {"pi is reserved", Pendulum([](Json& s) { s["definitions"] = {{"pi", "3"}}; }),
       {{"definitions.pi", 0, "'pi' is reserved (the constant π)"}}},
      {"mechanical constraint without coordinates",
       Pendulum([](Json& s) { s["constraints"] = {"l - 2"}; }),
       {{"constraints[0]", 0,
         "a constraint of a mechanical model must depend on the coordinates, but 'l - 2' "
         "depends on none (Φ(q,t) = 0 constrains q)"}}},
      {"algebraic variable in no constraint", Semi([](Json& s) {
         s["algebraic"] = {"y", "w"};
         s["constraints"] = {"y - x^2", "2*y - z"};
         s["initial"]["w"] = 0;
       }),
       {{"algebraic[1]", 0,
         "algebraic variable 'w' appears in no constraint, so nothing determines it (index 1 "
         "needs g_y regular; g_y has a zero column for it)"}}},
      {"structurally singular g_y", Semi([](Json& s) {
         s["algebraic"] = {"y", "w", "u"};
         s["constraints"] = {"y - x", "y + x", "w + u - 1"};
       }),
       {{"constraints[1]", 0,
         "the constraints determine fewer algebraic variables than there are: this one uses "
         "only variables other constraints already determine ('y'), so g_y is structurally "
         "singular (index 1 needs g_y regular)"}}},
      {"index1 constraint without algebraic variables",
       Semi([](Json& s) {
         s["algebraic"] = {"y", "w"};
         s["constraints"] = {"y + w", "x - 1"};
       }),
       {{"constraints[1]", 0,
         "'x - 1' contains no algebraic variable, so g_y has a zero row (index 1 needs g_y "
         "regular; a constraint on the differential variables alone is form index2)"}}},
      {"misspelt variables field does not cascade", Pendulum([](Json& s) {
         s["coordinate"] = s["coordinates"];
         s.erase("coordinates");
       }),
       {{"coordinate", 0,
         std::string("unknown field 'coordinate' (did you mean 'coordinates'?); the fields of "
                     "form 'mechanical' are ") +
             kMechanicalFields},
        {"coordinates", 0, "required field is missing"}}},
      {"misspelt parameters field does not cascade", Pendulum([](Json& s) {
         s["parameter"] = s["parameters"];
         s.erase("parameters");
       }),
       {{"parameter", 0,
         std::string("unknown field 'parameter' (did you mean 'parameters'?); the fields of "
                     "form 'mechanical' are ") +
             kMechanicalFields}}},
      {"nested unknown field lists the valid ones",
       Pendulum([](Json& s) { s["parameters"]["m"] = {{"vale", 2.0}}; }),
       {{"parameters.m.vale", 0,
         "unknown field 'vale' (did you mean 'value'?); the fields of parameters.m are value, "
         "unit, description, min, max"},
        {"parameters.m.value", 0, "required field is missing"}}},
      {"an empty range is one problem, not also the default's",
       Pendulum([](Json& s) { s["parameters"]["m"] = {{"value", 2}, {"min", 5}, {"max", 1}}; }),
       {{"parameters.m.max", 0, "must be > min = 5, not 1"}}},
      {"a bad bound is one problem, not also the default's",
       Pendulum([](Json& s) {
         s["parameters"]["m"] = {{"value", 2}, {"min", "zero"}, {"max", 1}};
       }),
       {{"parameters.m.min", 0, "must be a number, not a string"}}},
      {"a default outside its range",
       Pendulum([](Json& s) {
         s["parameters"]["l"] = {{"value", 20}, {"min", 0.01}, {"max", 10}, {"unit", "m"}};
       }),
       {{"parameters.l.value", 0, "must be in [0.01, 10] (its min and max), not 20"}}},
      {"did-you-mean ignores case first", Pendulum([](Json& s) {
         s["parameters"]["l1"] = 1.0;
         s["parameters"]["m1"] = 1.0;
         s["forces"][0] = "L1";
       }),
       {{"forces[0]", 1, "unknown name 'L1' (did you mean 'l1'?)"}}},
      {"form index3 suggests mechanical", Pendulum([](Json& s) { s["form"] = "index3"; }),
       {{"form", 0,
         "unknown form 'index3' (did you mean 'mechanical'? index-3 models are constrained "
         "mechanical systems); expected mechanical, index1, index2 or implicit"}}},
      {"constant non-finite sub-expression", Pendulum([](Json& s) { s["forces"][0] = "0*(1/0)"; }),
       {{"forces[0]", 4, "'1/0' is always inf; a sub-expression that is constant must be finite"}}},
      {"constant NaN after simplification",
       Pendulum([](Json& s) { s["outputs"]["energy"] = "y + 0/(x-x)"; }),
       {{"outputs.energy", 5,
         "'0/(x-x)' is always NaN; a sub-expression that is constant must be finite"}}},
  };
}

bool Matches(const SpecProblem& problem, const Expected& expected) {
  if (problem.path != expected.path || problem.column != expected.column) return false;
  return problem.message == expected.message;
}

TEST(ValidationMessagesTest, EachSpecGivesExactlyItsProblems) {
  for (const Case& c : Cases()) {
    const ModelResult result = ParseModel(c.spec);
    ASSERT_FALSE(result.ok()) << c.label;
    std::string got;
    for (const SpecProblem& p : result.problems) got += "  " + p.ToString() + "\n";
    ASSERT_EQ(result.problems.size(), c.problems.size()) << c.label << ", got:\n" << got;
    for (std::size_t i = 0; i < c.problems.size(); ++i) {
      EXPECT_TRUE(Matches(result.problems[i], c.problems[i]))
          << c.label << ": expected " << c.problems[i].path << " col " << c.problems[i].column
          << ": " << c.problems[i].message << "\ngot:\n"
          << got;
    }
  }
}

// Entries written differently but equal pass the symmetry check: it compares values.
TEST(ValidationMessagesTest, SymmetricMassWrittenDifferentlyIsAccepted) {
  const ModelResult result = ParseModel(Pendulum([](Json& s) {
    s["mass"] = Json::parse(R"j([["m", "m*cos(x - y)"], ["cos(y - x)*m", "m"]])j");
  }));
  EXPECT_TRUE(result.ok()) << result.ErrorText();
}

TEST(ValidationMessagesTest, UnknownModelNamesGetADidYouMean) {
  ModelRegistry registry;
  ASSERT_TRUE(registry.LoadBuiltinCatalog().empty());
  EXPECT_EQ(registry.NotFoundMessage("Pendulum"),
            "model 'Pendulum' not found (did you mean 'pendulum'?)");
  EXPECT_EQ(registry.NotFoundMessage("pendulm"),
            "model 'pendulm' not found (did you mean 'pendulum'?)");
  EXPECT_EQ(registry.NotFoundMessage("zzzzzzzz"), "model 'zzzzzzzz' not found");
  EXPECT_EQ(registry.Remove("Pendulum").message,
            "model 'Pendulum' not found (did you mean 'pendulum'?)");
}

}  // namespace
}  // namespace tether::model
