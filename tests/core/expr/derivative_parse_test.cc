// The implicit models' additions to the parser: der() (ParseOptions::derivatives), the
// derivative symbols and their name uses, and equations lhs = rhs (ParseOptions::equation);
// every misuse by its column and message.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "tether/expr/parse.h"

namespace tether::expr {
namespace {

ParseOptions WithDerivatives() {
  ParseOptions options;
  options.derivatives = true;
  return options;
}

TEST(DerivativeParseTest, DerIsTheSymbolNamedByDerivativeName) {
  Context c;
  const ParseResult r = Parse(c, "m*der(u) - 2*x*lam", {}, WithDerivatives());
  ASSERT_TRUE(r.ok()) << Describe(r.error);
  EXPECT_EQ(DerivativeName("u"), "der(u)");
  EXPECT_TRUE(c.DependsOn(r.expr, c.Symbol("der(u)")));
  EXPECT_FALSE(c.DependsOn(r.expr, c.Symbol("u")));
  // The use is recorded as u with order 1 at u's column, so that name checks and
  // did-you-mean work on the variable name itself.
  ASSERT_EQ(r.names.size(), 4u);  // m, u, x, lam
  EXPECT_EQ(r.names[0].name, "m");
  EXPECT_EQ(r.names[1].name, "u");
  EXPECT_EQ(r.names[1].column, 7);
  EXPECT_EQ(r.names[1].derivative_order, 1);
  EXPECT_EQ(r.names[2].name, "x");
  EXPECT_EQ(r.names[2].derivative_order, 0);
}

TEST(DerivativeParseTest, NestedDerAndSpacesAndRoundTrip) {
  Context c;
  const ParseResult r = Parse(c, "der( der ( x ) ) + der(y)", {}, WithDerivatives());
  ASSERT_TRUE(r.ok()) << Describe(r.error);
  EXPECT_TRUE(c.DependsOn(r.expr, c.Symbol("der(der(x))")));
  ASSERT_EQ(r.names.size(), 2u);
  EXPECT_EQ(r.names[0].name, "x");
  EXPECT_EQ(r.names[0].column, 12);
  EXPECT_EQ(r.names[0].derivative_order, 2);
  // ToString prints the symbols' names, which parse back to the same symbols.
  const ParseResult again = Parse(c, c.ToString(r.expr), {}, WithDerivatives());
  ASSERT_TRUE(again.ok()) << Describe(again.error);
  EXPECT_EQ(again.expr, r.expr);
}

struct BadCase {
  const char* text;
  int column;
  const char* message;
};

const BadCase kBad[] = {
    {"der(2*x)", 5, "der() applies to a variable name only, found number '2'"},
    {"der(x + y)", 7,
     "expected ')' to close der( at col 4 (der() applies to one variable name), found '+'"},
    {"der(sin(x))", 5, "der() applies to a variable name only, found name 'sin'"},
    {"der(pi)", 5, "der() applies to a variable name only, found name 'pi'"},
    {"der((x))", 5, "der() applies to a variable name only, found '('"},
    {"der()", 5, "der() applies to a variable name only, found ')'"},
    {"der(der)", 5, "der() applies to a variable name only, found name 'der'"},
    {"1 + der", 5, "'der' is the derivative operator: write der(x), found 'der' before end of input"},
    {"der(der(x)", 11,
     "expected ')' to close der( at col 4 (der() applies to one variable name), found end of "
     "input"},
    {"der(x, y)", 6,
     "expected ')' to close der( at col 4 (der() applies to one variable name), found ','"},
};

TEST(DerivativeParseTest, MisusesAreErrorsAtTheirColumn) {
  for (const BadCase& bad : kBad) {
    Context c;
    const ParseResult r = Parse(c, bad.text, {}, WithDerivatives());
    EXPECT_FALSE(r.ok()) << bad.text;
    EXPECT_EQ(r.error.column, bad.column) << bad.text;
    EXPECT_EQ(r.error.message, bad.message) << bad.text;
  }
}

TEST(DerivativeParseTest, WithoutTheOptionDerIsRefusedWhereItIsCalled) {
  Context c;
  const ParseResult r = Parse(c, "x + der(x)");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error.column, 5);
  EXPECT_EQ(r.error.message,
            "der() is not allowed here: derivatives appear only in the equations of an implicit "
            "model");
  // Without a call, `der` stays an ordinary name (the spec reader decides whether it may be
  // one).
  const ParseResult plain = Parse(c, "der + 1");
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(c.DependsOn(plain.expr, c.Symbol("der")));
}

TEST(DerivativeParseTest, NestingCountsTowardsTheDepthLimit) {
  Context c;
  ParseLimits limits;
  limits.max_depth = 3;
  EXPECT_TRUE(Parse(c, "der(der(der(x)))", limits, WithDerivatives()).ok());
  const ParseResult r = Parse(c, "der(der(der(der(x))))", limits, WithDerivatives());
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error.message, "expression nested deeper than 3 levels");
}

ParseOptions Equations() {
  ParseOptions options = WithDerivatives();
  options.equation = true;
  return options;
}

TEST(EquationParseTest, ResidualIsLeftMinusRight) {
  Context c;
  const ParseResult r = Parse(c, "m*der(v) = -m*g + 2*y*lam", {}, Equations());
  ASSERT_TRUE(r.ok()) << Describe(r.error);
  const std::map<std::string, double> at = {{"m", 2.0}, {"der(v)", 0.5}, {"g", 9.81},
                                            {"y", -0.8}, {"lam", 1.5}};
  const double value = c.Evaluate(r.expr, [&](Expr s) { return at.at(c.symbol_name(s)); });
  // m v′ − (−m g + 2 y λ) = 1 + 19.62 + 2.4, three roundings of O(20) terms.
  EXPECT_NEAR(value, 1.0 + 19.62 + 2.4, 1e-13);
  // Without '=' the text is the residual itself.
  const ParseResult bare = Parse(c, "x^2 + y^2 - 1", {}, Equations());
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare.expr, Parse(c, "x^2 + y^2 - 1").expr);
}

TEST(EquationParseTest, MisplacedEqualsSigns) {
  const BadCase bad[] = {
      {"x = y = z", 7, "an equation has one '=' (the first is at col 3)"},
      {"x =", 4, "expected a number, a name or '(', found end of input"},
      {"= x", 1, "expected a number, a name or '(', found '='"},
      {"(x = y)", 4, "expected ')' to close '(' at col 1, found '='"},
  };
  for (const BadCase& b : bad) {
    Context c;
    const ParseResult r = Parse(c, b.text, {}, Equations());
    EXPECT_FALSE(r.ok()) << b.text;
    EXPECT_EQ(r.error.column, b.column) << b.text;
    EXPECT_EQ(r.error.message, b.message) << b.text;
  }
  // Without the option '=' is not a token at all.
  Context c;
  EXPECT_EQ(Parse(c, "x = y").error.message, "unexpected character '='");
}

}  // namespace
}  // namespace tether::expr
