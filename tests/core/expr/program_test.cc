#include "tether/expr/program.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/expr/allocation_counter.h"
#include "core/expr/random_tree.h"
#include "tether/expr/parse.h"

namespace tether::expr {
namespace {

using ::testing::HasSubstr;

Expr P(Context& c, const std::string& text) {
  const ParseResult r = Parse(c, text);
  EXPECT_TRUE(r.ok()) << text << ": " << Describe(r.error);
  return r.expr;
}

std::vector<Expr> Symbols(Context& c, const std::vector<std::string>& names) {
  std::vector<Expr> symbols;
  for (const std::string& name : names) symbols.push_back(c.Symbol(name));
  return symbols;
}

// Tree evaluation of each output at `in`, inputs bound by position.
std::vector<double> TreeValues(const Context& c, const std::vector<Expr>& outputs,
                               const std::vector<Expr>& inputs, const std::vector<double>& in) {
  std::vector<double> values;
  for (Expr e : outputs) {
    values.push_back(c.Evaluate(e, [&](Expr s) {
      for (std::size_t i = 0; i < inputs.size(); ++i) {
        if (inputs[i] == s) return in[i];
      }
      ADD_FAILURE() << "unbound symbol " << c.symbol_name(s);
      return 0.0;
    }));
  }
  return values;
}

// The pendulum of the seed (chapter 11) as the index reduction sees it, in the mechanical
// form: f, Φ, Φ_q, h = Φ_q v, a = (h_q) v, plus the energy.
struct Pendulum {
  Context c;
  std::vector<Expr> inputs;
  std::vector<Expr> outputs;

