#include "tether/expr/parse.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <numbers>
#include <string>

namespace tether::expr {
namespace {

using ::testing::HasSubstr;

// Values of the symbols the good inputs use.
const std::map<std::string, double> kValues = {{"x", 3.0}, {"y", -0.5},   {"a", 10.0}, {"b", 3.0},
                                               {"c", 2.0}, {"x_1", 1.25}, {"Y2", 4.0}};

double EvaluateText(Context& c, const std::string& text) {
  const ParseResult r = Parse(c, text);
  EXPECT_TRUE(r.ok()) << text << ": " << Describe(r.error);
  if (!r.ok()) return std::nan("");
  return c.Evaluate(r.expr, [&c](Expr s) { return kValues.at(c.symbol_name(s)); });
}

struct GoodCase {
  const char* text;
  double expected;
};

// Expected values computed by hand from the grammar in parse.h; each is exact in double or
// one correctly rounded libm call, so the comparison allows 4 ulps.
const GoodCase kGood[] = {
    {"2", 2.0},
    {"1.5", 1.5},
    {".5", 0.5},
    {"1e-3", 1e-3},
    {"2.5E+2", 250.0},
    {"1e-400", 0.0},  // below the smallest subnormal: rounds to zero
    {"x", 3.0},
    {"-x^2", -9.0},  // ^ binds tighter than unary minus
    {"-2^2", -4.0},
    {"(-2)^2", 4.0},
    {"2^3^2", 512.0},  // right-associative: 2^(3^2)
    {"(2^3)^2", 64.0},
    {"2^-1", 0.5},   // the exponent is a unary expression
    {"a-b-c", 5.0},  // left-associative: (a-b)-c
    {"a/b/c", 10.0 / 3.0 / 2.0},
    {"a-b*c", 4.0},
    {"(a-b)*c", 14.0},
    {"--x", 3.0},
    {"+x", 3.0},
    {"-+-x", 3.0},
    {"x*-y", 1.5},
    {"pi", std::numbers::pi},
    {"2*pi", 2.0 * std::numbers::pi},
    {"pow(2, 10)", 1024.0},
    {"atan2(1, 1)", std::atan2(1.0, 1.0)},
    {"min(a, x)", 3.0},
    {"max(a, x)", 10.0},
    {"sin(x) + cos(x)", std::sin(3.0) + std::cos(3.0)},
    {"tan(y)", std::tan(-0.5)},
    {"asin(y) + acos(y) + atan(y)", std::asin(-0.5) + std::acos(-0.5) + std::atan(-0.5)},
    {"sinh(y) + cosh(y) + tanh(y)", std::sinh(-0.5) + std::cosh(-0.5) + std::tanh(-0.5)},
    {"exp(y)", std::exp(-0.5)},
    {"log(a)", std::log(10.0)},
    {"sqrt(a)", std::sqrt(10.0)},
    {"abs(y)", 0.5},
    {"sign(y)", -1.0},
    {"sign(0)", 0.0},
    {"select(y, 1, 2)", 2.0},
    {"floor(y)", -1.0},
    {"floor(x)", 3.0},
    {"mod(a, b)", 1.0},
    {"mod(-a, b)", 2.0},  // the sign of b, as Modelica's mod and Python's %
    {"mod(a, -b)", -2.0},
    {"mod(x, c)", 1.0},
    {"mod(y, c)", 1.5},
    {" x\t+\n1 ", 4.0},
    {"x_1 * Y2", 5.0},
    {"((((x))))", 3.0},
    {"2*x^2 + 3*x - 1", 26.0},
};

TEST(ParseTest, GoodInputsHaveTheirValues) {
  Context c;
  for (const GoodCase& g : kGood) {
    const double value = EvaluateText(c, g.text);
    const double tolerance = 4 * std::numeric_limits<double>::epsilon() * std::fabs(g.expected);
    EXPECT_NEAR(value, g.expected, tolerance) << g.text;
  }
}

TEST(ParseTest, PrecedenceAndAssociativityGiveTheExpectedTrees) {
  Context c;
  const Expr x = c.Symbol("x");
  const Expr a = c.Symbol("a");
  const Expr b = c.Symbol("b");
  const Expr d = c.Symbol("c");
  EXPECT_EQ(Parse(c, "-x^2").expr, c.Neg(c.Pow(x, c.Constant(2))));
  EXPECT_EQ(Parse(c, "x^a^b").expr, c.Pow(x, c.Pow(a, b)));
  EXPECT_EQ(Parse(c, "a-b-c").expr, c.Sub(c.Sub(a, b), d));
  EXPECT_EQ(Parse(c, "a/b/c").expr, c.Div(c.Div(a, b), d));
  EXPECT_EQ(Parse(c, "a+b*c").expr, c.Add(a, c.Mul(b, d)));
  EXPECT_EQ(Parse(c, "-a*b").expr, c.Mul(c.Neg(a), b));
  EXPECT_EQ(Parse(c, "pow(a, b)").expr, c.Pow(a, b));
}

struct BadCase {
  std::string text;
  int column;
  const char* message;  // a substring of the message
};

const BadCase kBad[] = {
    {"", 1, "expected a number, a name or '(', found end of input"},
    {"   ", 4, "expected a number, a name or '(', found end of input"},
    {"(x+1", 5, "expected ')' to close '(' at col 1, found end of input"},
    {"2*(x+(y)", 9, "expected ')' to close '(' at col 3, found end of input"},
    {"sine(x)", 1, "unknown function 'sine' (did you mean 'sin'?)"},
    {"x + coss(x)", 5, "unknown function 'coss' (did you mean 'cos'?)"},
    {"ln(x)", 1, "unknown function 'ln' (did you mean 'log'?)"},
    {"frobnicate(x)", 1, "unknown function 'frobnicate'"},
    {"atan2(x)", 1, "'atan2' takes 2 arguments, got 1"},
    {"sin()", 1, "'sin' takes 1 argument, got 0"},
    {"1 + sin(x, y)", 5, "'sin' takes 1 argument, got 2"},
    {"max(1, 2", 9, "expected ',' or ')' in the call of 'max' opened at col 4, found end of input"},
    {"max(1 2)", 7, "expected ',' or ')' in the call of 'max' opened at col 4, found number '2'"},
    {"2x", 2, "expected an operator or end of input, found name 'x'"},
    {"x)", 2, "expected an operator or end of input, found ')'"},
    {"a,b", 2, "expected an operator or end of input, found ','"},
    {"x + ", 5, "expected a number, a name or '(', found end of input"},
    {"*x", 1, "expected a number, a name or '(', found '*'"},
    {"x ** 2", 4, "expected a number, a name or '(', found '*'"},
    {"x^", 3, "found end of input"},
    {"()", 2, "expected a number, a name or '(', found ')'"},
    {"x $ y", 3, "unexpected character '$'"},
    {"x \xc3\x97 y", 3, "unexpected byte 195 (only ASCII is allowed)"},
    {"1.", 3, "expected a digit after '.' in number '1.'"},
    {"1.5e", 5, "expected the digits of the exponent of number '1.5e'"},
    {"2e+", 4, "expected the digits of the exponent of number '2e+'"},
    {"1e999", 1, "number '1e999' is out of range"},
    {"x + 1e400", 5, "number '1e400' is out of range"},
    {"sin x", 5, "expected '(' after function 'sin', found name 'x'"},
    {"sqrt + 1", 6, "expected '(' after function 'sqrt', found '+'"},
    {"pi(2)", 1, "'pi' is a constant, not a function"},
};

TEST(ParseTest, BadInputsReportColumnAndMessage) {
  Context c;
  for (const BadCase& bad : kBad) {
    const ParseResult r = Parse(c, bad.text);
    ASSERT_FALSE(r.ok()) << bad.text;
    EXPECT_FALSE(r.expr.valid()) << bad.text;
    EXPECT_EQ(r.error.column, bad.column) << bad.text << ": " << r.error.message;
    EXPECT_THAT(r.error.message, HasSubstr(bad.message)) << bad.text;
  }
}

TEST(ParseTest, DescribePrefixesTheColumn) {
  Context c;
  EXPECT_EQ(Describe(Parse(c, "(x+1").error),
            "col 5: expected ')' to close '(' at col 1, found end of input");
}

TEST(ParseTest, RecordsEverySymbolUseWithItsColumn) {
  Context c;
  const ParseResult r = Parse(c, "x + sin(yy) * x - pi + x - x");
  ASSERT_TRUE(r.ok());
  std::vector<std::pair<std::string, int>> uses;
  for (const NameUse& use : r.names) uses.emplace_back(use.name, use.column);
  const std::vector<std::pair<std::string, int>> expected = {
      {"x", 1}, {"yy", 9}, {"x", 15}, {"x", 24}, {"x", 28}};
  EXPECT_EQ(uses, expected);
}

TEST(ParseTest, LengthLimitIsAnError) {
  Context c;
  ParseLimits limits;
  limits.max_length = 10;
  const ParseResult r = Parse(c, "x + y + z + w", limits);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error.column, 1);
  EXPECT_THAT(r.error.message, HasSubstr("expression is 13 characters long; the limit is 10"));
}

// Nesting beyond max_depth is refused at the token that opens the level too many, whatever
// nests: parentheses, calls, unary signs or exponents. 100000 levels would overflow the stack
// of a recursive parser without the limit.
TEST(ParseTest, DepthLimitIsAnErrorNotAStackOverflow) {
  Context c;
  ParseLimits limits;
  limits.max_length = 1 << 20;
  constexpr int kLevels = 100000;
  const std::string parens = std::string(kLevels, '(') + "x" + std::string(kLevels, ')');
  const std::string signs = std::string(kLevels, '-') + "x";
  std::string calls;
  for (int i = 0; i < kLevels / 4; ++i) calls += "sin(";
  calls += "x" + std::string(kLevels / 4, ')');
  std::string powers = "x";
  for (int i = 0; i < kLevels / 2; ++i) powers += "^x";
  for (const std::string& text : {parens, signs, calls, powers}) {
    const ParseResult r = Parse(c, text, limits);
    ASSERT_FALSE(r.ok()) << text.substr(0, 8);
    EXPECT_THAT(r.error.message, HasSubstr("expression nested deeper than 200 levels"));
  }
  const ParseResult parens_result = Parse(c, parens, limits);
  EXPECT_EQ(parens_result.error.column, 201);  // the 201st '('
}

TEST(ParseTest, DepthUpToTheLimitIsAccepted) {
  Context c;
  const std::string text = std::string(200, '(') + "x" + std::string(200, ')');
  EXPECT_TRUE(Parse(c, text).ok());
  const std::string deeper = "(" + text + ")";
  EXPECT_FALSE(Parse(c, deeper).ok());
}

// The largest depth the limits allow parses (within the stack the header promises).
TEST(ParseTest, DepthAtTheLargestAllowedLimitParses) {
  Context c;
  ParseLimits limits;
  limits.max_depth = ParseLimits::kMaxDepthLimit;
  const std::size_t levels = static_cast<std::size_t>(ParseLimits::kMaxDepthLimit);
  const std::string text = std::string(levels, '(') + "x" + std::string(levels, ')');
  const ParseResult r = Parse(c, text, limits);
  EXPECT_TRUE(r.ok()) << Describe(r.error);
  limits.max_depth = ParseLimits::kMaxDepthLimit + 1;
  EXPECT_FALSE(limits.IsValid(nullptr));
}

// A flat sum is a loop in the parser, not a recursion, and builds a chain as deep as it has
// terms: no depth limit applies to it.
TEST(ParseTest, LongFlatSumParses) {
  Context c;
  std::string text = "x0";
  for (int i = 1; i < 5000; ++i) text += " + x" + std::to_string(i);
  const ParseResult r = Parse(c, text);
  ASSERT_TRUE(r.ok()) << Describe(r.error);
  EXPECT_EQ(r.names.size(), 5000u);
  EXPECT_EQ(c.Depth(r.expr), 5000u);
}

TEST(ParseLimitsTest, DefaultsAreValid) {
  std::string why;
  EXPECT_TRUE(ParseLimits{}.IsValid(&why)) << why;
}

TEST(ParseLimitsTest, InvalidLimitsAreReported) {
  ParseLimits limits;
  limits.max_depth = 0;
  std::string why;
  EXPECT_FALSE(limits.IsValid(&why));
  EXPECT_EQ(why, "ParseLimits::max_depth = 0; must be in [1, 2000]");
  Context c;
  const ParseResult r = Parse(c, "x", limits);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error.message, why);
  limits = ParseLimits{};
  limits.max_length = 0;
  EXPECT_FALSE(limits.IsValid(&why));
  EXPECT_EQ(why, "ParseLimits::max_length = 0; must be in [1, 1073741824]");
}

}  // namespace
}  // namespace tether::expr
