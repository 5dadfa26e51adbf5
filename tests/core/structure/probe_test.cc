// Zero tests at random points: identities the simplifier cannot see are recognized, tiny but
// non-zero values are not mistaken for zero, and undecidable expressions say so.
#include "structure/probe.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tether/expr/parse.h"

namespace tether::testing {
namespace {

using structure::Prober;
using structure::ZeroVerdict;

class ProbeTest : public ::testing::Test {
 protected:
  expr::Expr P(const std::string& text) {
    expr::ParseResult r = expr::Parse(cx_, text);
    EXPECT_TRUE(r.ok()) << text << ": " << r.error.message;
    return r.expr;
  }
  ZeroVerdict Verdict(const std::string& text) { return prober_.IsZero(P(text)); }

  expr::Context cx_;
  Prober prober_{cx_};
};

// Identically zero expressions evaluate within their own running error bound at every point,
// whatever the rounding, so they are kZero (first-order bound, slack 4: see probe.h).
TEST_F(ProbeTest, IdentitiesThatSurviveSimplification) {
  EXPECT_EQ(Verdict("x*x - x^2"), ZeroVerdict::kZero);
  EXPECT_EQ(Verdict("sin(x)^2 + cos(x)^2 - 1"), ZeroVerdict::kZero);
  EXPECT_EQ(Verdict("(x + 1)^2 - x^2 - 2*x - 1"), ZeroVerdict::kZero);
  EXPECT_EQ(Verdict("exp(x + y) - exp(x)*exp(y)"), ZeroVerdict::kZero);
  EXPECT_EQ(Verdict("(a*b - c*d)/(a - c) * (a - c) - a*b + c*d"), ZeroVerdict::kZero);
  EXPECT_EQ(Verdict("sqrt(x^2) - abs(x)"), ZeroVerdict::kZero);
  EXPECT_EQ(Verdict("x - x"), ZeroVerdict::kZero);  // folded to the constant 0
}

TEST_F(ProbeTest, SmallButNonZeroIsNonZero) {
  // 1e-20·x is exact up to one rounding: |v| ≈ 1e-20 ≫ 4u·E ≈ 4e-16·1e-20.
  EXPECT_EQ(Verdict("1e-20*x"), ZeroVerdict::kNonZero);
  EXPECT_EQ(Verdict("x*x - x^2 + 1e-9*y"), ZeroVerdict::kNonZero);
  EXPECT_EQ(Verdict("sin(x)^2 + cos(x)^2 - 0.9999999999"), ZeroVerdict::kNonZero);
  EXPECT_EQ(Verdict("3"), ZeroVerdict::kNonZero);
}

TEST_F(ProbeTest, NothingReliableIsUnknown) {
  // log of a negative number is NaN at every point.
  EXPECT_EQ(Verdict("log(-1 - x^2)"), ZeroVerdict::kUnknown);
  // A division by an exact zero.
  EXPECT_EQ(Verdict("x/(y - y)"), ZeroVerdict::kUnknown);
}

TEST_F(ProbeTest, DomainLimitedPointsAreSkipped) {
  // sqrt(x) is NaN at the points with negative x but exact at the positive ones (odd points).
  EXPECT_EQ(Verdict("sqrt(x)^2 - x"), ZeroVerdict::kZero);
  EXPECT_EQ(Verdict("sqrt(x)^2 - x + 1e-6"), ZeroVerdict::kNonZero);
}

TEST_F(ProbeTest, ValuesAreReproducibleAndDependOnTheName) {
  Prober other(cx_);
  const expr::Expr x = cx_.Symbol("x");
  const expr::Expr y = cx_.Symbol("y");
  for (int point = 0; point < prober_.points(); ++point) {
    EXPECT_EQ(prober_.SymbolValue(x, point), other.SymbolValue(x, point));
    EXPECT_NE(prober_.SymbolValue(x, point), prober_.SymbolValue(y, point));
    const double v = prober_.SymbolValue(x, point);
    if (point % 2 == 1) {
      EXPECT_TRUE(v > 0.1 && v < 0.9) << v;
    } else {
      EXPECT_TRUE(std::abs(v) >= 0.5 && std::abs(v) <= 2.0) << v;
    }
  }
  EXPECT_NE(prober_.SymbolValue(x, 0), Prober(cx_, 4, 12345).SymbolValue(x, 0));
}

TEST_F(ProbeTest, ErrorBoundCoversTheComputedValue) {
  // The bound holds against an exact reference: (x + y) − x − y computed in double is the
  // rounding error of the sum itself, which the bound must cover.
  const expr::Expr e = P("(x + y) - x - y");
  for (int point = 0; point < prober_.points(); ++point) {
    const structure::ProbeValue v = prober_.Evaluate(e, point);
    ASSERT_TRUE(v.reliable);
    EXPECT_LE(std::abs(v.value), 0x1p-53 * v.error);
  }
}

}  // namespace
}  // namespace tether::testing