  Pendulum() {
    inputs = Symbols(c, {"x", "y", "vx", "vy", "m", "l", "g", "t"});
    const Expr x = inputs[0], y = inputs[1], vx = inputs[2], vy = inputs[3];
    const Expr phi = P(c, "x^2 + y^2 - l^2");
    const Expr phi_x = c.Diff(phi, x), phi_y = c.Diff(phi, y);
    const Expr h = c.Add(c.Mul(phi_x, vx), c.Mul(phi_y, vy));
    const Expr a = c.Add(c.Mul(c.Diff(h, x), vx), c.Mul(c.Diff(h, y), vy));
    outputs = {c.Constant(0),
               P(c, "-m*g"),
               P(c, "m"),
               c.Constant(0),
               P(c, "m"),
               phi,
               phi_x,
               phi_y,
               h,
               a,
               P(c, "0.5*m*(vx^2 + vy^2) + m*g*y"),
               x};
  }
};

TEST(ProgramTest, PendulumEqualsTreeEvaluation) {
  Pendulum p;
  Program program = Compile(p.c, p.outputs, p.inputs);
  ASSERT_EQ(program.num_inputs(), p.inputs.size());
  ASSERT_EQ(program.num_outputs(), p.outputs.size());
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> value(-3.0, 3.0);
  std::vector<double> out(program.num_outputs());
  for (int trial = 0; trial < 100; ++trial) {
    std::vector<double> in(p.inputs.size());
    for (double& v : in) v = value(rng);
    program.Evaluate(in, out);
    const std::vector<double> expected = TreeValues(p.c, p.outputs, p.inputs, in);
    // Same operations in the same order except x^2 → x·x: x·x is correctly rounded and
    // std::pow within 1 ulp, so each square differs by ≤ ε·x² ≤ 9ε (|x| ≤ 3). The outputs with
    // squares sum at most 3 of them with coefficients ≤ 1.5 (Φ: 3·9ε; energy: 1.5·2·9ε), so
    // they agree to 27ε; the other outputs are bit-identical.
    constexpr double kTolerance = 27 * std::numeric_limits<double>::epsilon();
    for (std::size_t k = 0; k < out.size(); ++k) {
      EXPECT_NEAR(out[k], expected[k], kTolerance) << k;
    }
  }
}

// Common subexpressions are computed once across outputs: compiling together takes fewer
// instructions than compiling each output alone.
TEST(ProgramTest, SharesSubexpressionsAcrossOutputs) {
  Pendulum p;
  const Program together = Compile(p.c, p.outputs, p.inputs);
  std::size_t separate = 0;
  for (Expr e : p.outputs) {
    const Expr one[] = {e};
    separate += Compile(p.c, one, p.inputs).num_instructions();
  }
  EXPECT_LT(together.num_instructions(), separate);
  // Exactly one instruction per distinct operation node reachable from the outputs.
  Context& c = p.c;
  const Expr s = P(c, "sin(x*y)");
  const Expr outputs[] = {c.Add(s, c.Symbol("x")), c.Mul(s, c.Symbol("y")), s};
  const Program shared = Compile(c, outputs, p.inputs);
  EXPECT_EQ(shared.num_instructions(), 4u);  // x*y, sin, +, *
}

// Random trees compile to programs that match the tree evaluation within the running error
// bound of random_tree.h (both results within `bound` of the exact value: |Δ| ≤ 2·bound), with
// both backends: Evaluate (native code where the platform has it) and Interpret, which must
// agree bit for bit (the same operations in the same order, native_code.h; the trees' values
// are finite).
TEST(ProgramTest, RandomExpressionsEqualTreeEvaluation) {
  const std::vector<std::string> names = {"a", "b", "c", "d"};
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> coordinate(-2.0, 2.0);
  for (std::uint32_t seed = 0; seed < 50; ++seed) {
    testing::TreeFactory factory(1000 + seed, 4, /*with_simplifiable=*/false);
    std::vector<std::unique_ptr<testing::Tree>> trees;
    Context c;
    std::vector<Expr> outputs;
    const std::vector<Expr> inputs = Symbols(c, names);
    for (int k = 0; k < 6; ++k) {
      trees.push_back(factory.Make(6));
      outputs.push_back(testing::Build(c, *trees.back(), names));
    }
    // Derivatives add realistic sharing (they reuse the nodes they differentiate).
    outputs.push_back(c.Diff(outputs[0], inputs[0]));
    outputs.push_back(c.Diff(outputs[1], inputs[1]));
    Program program = Compile(c, outputs, inputs);
    std::vector<double> out(outputs.size());
    for (int trial = 0; trial < 10; ++trial) {
      const std::vector<double> in = {coordinate(rng), coordinate(rng), coordinate(rng),
                                      coordinate(rng)};
      program.Evaluate(in, out);
      std::vector<double> interpreted(outputs.size());
      program.Interpret(in, interpreted);
      EXPECT_EQ(out, interpreted) << "seed " << seed;
      EXPECT_EQ(program.has_native_code(), NativeCodeEnabled());
      const std::vector<double> expected = TreeValues(c, outputs, inputs, in);
      for (std::size_t k = 0; k < trees.size(); ++k) {
        const testing::Bounded b = testing::EvaluateTree(*trees[k], in);
        EXPECT_LE(std::fabs(out[k] - b.value), 2 * b.error) << "seed " << seed << " output " << k;
      }
      // Derivatives: the same running error bound, evaluated over their DAG.
      std::unordered_map<std::uint32_t, testing::Bounded> memo;
      auto value_of = [&](Expr symbol) {
        return in[static_cast<std::size_t>(c.symbol_name(symbol)[0] - 'a')];
      };
      for (std::size_t k = trees.size(); k < out.size(); ++k) {
        const testing::Bounded b = testing::EvaluateBounded(c, outputs[k], value_of, &memo);
        EXPECT_NEAR(out[k], expected[k], 2 * b.error) << "seed " << seed;
      }
    }
  }
}

struct PowerCase {
  const char* text;
  double x;
};

// Each special form of a constant power (square, cube, binary powering, reciprocal, square
// root, reciprocal square root) and the generic pow, against std::pow: binary powering has a
// relative error ≤ (|n| − 1)·u (+u for the reciprocal of a negative n), √ and 1/√ round at
// most twice (≤ 2u), std::pow is within 1 ulp (≤ 2u): they differ by ≤ (max(|n|, 2) + 2)·u.
TEST(ProgramTest, ConstantPowersMatchStdPow) {
  const PowerCase cases[] = {{"x^2", -1.7},   {"x^3", -1.3},  {"x^4", 1.1},   {"x^7", -0.9},
                             {"x^-3", 1.9},   {"x^16", 1.01}, {"x^-1", 0.3},  {"x^0.5", 2.0},
                             {"x^-0.5", 2.0}, {"x^2.5", 1.7}, {"x^17", 1.01}, {"x^0.5", -1.0}};
  for (const PowerCase& pc : cases) {
    Context c;
    const Expr outputs[] = {P(c, pc.text)};
    const Expr inputs[] = {c.Symbol("x")};
    Program program = Compile(c, outputs, inputs);
    double out = 0;
    const double in = pc.x;
    program.Evaluate({&in, 1}, {&out, 1});
    const double n = c.constant_value(c.operands(outputs[0])[1]);
    const double expected = std::pow(pc.x, n);
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(out)) << pc.text;
    } else {
      const double u = std::numeric_limits<double>::epsilon() / 2;
      EXPECT_NEAR(out, expected, (std::max(std::fabs(n), 2.0) + 2) * u * std::fabs(expected)) << pc.text;
    }
  }
}

