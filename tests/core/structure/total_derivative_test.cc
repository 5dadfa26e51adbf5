// The total time derivative along jets: the chain rule through der(), with tangent overrides.
#include "structure/total_derivative.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "implicit_text.h"
#include "tether/structure/jets.h"

namespace tether::testing {
namespace {

using structure::JetIndex;
using structure::JetName;
using structure::TotalDerivative;

TEST(Jets, NamesRoundTrip) {
  EXPECT_EQ(JetName("x", 0), "x");
  EXPECT_EQ(JetName("x", 1), "der(x)");
  EXPECT_EQ(JetName("lam", 3), "der(der(der(lam)))");
  for (int k = 0; k < 5; ++k) {
    const std::string name = JetName("u_2", k);
    const auto parts = structure::SplitJetName(name);
    EXPECT_EQ(parts.variable, "u_2");
    EXPECT_EQ(parts.order, k);
  }
  EXPECT_EQ(structure::SplitJetName("der(x").order, 0);
  EXPECT_EQ(structure::SplitJetName("der()").order, 0);
  EXPECT_EQ(structure::SplitJetName("der(a)(b)").order, 0);
}

class TotalDerivativeTest : public ::testing::Test {
 protected:
  TotalDerivativeTest()
      : variables_{cx_.Symbol("x"), cx_.Symbol("y")},
        jets_(cx_, variables_),
        d_(cx_, cx_.Symbol("t"), jets_, {"x", "y"}) {}

  expr::Context cx_;
  std::vector<expr::Expr> variables_;
  JetIndex jets_;
  TotalDerivative d_;
};

TEST_F(TotalDerivativeTest, ChainRuleThroughJets) {
  // D(t·x² + p·y') = x² + 2t·x·x' + p·y'' (p a parameter).
  const expr::Expr e = ParseImplicit(cx_, "t*x^2 + p*der(y)");
  const expr::Expr de = d_.Apply(e);
  const Point at(cx_, {{"t", 0.3}, {"x", -1.2}, {"y", 0.4}, {"p", 2.5}, {"der(x)", 0.7},
                       {"der(y)", -0.1}, {"der(der(y))", 1.9}});
  const double want = 1.44 + 2 * 0.3 * -1.2 * 0.7 + 2.5 * 1.9;
  // A handful of roundings on O(1) numbers: 1e-14.
  EXPECT_NEAR(at.Eval(de), want, 1e-14);
}

TEST_F(TotalDerivativeTest, TangentsOfTimeJetsAndParameters) {
  EXPECT_TRUE(cx_.is_constant(d_.Tangent(cx_.Symbol("t")), 1.0));
  EXPECT_TRUE(cx_.is_constant(d_.Tangent(cx_.Symbol("p")), 0.0));
  EXPECT_EQ(cx_.symbol_name(d_.Tangent(cx_.Symbol("der(x)"))), "der(der(x))");
}

TEST_F(TotalDerivativeTest, OverrideSubstitutesTheDerivative) {
  // With x' = y (a trivial equation), D(x²) = 2x·y and D²(x²) = 2y² + 2x·y'.
  d_.SetTangent(cx_.Symbol("x"), cx_.Symbol("y"));
  const expr::Expr once = d_.Apply(ParseImplicit(cx_, "x^2"));
  const expr::Expr twice = d_.Apply(once);
  for (expr::Expr s : cx_.FreeSymbols(twice)) EXPECT_NE(cx_.symbol_name(s), "der(x)");
  const Point at(cx_, {{"x", 0.6}, {"y", -0.8}, {"der(y)", 0.25}});
  EXPECT_NEAR(at.Eval(once), 2 * 0.6 * -0.8, 1e-15);
  EXPECT_NEAR(at.Eval(twice), 2 * 0.64 + 2 * 0.6 * 0.25, 1e-15);
}

}  // namespace
}  // namespace tether::testing
