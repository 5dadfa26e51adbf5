#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/expr/random_tree.h"
#include "tether/expr/expr.h"
#include "tether/expr/parse.h"

namespace tether::expr {
namespace {

Expr P(Context& c, const std::string& text) {
  const ParseResult r = Parse(c, text);
  EXPECT_TRUE(r.ok()) << text << ": " << Describe(r.error);
  return r.expr;
}

TEST(ToStringTest, PrintsConservativeInfix) {
  Context c;
  EXPECT_EQ(c.ToString(P(c, "-x^2")), "-x^2");
  EXPECT_EQ(c.ToString(P(c, "a - (b - c)")), "a - (b - c)");
  EXPECT_EQ(c.ToString(P(c, "a - b - c")), "a - b - c");
  EXPECT_EQ(c.ToString(P(c, "a/(b*c)")), "a/(b*c)");
  EXPECT_EQ(c.ToString(P(c, "(x^y)^z")), "(x^y)^z");
  EXPECT_EQ(c.ToString(P(c, "x^(y^z)")), "x^(y^z)");
  EXPECT_EQ(c.ToString(P(c, "x*(-2)")), "(-2)*x");
  EXPECT_EQ(c.ToString(P(c, "atan2(y, x + 1)")), "atan2(y, x + 1)");
  EXPECT_EQ(c.ToString(P(c, "0.1")), "0.10000000000000001");  // max_digits10
  EXPECT_EQ(c.ToString(P(c, "x - 2")), "x - 2");
  EXPECT_EQ(c.ToString(P(c, "2 + x")), "x + 2");
  EXPECT_EQ(c.ToString(P(c, "2 - x")), "2 - x");
  EXPECT_EQ(c.ToString(P(c, "(a - b) - 0.5")), "a - b - 0.5");
}

// Text from ToString parses back to the very node (same id) in the same context, and to an
// expression of the same value in a fresh one.
TEST(ToStringTest, RoundTripsRandomExpressions) {
  const std::vector<std::string> names = {"x", "y", "z"};
  for (std::uint32_t seed = 0; seed < 200; ++seed) {
    testing::TreeFactory factory(5000 + seed, 3, /*with_simplifiable=*/true);
    const auto tree = factory.Make(6);
    Context c;
    const Expr e = testing::Build(c, *tree, names);
    const std::string text = c.ToString(e);
    EXPECT_EQ(P(c, text), e) << text;
  }
}

TEST(ToStringTest, RoundTripsEveryFunctionAndItsDerivatives) {
  Context c;
  const Expr x = c.Symbol("x");
  for (const char* text :
       {"sin(x)*cos(y) - tan(x)/asin(y)", "acos(x)^atan(y)", "atan2(x, -y) + sinh(x)*cosh(y)",
        "tanh(x) - exp(-x)*log(y)", "sqrt(abs(x)) + sign(y)", "min(x, y)^max(x, 2)",
        "select(x - y, x^2, -y)", "pow(x, y)^-2.5", "-(x + y)*1e-300", "2^-x^2", "x - -y",
        "-x*y/(-z)"}) {
    const Expr e = P(c, text);
    for (Expr variant : {e, c.Diff(e, x)}) {
      const std::string printed = c.ToString(variant);
      EXPECT_EQ(P(c, printed), variant) << text << " printed as " << printed;
    }
  }
}

// d_{k+1} = d_k·d_k for 40 steps has 41 nodes but a tree of 2⁴⁰ leaves: the bounded form
// stops after max_length characters instead of building a terabyte string.
TEST(ToStringTest, BoundedFormCutsLongText) {
  Context c;
  Expr d = c.Symbol("x");
  for (int k = 0; k < 40; ++k) d = c.Mul(d, c.Add(d, c.Constant(1)));
  const std::string text = c.ToString(d, 80);
  EXPECT_EQ(text.size(), 83u);
  EXPECT_EQ(text.substr(80), "...");
  EXPECT_EQ(c.ToString(c.Symbol("x"), 80), "x");
  EXPECT_EQ(c.ToString(P(c, "x + y"), 3), "x +...");
}

TEST(ToStringTest, NonFiniteConstantsPrintAsDivisions) {
  Context c;
  EXPECT_EQ(c.ToString(c.Constant(INFINITY)), "(1/0)");
  EXPECT_EQ(c.ToString(c.Constant(-INFINITY)), "(-1/0)");
  EXPECT_EQ(c.ToString(c.Constant(NAN)), "(0/0)");
}

}  // namespace
}  // namespace tether::expr
