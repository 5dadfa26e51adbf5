// Fraction-free elimination of dependent derivative combinations.
#include "structure/derivative_elimination.h"

#include <gtest/gtest.h>

#include <vector>

#include "implicit_text.h"
#include "tether/structure/jets.h"

namespace tether::testing {
namespace {

using structure::DerivativeElimination;

class EliminationTest : public ::testing::Test {
 protected:
  DerivativeElimination Eliminate(const std::vector<std::string>& variables,
                                  const std::vector<std::string>& equations) {
    dae_ = MakeDae(cx_, variables, equations);
    jets_.emplace(cx_, dae_.variables);
    std::vector<expr::Expr> f, first;
    for (const auto& e : dae_.equations) f.push_back(e.residual);
    for (const auto& v : variables) first.push_back(structure::JetSymbol(cx_, v, 1));
    return structure::EliminateDependentDerivatives(cx_, f, dae_.time, *jets_, first, prober_,
                                                    cx_.size() + 100000);
  }

  expr::Context cx_;
  structure::Prober prober_{cx_};
  structure::ImplicitDae dae_;
  std::optional<structure::JetIndex> jets_;
};

TEST_F(EliminationTest, RegularCoefficientsChangeNothing) {
  const auto r = Eliminate({"x", "y"}, {"der(x) + der(y) = -x", "der(x) - der(y) = y"});
  EXPECT_FALSE(r.budget_exceeded);
  EXPECT_FALSE(r.replaced(0));
  EXPECT_FALSE(r.replaced(1));
}

TEST_F(EliminationTest, CircuitCapacitorRowsGiveKirchhoffsLaw) {
  // C(u1' − u2') + (u1 − E)/R = 0 and C(u2' − u1') + u2/R = 0: the second row minus (−1)·the
  // first, g = u2/R + (u1 − E)/R, is derivative-free with unit coefficient on row 2.
  const auto r = Eliminate({"u1", "u2"}, {"C*(der(u1) - der(u2)) + (u1 - E)/R = 0",
                                          "C*(der(u2) - der(u1)) + u2/R = 0"});
  ASSERT_FALSE(r.replaced(0));
  ASSERT_TRUE(r.replaced(1));
  EXPECT_EQ(r.combined_with[1], (std::vector<std::size_t>{0}));
  const Point at(cx_, {{"u1", 0.7}, {"u2", -0.2}, {"E", 1.5}, {"R", 2.0}, {"C", 1e-6}});
  // Three roundings of O(1) terms (the factor C cancels exactly): 1e-15.
  EXPECT_NEAR(at.Eval(r.replacement[1]), -0.2 / 2.0 + (0.7 - 1.5) / 2.0, 1e-15);
  for (expr::Expr s : cx_.FreeSymbols(r.replacement[1])) {
    EXPECT_EQ(cx_.symbol_name(s).find("der("), std::string::npos);
  }
}

TEST_F(EliminationTest, StateDependentMultiplierFoundByTheProbe) {
  // Row 2 = x·row 1 in its derivative part; x·x − x² is not simplified away, so only the probe
  // can tell that the pivot step leaves a zero. The constant pivot 1 (on der(y), row 1) is
  // preferred, so row 2 is replaced by g = F2 − x·F1 = (x²x′ + xy′ − x³ + y) − x(xx′ + y′ − x²)
  // = y.
  const auto r = Eliminate({"x", "y"}, {"x*der(x) + der(y) = x^2", "x^2*der(x) + x*der(y) = x^3 - y"});
  ASSERT_FALSE(r.replaced(0));
  ASSERT_TRUE(r.replaced(1));
  const Point at(cx_, {{"x", 1.3}, {"y", 0.4}});
  // A few roundings of terms of size x³ ≈ 2.2: 1e-14.
  EXPECT_NEAR(at.Eval(r.replacement[1]), 0.4, 1e-14);
}

TEST_F(EliminationTest, DuplicateEquationBecomesZero) {
  const auto r = Eliminate({"x", "y"}, {"der(x) = y", "2*der(x) = 2*y"});
  ASSERT_TRUE(r.replaced(1));
  EXPECT_TRUE(cx_.is_constant(r.replacement[1], 0.0));
}

TEST_F(EliminationTest, NonlinearRowsAreLeftAlone) {
  // der(x)^2 enters nonlinearly: not an affine row, nothing to eliminate although both rows
  // determine the same x′; the system Jacobian check reports it instead.
  const auto r = Eliminate({"x", "y"}, {"der(x)^2 = y", "der(x)^2 = x"});
  EXPECT_FALSE(r.replaced(0));
  EXPECT_FALSE(r.replaced(1));
}

TEST_F(EliminationTest, RankTwoDeficiencyInALargerBlock) {
  // Rows 3 and 4 are combinations of rows 1 and 2 (with parameter coefficients a, b);
  // two replacements, one kept pivot per independent direction.
  const auto r = Eliminate(
      {"x", "y", "z", "w"},
      {"der(x) + der(y) = z", "der(y) + der(z) = w", "a*der(x) + (a + b)*der(y) + b*der(z) = x",
       "der(x) - der(z) = y"});
  int replaced = 0;
  for (std::size_t i = 0; i < 4; ++i) replaced += r.replaced(i) ? 1 : 0;
  EXPECT_EQ(replaced, 2);
  // Whatever rows were kept, each replacement vanishes on the solutions of the original
  // equations: check at a point where the derivative parts agree with the equations.
  // With x' = 1, y' = 2, z' = 3 : z = 3, w = 5, and rows 3, 4 then force x = a + 2(a+b) + 3b,
  // y = 1 − 3 = −2.
  const double a = 0.7, b = -1.1;
  const Point at(cx_, {{"x", a + 2 * (a + b) + 3 * b}, {"y", -2.0}, {"z", 3.0}, {"w", 5.0},
                       {"a", a}, {"b", b}});
  for (std::size_t i = 0; i < 4; ++i) {
    if (r.replaced(i)) {
      EXPECT_NEAR(at.Eval(r.replacement[i]), 0.0, 1e-14) << i;
    }
  }
}

}  // namespace
}  // namespace tether::testing