TEST(ProgramTest, OutputsThatAreInputsOrConstants) {
  Context c;
  const std::vector<Expr> inputs = Symbols(c, {"x", "y"});
  const Expr outputs[] = {inputs[1], c.Constant(4.5), inputs[0], P(c, "x + y")};
  Program program = Compile(c, outputs, inputs);
  EXPECT_EQ(program.num_instructions(), 1u);
  const double in[] = {2.0, 3.0};
  double out[4] = {};
  program.Evaluate(in, out);
  EXPECT_EQ(out[0], 3.0);
  EXPECT_EQ(out[1], 4.5);
  EXPECT_EQ(out[2], 2.0);
  EXPECT_EQ(out[3], 5.0);
}

TEST(ProgramTest, EveryOperationMatchesTreeEvaluation) {
  Context c;
  const std::vector<Expr> inputs = Symbols(c, {"x", "y", "z"});
  std::vector<Expr> outputs;
  for (const char* text :
       {"x + y",       "x - y",   "x*y",     "x/y",       "x^y",       "-x",
        "sin(x)",      "cos(x)",  "tan(x)",  "asin(z)",   "acos(z)",   "atan(x)",
        "atan2(x, y)", "sinh(x)", "cosh(x)", "tanh(x)",   "exp(x)",    "log(y)",
        "sqrt(y)",     "abs(x)",  "sign(x)", "min(x, y)", "max(x, y)", "select(x - y, z, x)"}) {
    outputs.push_back(P(c, text));
  }
  Program program = Compile(c, outputs, inputs);
  std::vector<double> out(outputs.size());
  for (const std::vector<double>& in : std::vector<std::vector<double>>{
           {0.7, 1.3, 0.2}, {-1.1, 0.4, -0.6}, {2.0, 2.0, 0.9}, {0.0, 1.0, 0.0}}) {
    program.Evaluate(in, out);
    const std::vector<double> expected = TreeValues(c, outputs, inputs, in);
    for (std::size_t k = 0; k < out.size(); ++k) {
      // The same libm call on the same operands: the same bits (or both NaN).
      if (std::isnan(expected[k])) {
        EXPECT_TRUE(std::isnan(out[k])) << c.ToString(outputs[k]);
      } else {
        EXPECT_EQ(out[k], expected[k]) << c.ToString(outputs[k]);
      }
    }
  }
}

