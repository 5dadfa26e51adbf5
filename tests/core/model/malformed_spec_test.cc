// A table of malformed specs, each with the problem it must produce: JSON path, a message
// substring and, inside an expression, the column.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/model/spec_fixtures.h"

namespace tether::model {
namespace {

using Json = nlohmann::ordered_json;
using testing::ImplicitPendulumSpec;
using testing::PendulumSpec;
using testing::SemiExplicitSpec;

struct Case {
  std::string label;
  std::string spec;  // JSON text
  std::string path;
  std::string message;  // substring of the message
  int column = 0;
};

std::string Pendulum(const std::function<void(Json&)>& change) {
  Json spec = PendulumSpec();
  change(spec);
  return spec.dump();
}

// The pendulum with its mass parameter written as `object`.
std::string WithMass(const Json& object) {
  return Pendulum([&](Json& s) { s["parameters"]["m"] = object; });
}

std::string Semi(const std::string& form, const std::function<void(Json&)>& change) {
  Json spec = SemiExplicitSpec(form);
  change(spec);
  return spec.dump();
}

std::vector<Case> Cases() {
  const std::string pendulum_text = PendulumSpec().dump(2);
  std::string overflow = pendulum_text;
  overflow.replace(overflow.find("2.0"), 3, "1e999");
  // JSON has no infinity: a bound that overflows a double is the one non-finite bound.
  std::string min_overflow = WithMass({{"value", 2}, {"min", 1}});
  min_overflow.replace(min_overflow.find("\"min\":1"), 7, "\"min\":-1e999");
  std::string duplicate = pendulum_text;
  duplicate.replace(duplicate.find("\"l\""), 3, "\"m\"");
  return {
      {"syntax error", "{\"name\": \"p\",\n  \"form\": }", "", "invalid JSON at line 2, column 11"},
      {"not an object", "[1, 2]", "", "must be a JSON object, not an array"},
      {"number overflow", overflow, "parameters.m", "1e999"},
      {"duplicate key", duplicate, "parameters.m", "duplicate key 'm'"},
      {"missing name", Pendulum([](Json& s) { s.erase("name"); }), "name",
       "required field is missing"},
      {"invalid model name", Pendulum([](Json& s) { s["name"] = "Pendulum"; }), "name",
       "must match [a-z][a-z0-9_-]{0,62}"},
      {"name not a string", Pendulum([](Json& s) { s["name"] = 42; }), "name",
       "must be a string, not a number"},
      {"unknown form", Pendulum([](Json& s) { s["form"] = "mechanic"; }), "form",
       "unknown form 'mechanic' (did you mean 'mechanical'?)"},
      {"unknown field", Pendulum([](Json& s) { s["constriants"] = Json::array(); }), "constriants",
       "unknown field 'constriants' (did you mean 'constraints'?)"},
      {"field of another form", Pendulum([](Json& s) { s["rhs"] = {"1"}; }), "rhs",
       "does not belong to form 'mechanical'"},
      {"parameter of wrong type", Pendulum([](Json& s) { s["parameters"]["m"] = "two"; }),
       "parameters.m", "must be a number or an object"},
      {"parameter object typo", Pendulum([](Json& s) {
         s["parameters"]["m"] = {{"value", 2}, {"unti", "kg"}};
       }),
       "parameters.m.unti", "unknown field 'unti' (did you mean 'unit'?)"},
      {"parameter object without value", Pendulum([](Json& s) {
         s["parameters"]["m"] = {{"unit", "kg"}};
       }),
       "parameters.m.value", "required field is missing"},
      {"parameter min not a number", WithMass({{"value", 2}, {"min", "zero"}}),
       "parameters.m.min", "must be a number, not a string"},
      {"parameter max not a number", WithMass({{"value", 2}, {"max", true}}), "parameters.m.max",
       "must be a number, not a boolean"},
      {"parameter min overflows", min_overflow, "parameters.m.min", "1e999"},
      {"parameter range typo", WithMass({{"value", 2}, {"mni", 0}}), "parameters.m.mni",
       "unknown field 'mni' (did you mean 'min'?)"},
      {"parameter min above max", WithMass({{"value", 2}, {"min", 5}, {"max", 1}}),
       "parameters.m.max", "must be > min = 5, not 1"},
      {"parameter min equal to max", WithMass({{"value", 2}, {"min", 2}, {"max", 2}}),
       "parameters.m.max", "must be > min = 2, not 2"},
      {"parameter default below min", WithMass({{"value", 2}, {"min", 3}}), "parameters.m.value",
       "must be >= 3 (its min), not 2"},
      {"parameter default above max", WithMass({{"value", 2}, {"max", 1.5}}), "parameters.m.value",
       "must be <= 1.5 (its max), not 2"},
      {"parameter default outside its range", WithMass({{"value", 20}, {"min", 0.1}, {"max", 10}}),
       "parameters.m.value", "must be in [0.1, 10] (its min and max), not 20"},
      {"coordinate not a string", Pendulum([](Json& s) { s["coordinates"][1] = 3; }),
       "coordinates[1]", "must be a name (a string), not a number"},
      {"invalid identifier", Pendulum([](Json& s) { s["coordinates"][0] = "2x"; }),
       "coordinates[0]", "'2x' is not a valid name"},
      {"overlong name", Pendulum([](Json& s) { s["parameters"][std::string(65, 'a')] = 1; }),
       "parameters." + std::string(65, 'a'), "at most 64 characters"},
      {"reserved function name", Pendulum([](Json& s) { s["parameters"]["sin"] = 1; }),
       "parameters.sin", "'sin' is reserved"},
      {"reserved time", Pendulum([](Json& s) { s["velocities"][1] = "t"; }), "velocities[1]",
       "'t' is reserved (the time)"},
      {"duplicate across namespaces", Pendulum([](Json& s) {
         s["definitions"] = {{"m", "2"}};
       }),
       "definitions.m", "name 'm' is already used by parameters.m"},
      {"output named like a coordinate", Pendulum([](Json& s) { s["outputs"]["x"] = "x"; }),
       "outputs.x", "already used by coordinates[0]"},
      {"velocity count", Pendulum([](Json& s) { s["velocities"] = {"vx"}; }), "velocities",
       "has 1 names but there are 2 coordinates"},
      {"mass diagonal size", Pendulum([](Json& s) {
         s["mass"] = {"m", "m", "m"};
       }),
       "mass", "has 3 entries but there are 2 coordinates"},
      {"mass row size", Pendulum([](Json& s) {
         s["mass"][1] = {"0", "m", "0"};
       }),
       "mass[1]", "must be a row of 2 expressions, not 3 entries"},
      {"mass entry unknown name", Pendulum([](Json& s) { s["mass"][1][1] = "mm"; }), "mass[1][1]",
       "unknown name 'mm' (did you mean 'm'?)", 1},
      {"force count", Pendulum([](Json& s) { s["forces"] = {"0"}; }), "forces",
       "has 1 entries but there are 2 coordinates"},
      {"force of wrong type", Pendulum([](Json& s) { s["forces"][0] = true; }), "forces[0]",
       "must be an expression (a string or a number), not a boolean"},
      {"unknown name with did-you-mean", Pendulum([](Json& s) {
         s["parameters"] = {{"m", 2.0}, {"length", 2.5}, {"g", 9.81}};
         s["constraints"] = {"x^2 + y^2 - lenght^2"};
       }),
       "constraints[0]", "unknown name 'lenght' (did you mean 'length'?)", 13},
      {"constraint uses a velocity",
       Pendulum([](Json& s) { s["constraints"] = {"x*vx + y^2 - l^2"}; }), "constraints[0]",
       "a constraint may not use velocity 'vx'", 3},
      {"constraint uses a velocity through a definition", Pendulum([](Json& s) {
         s["definitions"] = {{"ke", "vx^2"}};
         s["constraints"] = {"x^2 + y^2 - l^2 + ke"};
       }),
       "constraints[0]", "velocity 'vx' (through definition 'ke')", 19},
      {"expression syntax error", Pendulum([](Json& s) { s["constraints"] = {"x^2 + * y"}; }),
       "constraints[0]", "", 7},
      {"number overflow in an expression", Pendulum([](Json& s) { s["forces"][1] = "1e999*g"; }),
       "forces[1]", "out of range", 1},
      {"more constraints than coordinates", Pendulum([](Json& s) {
         s["constraints"] = {"x", "y", "x + y"};
       }),
       "constraints", "at most as many constraints as coordinates"},
      {"definition cycle", Pendulum([](Json& s) {
         s["definitions"] = {{"a", "b + 1"}, {"b", "2*a"}};
       }),
       "definitions.a", "definitions form a cycle: a -> b -> a"},
      {"definition self-cycle", Pendulum([](Json& s) {
         s["definitions"] = {{"a", "a + x"}};
       }),
       "definitions.a", "cycle: a -> a"},
      {"definition unknown name", Pendulum([](Json& s) {
         s["definitions"] = {{"a", "q + x"}};
       }),
       "definitions.a", "unknown name 'q'", 1},
      {"initial for an unknown variable", Pendulum([](Json& s) { s["initial"]["vz"] = 1; }),
       "initial.vz", "unknown variable 'vz' (did you mean 'vx'?)"},
      {"initial for a parameter", Pendulum([](Json& s) { s["initial"]["m"] = 1; }), "initial.m",
       "'m' is a parameter, not a state variable"},
      {"initial of wrong type", Pendulum([](Json& s) { s["initial"]["x"] = "0.86"; }), "initial.x",
       "must be a number, not a string"},
      {"output uses an output", Pendulum([](Json& s) { s["outputs"]["twice"] = "2*energy"; }),
       "outputs.twice", "'energy' is an output", 3},
      {"output object without expr", Pendulum([](Json& s) {
         s["outputs"]["energy"] = {{"unit", "J"}};
       }),
       "outputs.energy.expr", "required field is missing"},
      {"unit of a parameter", Pendulum([](Json& s) {
         s["units"] = {{"m", "kg"}};
       }),
       "units.m", "give a parameter's unit as parameters.m"},
      {"unit not a string", Pendulum([](Json& s) {
         s["units"] = {{"x", 1}};
       }),
       "units.x", "must be a unit (a string)"},
      {"simulation t_end not positive", Pendulum([](Json& s) {
         s["simulation"] = {{"t_end", -1}};
       }),
       "simulation.t_end", "must be > 0"},
      {"simulation unknown field", Pendulum([](Json& s) {
         s["simulation"] = {{"tend", 1}};
       }),
       "simulation.tend", "unknown field 'tend' (did you mean 't_end'?)"},
      {"constraint object typo", Pendulum([](Json& s) {
         s["constraints"] = {{{"name", "rod"}, {"exp", "x^2 - l^2"}}};
       }),
       "constraints[0].exp", "did you mean 'expr'?"},
      {"duplicate constraint names", Pendulum([](Json& s) {
         s["constraints"] = {{{"name", "rod"}, {"expr", "x"}}, {{"name", "rod"}, {"expr", "y"}}};
       }),
       "constraints[1].name", "already used by constraints[0].name"},
      {"missing coordinates", Pendulum([](Json& s) { s.erase("coordinates"); }), "coordinates",
       "required field is missing"},
      {"index1 constraint count", Semi("index1", [](Json& s) { s["constraints"] = Json::array(); }),
       "constraints", "has 0 constraints but there are 1 algebraic variables"},
      {"index1 rhs count", Semi("index1", [](Json& s) { s["rhs"] = {"1 - y"}; }), "rhs",
       "has 1 entries but there are 2 differential variables"},
      {"index1 missing rhs", Semi("index1", [](Json& s) { s.erase("rhs"); }), "rhs",
       "required field is missing"},
      {"index1 with a mass matrix", Semi("index1", [](Json& s) { s["mass"] = {"1"}; }), "mass",
       "does not belong to form 'index1'"},
      {"index2 constraint uses an algebraic variable",
       Semi("index2", [](Json& s) { s["constraints"] = {"x - y"}; }), "constraints[0]",
       "may not use algebraic variable 'y' (an index-2 constraint g(x,t)", 5},
      {"index1 rhs unknown name", Semi("index1", [](Json& s) { s["rhs"][1] = "kk*x"; }), "rhs[1]",
       "unknown name 'kk' (did you mean 'k'?)", 1},
  };
}

std::string Implicit(const std::function<void(Json&)>& change) {
  Json spec = ImplicitPendulumSpec();
  change(spec);
  return spec.dump();
}

// The implicit form: its fields, the der() rule, equations, and what the structural analysis
// refuses (columns are 1-based positions in the equation text).
std::vector<Case> ImplicitCases() {
  auto equation = [](std::size_t i, const std::string& text) {
    return [i, text](Json& s) { s["equations"][i] = text; };
  };
  return {
      {"implicit form misspelt", Implicit([](Json& s) { s["form"] = "implict"; }), "form",
       "unknown form 'implict' (did you mean 'implicit'?)"},
      {"implicit without variables", Implicit([](Json& s) { s.erase("variables"); }),
       "variables", "required field is missing"},
      {"implicit without equations", Implicit([](Json& s) { s.erase("equations"); }),
       "equations", "required field is missing"},
      {"implicit variables not a list", Implicit([](Json& s) { s["variables"] = "x"; }),
       "variables", "must be an array, not a string"},
      {"implicit no variables", Implicit([](Json& s) {
         s["variables"] = Json::array();
         s["equations"] = Json::array();
         s.erase("initial");
         s.erase("outputs");
       }),
       "variables", "the model has no variables"},
      {"implicit duplicate variable", Implicit([](Json& s) { s["variables"][4] = "x"; }),
       "variables[4]", "name 'x' is already used by variables[0]"},
      {"implicit equation missing", Implicit([](Json& s) { s["equations"].erase(4); }),
       "equations", "has 4 equations but there are 5 variables"},
      {"implicit constraints field", Implicit([](Json& s) { s["constraints"] = {"x"}; }),
       "constraints", "write each constraint as one of the equations"},
      {"implicit inequalities", Implicit([](Json& s) { s["inequalities"] = {"y + 0.9"}; }),
       "inequalities", "form 'implicit' does not support inequality constraints yet"},
      {"implicit with an index field", Implicit([](Json& s) { s["rhs"] = {"u"}; }), "rhs",
       "does not belong to form 'implicit'"},
      {"implicit with a mechanical field", Implicit([](Json& s) { s["mass"] = {"m"}; }), "mass",
       "does not belong to form 'implicit'"},
      {"der of a parameter", Implicit(equation(2, "der(m)*der(u) = 2*x*lam")), "equations[2]",
       "der() applies to the model's variables only; 'm' is a parameter (constant in t)", 5},
      {"der of der", Implicit(equation(0, "der(der(x)) = u")), "equations[0]",
       "only first derivatives may be written: der(der(x))", 9},
      {"der of t", Implicit(equation(0, "der(x) = u + der(t)")), "equations[0]",
       "der(t) is 1", 18},
      {"der of an expression", Implicit(equation(0, "der(x + y) = u")), "equations[0]",
       "der", 7},
      {"der of an unknown name", Implicit(equation(1, "der(yy) = v")), "equations[1]",
       "unknown name 'yy' (did you mean 'y'?)", 5},
      {"der of a definition", Implicit([](Json& s) {
         s["definitions"] = {{"r2", "x^2 + y^2"}};
         s["equations"][4] = {{"name", "rod"}, {"expr", "der(r2) = 0"}};
       }),
       "equations[4].expr", "'r2' is a definition (write der() of the variables inside", 5},
      {"unknown name in an equation", Implicit(equation(2, "m*der(u) = 2*x*lamb")),
       "equations[2]", "unknown name 'lamb' (did you mean 'lam'?)", 16},
      {"two equals signs", Implicit(equation(0, "der(x) = u = v")), "equations[0]", "'='",
       12},
      {"equation not an expression", Implicit([](Json& s) { s["equations"][1] = true; }),
       "equations[1]", "must be an expression (a string or a number), not a boolean"},
      {"named equation without expr", Implicit([](Json& s) {
         s["equations"][3] = {{"name", "vertical"}};
       }),
       "equations[3].expr", "required field is missing"},
      {"named equation field typo", Implicit([](Json& s) {
         s["equations"][3] = {{"name", "vertical"}, {"exp", "m*der(v) = -m*g + 2*y*lam"}};
       }),
       "equations[3].exp", "unknown field 'exp' (did you mean 'expr'?)"},
      {"equation named like a variable", Implicit([](Json& s) {
         s["equations"][3]["name"] = "lam";
       }),
       "equations[3].name", "name 'lam' is already used by variables[4]"},
      {"equation name used as a value", Implicit([](Json& s) {
         s["equations"][4] = {{"name", "rod"}, {"expr", "x^2 + y^2 = l^2 + vertical"}};
       }),
       "equations[4].expr", "'vertical' is a constraint name, not a value", 19},
      {"variable in no equation", Implicit([](Json& s) {
         s["equations"][2] = "m*der(u) = 2*x";
         s["equations"][3] = {{"name", "vertical"}, {"expr", "m*der(v) = -m*g + 2*y"}};
       }),
       "equations", "variable 'lam' appears in no equation"},
      {"equation written twice", Implicit([](Json& s) {
         s["equations"][1] = "der(x) = u";
       }),
       "equations", "every variable needs an equation that determines it"},
      {"output uses the derivative of an algebraic variable", Implicit([](Json& s) {
         s["outputs"]["rate"] = "der(lam)";
       }),
       "outputs.rate", "uses der(lam), which the reduced system does not know"},
      {"initial value of an unknown variable", Implicit([](Json& s) {
         s["initial"]["lamb"] = 0;
       }),
       "initial.lamb", "unknown variable 'lamb' (did you mean 'lam'?)"},
  };
}

class MalformedSpecTest : public ::testing::TestWithParam<Case> {};

TEST_P(MalformedSpecTest, ReportsTheProblemWhereItIs) {
  const Case& c = GetParam();
  const ModelResult result = ParseModel(c.spec);
  ASSERT_FALSE(result.ok()) << c.label;
  EXPECT_EQ(result.model, nullptr);
  bool found = false;
  for (const SpecProblem& problem : result.problems) {
    if (problem.path == c.path && problem.message.find(c.message) != std::string::npos &&
        (c.column == 0 || problem.column == c.column)) {
      found = true;
    }
  }
  EXPECT_TRUE(found) << c.label << ": expected '" << c.path << "' col " << c.column << ": '"
                     << c.message << "', got:\n"
                     << result.ErrorText();
}

std::string CaseName(const ::testing::TestParamInfo<Case>& param_info) {
  std::string name;
  for (char ch : param_info.param.label) {
    name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Table, MalformedSpecTest, ::testing::ValuesIn(Cases()), CaseName);
INSTANTIATE_TEST_SUITE_P(Implicit, MalformedSpecTest, ::testing::ValuesIn(ImplicitCases()),
                         CaseName);

TEST(MalformedSpecTableTest, HasAtLeastThirtyCases) { EXPECT_GE(Cases().size(), 30u); }
TEST(MalformedSpecTableTest, HasAtLeastTwentyImplicitCases) {
  EXPECT_GE(ImplicitCases().size(), 20u);
}

}  // namespace
}  // namespace tether::model
