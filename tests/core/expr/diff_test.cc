#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "tether/expr/expr.h"
#include "tether/expr/parse.h"

namespace tether::expr {
namespace {

Expr P(Context& c, const std::string& text) {
  const ParseResult r = Parse(c, text);
  EXPECT_TRUE(r.ok()) << text << ": " << Describe(r.error);
  return r.expr;
}

// f(x, y) with y fixed, as a function of x.
double At(const Context& c, Expr e, double x, double y) {
  return c.Evaluate(e, [&](Expr s) { return c.symbol_name(s) == "x" ? x : y; });
}

struct RuleCase {
  const char* text;   // f(x, y), differentiated with respect to x
  double x_lo, x_hi;  // sample domain of x, inside the domain of f and away from kinks
  double y_lo, y_hi;  // sample domain of y
};

// One case per rule (and per operand position for the binary ones), then compositions.
const RuleCase kRules[] = {
    {"x + y", -2, 2, -2, 2},
    {"y - x", -2, 2, -2, 2},
    {"x * y", -2, 2, -2, 2},
    {"x / y", -2, 2, 0.5, 2},
    {"y / x", 0.5, 2, -2, 2},
    {"x^3", -2, 2, 0, 1},
    {"x^-2", 0.5, 2, 0, 1},
    {"x^2.5", 0.2, 2, 0, 1},
    {"x^y", 0.2, 2, -2, 2},
    {"y^x", -2, 2, 0.2, 2},
    {"x^x", 0.2, 2, 0, 1},
    {"pow(x, 0.5)", 0.2, 2, 0, 1},
    {"-x", -2, 2, 0, 1},
    {"sin(x)", -3, 3, 0, 1},
    {"cos(x)", -3, 3, 0, 1},
    {"tan(x)", -1.2, 1.2, 0, 1},
    {"asin(x)", -0.9, 0.9, 0, 1},
    {"acos(x)", -0.9, 0.9, 0, 1},
    {"atan(x)", -3, 3, 0, 1},
    {"atan2(x, y)", -2, 2, 0.3, 2},
    {"atan2(y, x)", -2, 2, 0.3, 2},
    {"atan2(y, x)", 0.3, 2, -2, 2},
    {"sinh(x)", -2, 2, 0, 1},
    {"cosh(x)", -2, 2, 0, 1},
    {"tanh(x)", -2, 2, 0, 1},
    {"exp(x)", -2, 2, 0, 1},
    {"log(x)", 0.2, 3, 0, 1},
    {"sqrt(x)", 0.2, 3, 0, 1},
    {"abs(x)", 0.1, 2, 0, 1},
    {"abs(x)", -2, -0.1, 0, 1},
    {"sign(x) * x^2", -2, -0.1, 0, 1},
    {"sign(x) * x^2", 0.1, 2, 0, 1},
    {"min(x, y)", -2, -0.1, 0.1, 2},
    {"min(x, y)", 0.1, 2, -2, -0.1},
    {"max(x, y)", -2, -0.1, 0.1, 2},
    {"max(x, y)", 0.1, 2, -2, -0.1},
    {"min(x^2, y*x)", 1.1, 2, 0.1, 0.9},
    {"max(x^2, y*x)", 1.1, 2, 0.1, 0.9},
    {"select(x - y, x^2, y*x)", 0.1, 1, 1.2, 2},
    {"select(x - y, x^2, y*x)", 1.2, 2, 0.1, 1},
    {"sin(x*y)^2 / (1 + x^2)", -2, 2, -2, 2},
    {"exp(-x^2) * cos(3*x) - log(1 + x^2*y^2)", -2, 2, -2, 2},
    {"sqrt(x^2 + y^2) * atan2(y, x)", 0.3, 2, -2, 2},
    {"x^2 + y^2 - 2.5^2", -2, 2, -2, 2},
    {"tanh(sinh(x)) * cosh(x/y) + asin(x/3)", -2, 2, 1, 2},
};

// Central differences D_h f = (f(x+h) − f(x−h)) / 2h have truncation error
// h²/6 · |f'''(ξ)| and rounding error ≤ 2·ε_f / 2h = ε_f / h, where ε_f ≈ k·u·max|f| is the
// error of one evaluation of f (k ≈ the number of operations; we take k = 16, u = 2⁻⁵³).
// With h = 1e-5·max(1, |x|) the truncation term is ~1e-10·|f'''| and the rounding term
// ~2e-10·max|f|. f''' is estimated independently of Diff by a wide third difference
// (f(x+2H) − 2f(x+H) + 2f(x−H) − f(x−2H)) / 2H³ with H = 1e-2, and a factor 10 covers
// ξ ≠ x and the estimate's own error. The symbolic derivative evaluated in floating point
// has its own relative error ~k·u, covered by 1e-13·|f'|.
TEST(DiffTest, EveryRuleAgreesWithCentralDifferences) {
  std::mt19937 rng(1201);
  for (const RuleCase& rule : kRules) {
    Context c;
    const Expr f = P(c, rule.text);
    const Expr df = c.Diff(f, c.Symbol("x"));
    std::uniform_real_distribution<double> xs(rule.x_lo, rule.x_hi);
    std::uniform_real_distribution<double> ys(rule.y_lo, rule.y_hi);
    for (int trial = 0; trial < 20; ++trial) {
      double x = xs(rng);
      const double y = ys(rng);
      const double H = 1e-2;
      // Keep the wide stencil inside the domain (the sampled interval is inside it).
      x = std::clamp(x, rule.x_lo + 2 * H, rule.x_hi - 2 * H);
      const double h = 1e-5 * std::max(1.0, std::fabs(x));
      const double central = (At(c, f, x + h, y) - At(c, f, x - h, y)) / (2 * h);
      const double third = (At(c, f, x + 2 * H, y) - 2 * At(c, f, x + H, y) +
                            2 * At(c, f, x - H, y) - At(c, f, x - 2 * H, y)) /
                           (2 * H * H * H);
      double f_max = 0;
      for (double p : {x - h, x, x + h}) f_max = std::max(f_max, std::fabs(At(c, f, p, y)));
      const double u = std::numeric_limits<double>::epsilon() / 2;
      const double symbolic = At(c, df, x, y);
      const double tolerance =
          10 * (h * h / 6 * std::fabs(third) + 16 * u * f_max / h) + 1e-13 * std::fabs(symbolic);
      EXPECT_NEAR(symbolic, central, tolerance)
          << rule.text << " at x = " << x << ", y = " << y << "; d/dx = " << c.ToString(df);
    }
  }
}

struct ExactCase {
  const char* f;
  const char* df;  // d f / dx as the simplifier leaves it
};

// Derivatives stay small: the simplifier removes the zero and unit factors the rules produce.
const ExactCase kExact[] = {
    {"x^2", "2*x"},
    {"3*x + y", "3"},
    {"x*y", "y"},
    {"y", "0"},
    {"sin(x)", "cos(x)"},
    {"exp(x)", "exp(x)"},
    {"log(x)", "1/x"},
    {"x^2 + y^2 - l^2", "2*x"},
    {"2^x", "2^x*log(2)"},
    {"abs(x)", "sign(x)"},
    {"sign(x)", "0"},
    {"floor(x)", "0"},
    {"mod(x, y)", "1"},  // x − y·floor(x/y): floor's derivative is 0 between its jumps
    {"min(x, y)", "select(x - y, 0, 1)"},
    {"max(x, y)", "select(y - x, 0, 1)"},
};

TEST(DiffTest, DerivativesAreSimplified) {
  Context c;
  const Expr x = c.Symbol("x");
  for (const ExactCase& e : kExact) {
    const Expr df = c.Diff(P(c, e.f), x);
    EXPECT_EQ(df, P(c, e.df)) << "d/dx " << e.f << " = " << c.ToString(df);
  }
}

TEST(DiffTest, NonSmoothRulesAtTiesAndZero) {
  Context c;
  const Expr x = c.Symbol("x");
  // d|x|/dx = sign(0) = 0 at 0; min/max ties take the first operand's derivative (expr.h).
  EXPECT_EQ(At(c, c.Diff(P(c, "abs(x)"), x), 0.0, 0.0), 0.0);
  EXPECT_EQ(At(c, c.Diff(P(c, "min(x, 2*y)"), x), 1.0, 0.5), 1.0);
  EXPECT_EQ(At(c, c.Diff(P(c, "min(2*y, x)"), x), 1.0, 0.5), 0.0);
  EXPECT_EQ(At(c, c.Diff(P(c, "max(x, 2*y)"), x), 1.0, 0.5), 1.0);
  EXPECT_EQ(At(c, c.Diff(P(c, "max(2*y, x)"), x), 1.0, 0.5), 0.0);
}

TEST(DiffTest, DifferentiatesWithRespectToTime) {
  Context c;
  const Expr t = c.Symbol("t");
  EXPECT_EQ(c.Diff(P(c, "x^2 + y^2 - (1 + t^2)"), t), P(c, "-(2*t)"));
  EXPECT_EQ(c.Diff(P(c, "x^2"), t), c.Constant(0));
}

// Memoization: a DAG with 2^60 paths differentiates in time linear in its 122 nodes.
TEST(DiffTest, SharedSubexpressionsAreDifferentiatedOnce) {
  Context c;
  const Expr x = c.Symbol("x");
  Expr chain = x;
  for (int k = 0; k < 60; ++k) chain = c.Mul(chain, c.Add(chain, c.Constant(1)));
  const Expr d = c.Diff(chain, x);
  EXPECT_LT(c.NodeCount(d), 1000u);
}

// A 20000-term sum is a chain 20000 deep; Diff, NodeCount and ToString do not recurse on it.
TEST(DiffTest, DeepChainsDoNotOverflowTheStack) {
  Context c;
  const Expr x = c.Symbol("x");
  Expr sum = c.Constant(0);
  for (int i = 0; i < 20000; ++i) sum = c.Add(sum, c.Mul(c.Symbol("y" + std::to_string(i)), x));
  const Expr d = c.Diff(sum, x);
  EXPECT_EQ(c.Depth(d), 20000u);
  EXPECT_GT(c.ToString(d).size(), 20000u);
}

}  // namespace
}  // namespace tether::expr