// A product used only by a sum, difference or negation is fused into it (one instruction),
// still rounded before the sum as in the tree: the same bits.
TEST(ProgramTest, FusedProductsMatchTreeEvaluationExactly) {
  for (const char* text : {"x*y + z", "x*y - z", "z - x*y", "-(x*y)", "z + x*y"}) {
    Context c;
    const std::vector<Expr> inputs = Symbols(c, {"x", "y", "z"});
    const std::vector<Expr> outputs = {P(c, text)};
    Program program = Compile(c, outputs, inputs);
    EXPECT_EQ(program.num_instructions(), 1u) << text << "\n" << program.Disassemble();
    for (const std::vector<double>& in : std::vector<std::vector<double>>{
             {0.1, 0.7, -0.3}, {1e10, 3.3, -2.2e10}, {-1.5, 2.5, 3.75}}) {
      double out = 0;
      program.Evaluate(in, {&out, 1});
      EXPECT_EQ(out, TreeValues(c, outputs, inputs, in)[0]) << text;
    }
  }
  // A product that is also used elsewhere, or is an output, is computed once, not fused.
  Context c;
  const std::vector<Expr> inputs = Symbols(c, {"x", "y", "z"});
  const std::vector<Expr> outputs = {P(c, "x*y + z"), P(c, "x*y")};
  EXPECT_EQ(Compile(c, outputs, inputs).num_instructions(), 2u);
}

TEST(ProgramTest, NonFiniteValuesPropagate) {
  Context c;
  const std::vector<Expr> inputs = Symbols(c, {"x"});
  const Expr outputs[] = {P(c, "log(x)"), P(c, "1/x"), P(c, "sqrt(x) + 1")};
  Program program = Compile(c, outputs, inputs);
  const double in[] = {0.0};
  double out[3];
  program.Evaluate(in, out);
  EXPECT_TRUE(std::isinf(out[0]));
  EXPECT_TRUE(std::isinf(out[1]));
  const double negative[] = {-1.0};
  program.Evaluate(negative, out);
  EXPECT_TRUE(std::isnan(out[0]));
  EXPECT_TRUE(std::isnan(out[2]));
}

TEST(ProgramTest, EvaluateDoesNotAllocate) {
  Pendulum p;
  Program program = Compile(p.c, p.outputs, p.inputs);
  const std::vector<double> in = {0.86, 2.35, 0.1, -0.2, 2.0, 2.5, 9.81, 0.0};
  std::vector<double> out(program.num_outputs());
  const long before = tether::testing::AllocationCount();
  for (int i = 0; i < 1000; ++i) program.Evaluate(in, out);
  EXPECT_EQ(tether::testing::AllocationCount(), before);
}

// Register reuse by liveness: a long chain needs few registers, not one per node.
TEST(ProgramTest, TemporariesAreReused) {
  Context c;
  Expr e = c.Symbol("x");
  for (int i = 0; i < 1000; ++i) e = c.Unary(Op::kSin, c.Add(e, c.Constant(1)));
  const Expr outputs[] = {e};
  const Expr inputs[] = {c.Symbol("x")};
  Program program = Compile(c, outputs, inputs);
  EXPECT_EQ(program.num_instructions(), 2000u);
  // One input, one constant, and the chain needs a single temporary (each value dies at its
  // only use, freeing its register for the result).
  EXPECT_THAT(program.Disassemble(), HasSubstr("3 registers"));
}

TEST(ProgramTest, DisassembleListsConstantsInstructionsAndOutputs) {
  Context c;
  const std::vector<Expr> inputs = Symbols(c, {"x", "y"});
  const Expr outputs[] = {P(c, "2.5*x^2 + y")};
  const Program program = Compile(c, outputs, inputs);
  const std::string text = program.Disassemble();
  EXPECT_THAT(text, HasSubstr("r2 = 2.5"));
  EXPECT_THAT(text, HasSubstr("square r0"));
  EXPECT_THAT(text, HasSubstr("out[0] = r"));
}

TEST(ProgramTest, EmptyProgram) {
  Program program;
  program.Evaluate({}, {});
  EXPECT_EQ(program.num_outputs(), 0u);
}

TEST(ProgramDeathTest, UnboundSymbolAborts) {
  Context c;
  const Expr outputs[] = {P(c, "x + q")};
  const Expr inputs[] = {c.Symbol("x")};
  EXPECT_DEATH(Compile(c, outputs, inputs), "symbol 'q' is not among the inputs");
}

}  // namespace
}  // namespace tether::expr
