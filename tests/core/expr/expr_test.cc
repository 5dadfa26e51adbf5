#include "tether/expr/expr.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/expr/random_tree.h"
#include "tether/expr/parse.h"

namespace tether::expr {
namespace {

Expr P(Context& c, const char* text) {
  const ParseResult r = Parse(c, text);
  EXPECT_TRUE(r.ok()) << text << ": " << Describe(r.error);
  return r.expr;
}

TEST(ContextTest, HashConsingGivesEqualIdsForEqualStructure) {
  Context c;
  const Expr a = P(c, "sin(x)*y + exp(x - y)");
  const std::size_t size = c.size();
  const Expr b = P(c, "sin(x) * y + exp(x-y)");
  EXPECT_EQ(a, b);
  EXPECT_EQ(c.size(), size) << "the second parse must not create nodes";
  EXPECT_EQ(c.Symbol("x"), c.Symbol("x"));
  EXPECT_EQ(c.Constant(2.5), c.Constant(2.5));
  EXPECT_EQ(c.Constant(-0.0), c.Constant(0.0));
  EXPECT_NE(P(c, "x - y"), P(c, "y - x"));
}

TEST(ContextTest, CommutativeOperandsAreCanonical) {
  Context c;
  EXPECT_EQ(P(c, "x + y"), P(c, "y + x"));
  EXPECT_EQ(P(c, "x * y"), P(c, "y * x"));
  const Expr scaled = P(c, "x * 3");
  ASSERT_EQ(c.op(scaled), Op::kMul);
  EXPECT_TRUE(c.is_constant(c.operands(scaled)[0], 3.0)) << "constants come first";
}

struct Simplification {
  const char* text;
  const char* expected;  // parsed in the same context: equal ids mean equal structure
};

// Each rule of the file comment of expr.h, and the extra ones listed there.
const Simplification kSimplifications[] = {
    {"0*x", "0"},
    {"x*0", "0"},
    {"1*x", "x"},
    {"x*1", "x"},
    {"x+0", "x"},
    {"0+x", "x"},
    {"x-0", "x"},
    {"x-x", "0"},
    {"0-x", "-x"},
    {"-1*x", "-x"},
    {"x/1", "x"},
    {"x^0", "1"},
    {"x^1", "x"},
    {"1^x", "1"},
    {"-(-x)", "x"},
    {"2+3", "5"},
    {"2*3^2", "18"},
    {"sin(0)", "0"},
    {"x+x", "2*x"},
    {"x+(-y)", "x-y"},
    {"x-(-y)", "x+y"},
    {"-(x-y)", "y-x"},
    {"2*(3*x)", "6*x"},
    {"1+(2+x)", "3+x"},
    {"x*(1/y)", "x/y"},
    {"(-x)*(-y)", "x*y"},
    {"abs(-x)", "abs(x)"},
    {"abs(abs(x))", "abs(x)"},
    {"min(x, x)", "x"},
    {"max(x, x)", "x"},
    {"select(1, x, y)", "x"},
    {"select(-1, x, y)", "y"},
    {"select(z, x, x)", "x"},
    {"(x*y - y*x)*z + w", "w"},
};

TEST(ContextTest, SimplificationsHaveTheExpectedStructure) {
  Context c;
  for (const Simplification& s : kSimplifications) {
    const Expr e = P(c, s.text);
    const Expr expected = P(c, s.expected);
    EXPECT_EQ(e, expected) << s.text << " gave " << c.ToString(e) << ", expected " << s.expected;
  }
}

TEST(ContextTest, NonFiniteResultsFoldAsIeeeSays) {
  Context c;
  // ieee_test.cc covers the rules; here the constructors directly.
  EXPECT_TRUE(std::isinf(c.constant_value(c.Div(c.Constant(1), c.Constant(0)))));
  EXPECT_TRUE(std::isnan(c.constant_value(c.Unary(Op::kLog, c.Constant(-1)))));
  EXPECT_TRUE(std::isnan(c.constant_value(c.Unary(Op::kSqrt, c.Constant(-1)))));
  EXPECT_TRUE(std::isinf(c.constant_value(c.Unary(Op::kExp, c.Constant(1000)))));
}

// Simplification keeps values: random trees with simplifiable patterns planted in them,
// evaluated directly (unsimplified, with a running error bound) and through the Context.
// Both are within `bound` of the exact value, and the reassociations the Context does are
// covered by the u(|a| + |b|) term of sums (random_tree.h): |difference| ≤ 2·bound.
TEST(ContextTest, SimplificationKeepsValues) {
  const std::vector<std::string> names = {"x", "y", "z"};
  std::mt19937 rng(20261201);
  std::uniform_real_distribution<double> coordinate(-2.0, 2.0);
  for (std::uint32_t seed = 0; seed < 200; ++seed) {
    testing::TreeFactory factory(seed, 3, /*with_simplifiable=*/true);
    const auto tree = factory.Make(7);
    Context c;
    const Expr e = testing::Build(c, *tree, names);
    for (int trial = 0; trial < 5; ++trial) {
      const std::vector<double> x = {coordinate(rng), coordinate(rng), coordinate(rng)};
      const testing::Bounded direct = testing::EvaluateTree(*tree, x);
      const double simplified = c.Evaluate(
          e, [&](Expr s) { return x[static_cast<std::size_t>(c.symbol_name(s)[0] - 'x')]; });
      EXPECT_LE(std::fabs(simplified - direct.value), 2 * direct.error)
          << "seed " << seed << ": " << c.ToString(e);
    }
  }
}

TEST(ContextTest, SubstituteReplacesAllAtOnce) {
  Context c;
  const Expr x = c.Symbol("x");
  const Expr y = c.Symbol("y");
  const std::pair<Expr, Expr> swap[] = {{x, y}, {y, x}};
  EXPECT_EQ(c.Substitute(P(c, "x - 2*y"), swap), P(c, "y - 2*x"));
  const std::pair<Expr, Expr> into_sum[] = {{x, P(c, "a + b")}};
  EXPECT_EQ(c.Substitute(P(c, "x^2 + y"), into_sum), P(c, "(a + b)^2 + y"));
  // Substitution simplifies: x − y with y := x is 0.
  const std::pair<Expr, Expr> collapse[] = {{y, x}};
  EXPECT_TRUE(c.is_constant(c.Substitute(P(c, "x - y"), collapse), 0.0));
  const Expr untouched = P(c, "sin(z)");
  EXPECT_EQ(c.Substitute(untouched, swap), untouched);
}

TEST(ContextTest, ImportMatchesSymbolsByName) {
  Context from;
  const Expr e = P(from, "atan2(y, x) * min(x, 2) + select(x, y, 1) - sign(y)^3");
  Context to;
  const Expr other = P(to, "y + q");  // different ids for the same names
  const Expr imported = to.Import(from, e);
  EXPECT_EQ(to.NodeCount(imported), from.NodeCount(e));
  auto value = [](const Context& c) {
    return [&c](Expr s) { return c.symbol_name(s) == "x" ? 0.7 : -1.3; };
  };
  EXPECT_EQ(to.Evaluate(imported, value(to)), from.Evaluate(e, value(from)));
  EXPECT_TRUE(to.DependsOn(imported, to.Symbol("y")));
  EXPECT_FALSE(to.DependsOn(imported, to.Symbol("q")));
  EXPECT_TRUE(other.valid());
}

// "In order of first appearance" in the canonical form, i.e. in the text of ToString: the
// canonical operand order of + and · may differ from the order of the parsed text.
TEST(ContextTest, FreeSymbolsInOrderOfFirstAppearance) {
  Context c;
  const Expr e = P(c, "y + x*y + sin(z) + x");
  EXPECT_EQ(c.ToString(e), "x + (y + y*x + sin(z))");
  std::vector<std::string> names;
  for (Expr s : c.FreeSymbols(e)) names.push_back(c.symbol_name(s));
  EXPECT_EQ(names, (std::vector<std::string>{"x", "y", "z"}));
  const Expr f = P(c, "sin(z) * w");
  names.clear();
  for (Expr s : c.FreeSymbols(f)) names.push_back(c.symbol_name(s));
  EXPECT_EQ(names, (std::vector<std::string>{"z", "w"}));
  EXPECT_TRUE(c.FreeSymbols(P(c, "2*pi")).empty());
}

TEST(ContextTest, NodeCountAndDepthCountSharedNodesOnce) {
  Context c;
  // x*x + x: nodes x, x*x, the sum; the longest path sum → x*x → x has 3 nodes.
  const Expr e = P(c, "x*x + x");
  EXPECT_EQ(c.NodeCount(e), 3u);
  EXPECT_EQ(c.Depth(e), 3u);
  EXPECT_EQ(c.NodeCount(c.Symbol("x")), 1u);
  EXPECT_EQ(c.Depth(c.Constant(1)), 1u);
  // A doubling chain e_{k+1} = e_k·e_k has 2^k leaves as a tree but k + 1 nodes as a DAG.
  Expr chain = c.Symbol("x");
  for (int k = 0; k < 60; ++k) chain = c.Mul(chain, c.Add(chain, c.Constant(1)));
  EXPECT_EQ(c.NodeCount(chain), 1u + 1u + 60u * 2u);
}

TEST(ContextTest, NodeInspection) {
  Context c;
  const Expr e = P(c, "atan2(y, 2)");
  EXPECT_EQ(c.op(e), Op::kAtan2);
  ASSERT_EQ(c.operands(e).size(), 2u);
  EXPECT_EQ(c.symbol_name(c.operands(e)[0]), "y");
  EXPECT_EQ(c.constant_value(c.operands(e)[1]), 2.0);
  EXPECT_TRUE(c.operands(c.operands(e)[0]).empty());
  EXPECT_EQ(c.operands(P(c, "select(x, y, z)")).size(), 3u);
}

TEST(ContextTest, MovedContextKeepsItsNodes) {
  Context c;
  const Expr e = P(c, "x^2 + 1");
  Context moved = std::move(c);
  EXPECT_EQ(moved.ToString(e), "x^2 + 1");
}

}  // namespace
}  // namespace tether::expr
