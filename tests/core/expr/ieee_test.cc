// IEEE 754 semantics survive simplification (the rules and cases of expr.h): every
// non-finite case stays detectable, and every harmless simplification still happens.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <span>
#include <string>

#include "tether/expr/expr.h"
#include "tether/expr/parse.h"
#include "tether/expr/program.h"

namespace tether::expr {
namespace {

// A constant sub-expression that folds to NaN or ±inf: a parse error at its first column.
struct Refused {
  const char* text;
  int column;
  const char* message;
};

const Refused kRefused[] = {
    {"0/0", 1, "'0/0' is always NaN"},
    {"1/0", 1, "'1/0' is always inf"},
    {"-1/0", 1, "'-1/0' is always -inf"},
    {"0*(1/0)", 4, "'1/0' is always inf"},
    {"0*log(0)", 3, "'log(0)' is always -inf"},
    {"sqrt(-1)*0", 1, "'sqrt(-1)' is always NaN"},
    {"0/(x-x)", 1, "'0/(x-x)' is always NaN"},
    {"(x-x)/(y-y)", 1, "'(x-x)/(y-y)' is always NaN"},
    {"y + exp(1000)", 5, "'exp(1000)' is always inf"},
    {"x + 2^2000", 5, "'2^2000' is always inf"},
    {"acos(2) + x", 1, "'acos(2)' is always NaN"},
    {"x - 1e308*10", 5, "'1e308*10' is always inf"},
};

TEST(IeeeTest, ConstantSubExpressionsThatFoldToNonFiniteAreRefusedWhereTheyStart) {
  for (const Refused& r : kRefused) {
    Context c;
    const ParseResult parsed = Parse(c, r.text);
    ASSERT_FALSE(parsed.ok()) << r.text;
    EXPECT_EQ(parsed.error.column, r.column) << r.text;
    EXPECT_EQ(parsed.error.message.rfind(r.message, 0), 0u)
        << r.text << ": " << parsed.error.message;
    EXPECT_NE(parsed.error.message.find("a sub-expression that is constant must be finite"),
              std::string::npos);
  }
}

TEST(IeeeTest, FoldingFollowsIeee) {
  Context c;
  // 0/0 is NaN (one node whatever the sign bit the division produced), 1/0 is inf.
  const Expr nan = c.Div(c.Constant(0.0), c.Constant(0.0));
  ASSERT_EQ(c.op(nan), Op::kConstant);
  EXPECT_TRUE(std::isnan(c.constant_value(nan)));
  EXPECT_EQ(nan, c.Constant(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_EQ(c.Div(c.Constant(1.0), c.Constant(0.0)),
            c.Constant(std::numeric_limits<double>::infinity()));
  EXPECT_EQ(c.Unary(Op::kLog, c.Constant(0.0)),
            c.Constant(-std::numeric_limits<double>::infinity()));
  // 0·inf folds to NaN: the 0·e rule never sees a constant operand.
  EXPECT_EQ(c.Mul(c.Constant(0.0), c.Constant(std::numeric_limits<double>::infinity())), nan);
  // With the option, the texts ToString prints for them parse back to the same constants.
  const ParseOptions lenient{.non_finite_constants = true};
  for (double v : {std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::quiet_NaN()}) {
    const Expr constant = c.Constant(v);
    const ParseResult parsed = Parse(c, c.ToString(constant), {}, lenient);
    ASSERT_TRUE(parsed.ok()) << c.ToString(constant);
    EXPECT_EQ(parsed.expr, constant) << c.ToString(constant);
  }
}

// An expression that may be non-finite: the rule that would hide it is not applied, and the
// compiled program gives a non-finite value at `bad` and the finite `good_value` at `good`.
struct Kept {
  const char* text;
  double bad;  // value of every symbol where the expression is NaN or ±inf
  double good;
  double good_value;
};

const Kept kKept[] = {
    {"0*log(x)", 0.0, 1.0, 0.0},          // 0·(−inf)
    {"log(x)*0", -1.0, 2.0, 0.0},         // 0·NaN
    {"0*(1/x)", 0.0, 4.0, 0.0},           // 0·inf
    {"0*sqrt(x)", -1.0, 4.0, 0.0},        // 0·NaN
    {"0*asin(x)", 2.0, 0.5, 0.0},         // asin outside [−1, 1]
    {"0*pow(x, 0.5)", -1.0, 4.0, 0.0},    // (−1)^0.5
    {"x*0*exp(x)", 1000.0, 1.0, 0.0},     // exp overflows: 0·inf
    {"0*(x/(x-1))", 1.0, 2.0, 0.0},       // 1/0
    {"log(x) - log(x)", -1.0, 3.0, 0.0},  // NaN − NaN
    {"1/x - 1/x", 0.0, 3.0, 0.0},         // inf − inf
    {"0/x", 0.0, 3.0, 0.0},               // 0/0
    {"x/x", 0.0, 3.0, 1.0},               // 0/0
    {"log(x)/log(x)", 1.0, 3.0, 1.0},     // 0/0
    {"(x-1)/(x-1)", 1.0, 3.0, 1.0},       // 0/0
};

TEST(IeeeTest, PossiblyNonFiniteExpressionsStayDetectable) {
  for (const Kept& k : kKept) {
    Context c;
    const ParseResult parsed = Parse(c, k.text);
    ASSERT_TRUE(parsed.ok()) << k.text << ": " << Describe(parsed.error);
    EXPECT_NE(c.op(parsed.expr), Op::kConstant) << k.text << " became " << c.ToString(parsed.expr);
    const Expr x = c.Symbol("x");
    const Expr outputs[] = {parsed.expr};
    const Expr inputs[] = {x};
    Program program = Compile(c, outputs, inputs);
    double value = 0.0;
    const double bad[] = {k.bad};
    program.Evaluate(bad, std::span<double>(&value, 1));
    EXPECT_FALSE(std::isfinite(value)) << k.text << " at x = " << k.bad << " gave " << value;
    const double good[] = {k.good};
    program.Evaluate(good, std::span<double>(&value, 1));
    EXPECT_EQ(value, k.good_value) << k.text << " at x = " << k.good;
  }
}

// Harmless simplifications: the operand dropped is total (or the rule gives IEEE's own value).
struct Simplified {
  const char* text;
  const char* expected;
};

const Simplified kSimplified[] = {
    {"0*x", "0"},
    {"x*0", "0"},
    {"x - x", "0"},
    {"0*sin(x)*y", "0"},
    {"0*(x^2 + y)", "0"},
    {"(x*y - y*x)*z + w", "w"},
    {"0*min(x, y)", "0"},
    {"0*atan2(x, y)", "0"},
    {"0*select(x, y, z)", "0"},
    {"0*abs(x)*sign(y)", "0"},
    {"(x^3 + cos(y)) - (x^3 + cos(y))", "0"},
    {"x^0", "1"},
    {"sqrt(x)^0", "1"},  // pow(NaN, 0) = 1 in IEEE 754
    {"1^log(x)", "1"},   // pow(1, NaN) = 1
    {"select(log(x), y, y)", "y"},
    {"1 + (2 + x)", "3 + x"},
    {"x + 0", "x"},
    {"log(x)*1", "log(x)"},
    {"sqrt(x)/1", "sqrt(x)"},
    {"-(-log(x))", "log(x)"},
    {"0 + 1/x", "1/x"},
    {"x^1", "x"},
};

TEST(IeeeTest, HarmlessSimplificationsStillHappen) {
  Context c;
  for (const Simplified& s : kSimplified) {
    const ParseResult e = Parse(c, s.text);
    const ParseResult expected = Parse(c, s.expected);
    ASSERT_TRUE(e.ok() && expected.ok()) << s.text;
    EXPECT_EQ(e.expr, expected.expr)
        << s.text << " gave " << c.ToString(e.expr) << ", expected " << s.expected;
  }
}

TEST(IeeeTest, TotalityFollowsTheOperations) {
  Context c;
  auto total = [&c](const char* text) { return c.is_total(Parse(c, text).expr); };
  EXPECT_TRUE(total("x*y + sin(z) - atan2(x, 3)^2"));
  EXPECT_TRUE(total("select(x, min(y, z), abs(x))"));
  EXPECT_FALSE(total("x/y"));
  EXPECT_FALSE(total("x^0.5"));
  EXPECT_FALSE(total("x^y"));
  EXPECT_FALSE(total("exp(x)"));
  EXPECT_FALSE(total("1 + sin(log(x))"));
}

// Diff leaves out the products with a structurally zero derivative instead of building 0·e
// that the context may no longer simplify.
TEST(IeeeTest, DerivativesHaveNoZeroTerms) {
  Context c;
  const Expr x = c.Symbol("x");
  const Expr f = Parse(c, "log(y)*x + sqrt(z)*x^2").expr;
  EXPECT_EQ(c.Diff(f, x), Parse(c, "log(y) + sqrt(z)*(2*x)").expr);
  EXPECT_TRUE(c.is_constant(c.Diff(Parse(c, "log(y)*sqrt(z)").expr, x), 0.0));
  EXPECT_EQ(c.Diff(Parse(c, "log(y)/x").expr, x), Parse(c, "-(log(y)/x)/x").expr);
}

}  // namespace
}  // namespace tether::expr
