// Structural analysis and reduction of implicit DAEs: textbook systems against their known
// indices and differentiation counts, reduced systems evaluated at points of known solutions,
// and every refusal by its message.
#include "tether/structure/implicit_dae.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "implicit_text.h"
#include "tether/structure/jets.h"

namespace tether::testing {
namespace {

using structure::ImplicitDae;
using structure::kNone;
using structure::ReduceImplicitDae;
using structure::SemiExplicitSystem;
using structure::StructureErrorKind;
using structure::StructureOptions;
using structure::StructureResult;

using Strings = std::vector<std::string>;
using Indices = std::vector<std::size_t>;

// The implicit pendulum of the issue (m = l = 1 as parameters, g a parameter).
const Strings kPendulumVariables = {"x", "y", "u", "v", "lam"};
const Strings kPendulum = {"der(x) = u", "der(y) = v", "m*der(u) = 2*x*lam",
                           "vertical: m*der(v) = -m*g + 2*y*lam", "x^2 + y^2 = l^2"};

std::vector<int> Offsets(const SemiExplicitSystem& s) {
  std::vector<int> c;
  for (const auto& e : s.report.equations) c.push_back(e.differentiations);
  return c;
}

std::vector<int> Orders(const SemiExplicitSystem& s) {
  std::vector<int> d;
  for (const auto& v : s.report.variables) d.push_back(v.highest_order);
  return d;
}

Strings InvariantNames(const structure::InvariantLevel& level) {
  Strings names;
  for (const auto& h : level.invariants) names.push_back(h.name);
  return names;
}

Strings SymbolNames(const expr::Context& cx, const std::vector<expr::Expr>& e) {
  Strings names;
  for (expr::Expr x : e) {
    names.push_back(cx.op(x) == expr::Op::kSymbol ? cx.symbol_name(x) : cx.ToString(x));
  }
  return names;
}

class ImplicitDaeTest : public ::testing::Test {
 protected:
  StructureResult Reduce(const Strings& variables, const Strings& equations,
                         const StructureOptions& options = {}) {
    dae_ = MakeDae(cx_, variables, equations);
    StructureResult r = ReduceImplicitDae(cx_, dae_, options);
    EXPECT_EQ(r.ok(), !r.error.has_value());
    return r;
  }
  SemiExplicitSystem ReduceOk(const Strings& variables, const Strings& equations,
                              const StructureOptions& options = {}) {
    StructureResult r = Reduce(variables, equations, options);
    EXPECT_TRUE(r.ok()) << (r.error ? r.error->message : "");
    return r.ok() ? *r.system : SemiExplicitSystem{};
  }

  expr::Context cx_;
  ImplicitDae dae_;
};

// --- the pendulum: index 3, and with the trivial equations substituted, the mechanical form ---

TEST_F(ImplicitDaeTest, PendulumIsIndexThreeWithPrycesOffsets) {
  StructureOptions plain;
  plain.substitute_trivial_equations = false;
  const SemiExplicitSystem s = ReduceOk(kPendulumVariables, kPendulum, plain);
  EXPECT_EQ(s.report.structural_index, 3);
  EXPECT_EQ(Offsets(s), (std::vector<int>{1, 1, 0, 0, 2}));
  EXPECT_EQ(Orders(s), (std::vector<int>{2, 2, 1, 1, 0}));
  // Pryce's reduction: z = jets below d_j (positions first), w = the highest jets.
  EXPECT_EQ(Names(cx_, s.states), (Strings{"x", "y", "u", "v", "der(x)", "der(y)"}));
  EXPECT_EQ(Names(cx_, s.unknowns),
            (Strings{"der(der(x))", "der(der(y))", "der(u)", "der(v)", "lam"}));
  EXPECT_EQ(s.constraint_names, (Strings{"equations[0]'", "equations[1]'", "equations[2]",
                                         "vertical", "equations[4]''"}));
  ASSERT_EQ(s.invariant_levels.size(), 2u);
  EXPECT_EQ(InvariantNames(s.invariant_levels[0]),
            (Strings{"equations[0]", "equations[1]", "equations[4]"}));
  EXPECT_EQ(InvariantNames(s.invariant_levels[1]), (Strings{"equations[4]'"}));
  EXPECT_EQ(s.report.degrees_of_freedom, 2u);  // 6 states − 4 invariants
}

TEST_F(ImplicitDaeTest, PendulumWithTrivialEquationsIsTheMechanicalForm) {
  const SemiExplicitSystem s = ReduceOk(kPendulumVariables, kPendulum);
  EXPECT_EQ(s.report.structural_index, 3);
  EXPECT_EQ(Offsets(s), (std::vector<int>{1, 1, 0, 0, 2}));  // the analysis, before substitution
  EXPECT_EQ(s.report.equations[0].defines_derivative_of, 0u);  // der(x) = u
  EXPECT_EQ(s.report.equations[1].defines_derivative_of, 1u);  // der(y) = v
  EXPECT_EQ(s.report.equations[2].defines_derivative_of, kNone);
  EXPECT_TRUE(s.report.variables[0].derivative_substituted);
  EXPECT_EQ(Names(cx_, s.states), (Strings{"x", "y", "u", "v"}));
  EXPECT_EQ(Names(cx_, s.unknowns), (Strings{"der(u)", "der(v)", "lam"}));
  EXPECT_EQ(SymbolNames(cx_, s.state_derivatives), (Strings{"u", "v", "der(u)", "der(v)"}));
  EXPECT_EQ(s.constraint_names, (Strings{"equations[2]", "vertical", "equations[4]''"}));
  EXPECT_EQ(s.constraint_equations, (Indices{2, 3, 4}));
  EXPECT_EQ(s.report.variables[4].unknown, 2u);  // λ is w[2]
  EXPECT_EQ(s.report.variables[2].state, 2u);    // u is z[2]
  ASSERT_EQ(s.invariant_levels.size(), 2u);
  EXPECT_EQ(InvariantNames(s.invariant_levels[0]), (Strings{"equations[4]"}));
  EXPECT_EQ(InvariantNames(s.invariant_levels[1]), (Strings{"equations[4]'"}));
  // The position level depends on (x, y) only, the velocity level on all of z: the choice a
  // dummy-derivative method would make (x or y as the free coordinate) is left to the
  // projection onto both levels; two degrees of freedom remain.
  EXPECT_EQ(s.invariant_levels[0].states, (Indices{0, 1}));
  EXPECT_EQ(s.invariant_levels[1].states, (Indices{0, 1, 2, 3}));
  EXPECT_EQ(s.report.degrees_of_freedom, 2u);

  // G and H against the mechanical form's equations at an arbitrary point (not consistent):
  //   G = (m u′ − 2xλ, m v′ + m g − 2yλ, D²Φ = 2u² + 2v² + 2x u′ + 2y v′),
  //   H_0 = Φ = x² + y² − l², H_1 = Φ_q v = 2xu + 2yv.
  // Each is a few roundings of O(1) terms: 1e-14.
  const double x = 0.3, y = -1.1, u = 0.7, v = 0.2, up = -0.4, vp = 1.3, lam = 0.9;
  const double m = 1.7, g = 9.81, l = 1.2;
  const Point at(cx_, {{"x", x}, {"y", y}, {"u", u}, {"v", v}, {"der(u)", up}, {"der(v)", vp},
                       {"lam", lam}, {"m", m}, {"g", g}, {"l", l}});
  EXPECT_NEAR(at.Eval(s.constraints[0]), m * up - 2 * x * lam, 1e-14);
  EXPECT_NEAR(at.Eval(s.constraints[1]), m * vp + m * g - 2 * y * lam, 1e-14);
  EXPECT_NEAR(at.Eval(s.constraints[2]), 2 * u * u + 2 * v * v + 2 * x * up + 2 * y * vp, 1e-14);
  EXPECT_NEAR(at.Eval(s.invariant_levels[0].invariants[0].value), x * x + y * y - l * l, 1e-14);
  EXPECT_NEAR(at.Eval(s.invariant_levels[1].invariants[0].value), 2 * x * u + 2 * y * v, 1e-14);
}

TEST_F(ImplicitDaeTest, PendulumReductionVanishesOnTheExactSolutionRelations) {
  // On the manifold (x = l sin θ, y = −l cos θ, velocity tangent θ′·(l cos θ, l sin θ)) the
  // exact λ = −m(u² + v² − g y)/(2 l²) (chapter 11, eq. 11.4) and u′ = 2xλ/m,
  // v′ = −g + 2yλ/m satisfy G = 0 and every invariant: cancellation of O(g) terms, 1e-13.
  const SemiExplicitSystem s = ReduceOk(kPendulumVariables, kPendulum);
  const double m = 1.3, g = 9.81, l = 0.8, theta = 0.7, omega = -1.9;
  const double x = l * std::sin(theta), y = -l * std::cos(theta);
  const double u = omega * l * std::cos(theta), v = omega * l * std::sin(theta);
  const double lam = -m * (u * u + v * v - g * y) / (2 * l * l);
  const Point at(cx_, {{"x", x}, {"y", y}, {"u", u}, {"v", v}, {"lam", lam},
                       {"der(u)", 2 * x * lam / m}, {"der(v)", -g + 2 * y * lam / m},
                       {"m", m}, {"g", g}, {"l", l}});
  for (expr::Expr gi : s.constraints) EXPECT_NEAR(at.Eval(gi), 0.0, 1e-13);
  for (const auto& level : s.invariant_levels) {
    for (const auto& h : level.invariants) EXPECT_NEAR(at.Eval(h.value), 0.0, 1e-13) << h.name;
  }
}

// --- index 1 and 2 in semi-explicit shape ---

TEST_F(ImplicitDaeTest, SemiExplicitIndexOneIsTheIndex1Form) {
  const SemiExplicitSystem s = ReduceOk({"x", "y"}, {"der(x) = -x + y", "0 = y - sin(x)"});
  EXPECT_EQ(s.report.structural_index, 1);
  EXPECT_EQ(Offsets(s), (std::vector<int>{0, 0}));
  EXPECT_EQ(Names(cx_, s.states), (Strings{"x"}));
  EXPECT_EQ(Names(cx_, s.unknowns), (Strings{"y"}));
  EXPECT_TRUE(s.invariant_levels.empty());
  ASSERT_EQ(s.constraints.size(), 1u);
  const Point at(cx_, {{"x", 0.4}, {"y", 0.1}});
  EXPECT_NEAR(at.Eval(s.state_derivatives[0]), -0.3, 1e-15);
}

TEST_F(ImplicitDaeTest, HessenbergIndexTwoOnTheCircle) {
  // x1′ = x2 + x1·y, x2′ = −x1 + x2·y, 0 = x1² + x2² − 1 (g_x f_y = 2(x1² + x2²) = 2 ≠ 0);
  // exact solution x = (sin t, cos t), y = 0.
  const SemiExplicitSystem s =
      ReduceOk({"x1", "x2", "y"}, {"der(x1) = x2 + x1*y", "der(x2) = -x1 + x2*y",
                                   "circle: 0 = x1^2 + x2^2 - 1"});
  EXPECT_EQ(s.report.structural_index, 2);
  EXPECT_EQ(Offsets(s), (std::vector<int>{0, 0, 1}));
  EXPECT_EQ(Orders(s), (std::vector<int>{1, 1, 0}));
  EXPECT_EQ(Names(cx_, s.states), (Strings{"x1", "x2"}));
  EXPECT_EQ(Names(cx_, s.unknowns), (Strings{"y"}));
  EXPECT_EQ(s.constraint_names, (Strings{"circle'"}));
  ASSERT_EQ(s.invariant_levels.size(), 1u);
  EXPECT_EQ(InvariantNames(s.invariant_levels[0]), (Strings{"circle"}));
  const double t = 0.83;
  const Point exact(cx_, {{"t", t}, {"x1", std::sin(t)}, {"x2", std::cos(t)}, {"y", 0.0}});
  EXPECT_NEAR(exact.Eval(s.constraints[0]), 0.0, 1e-15);
  EXPECT_NEAR(exact.Eval(s.invariant_levels[0].invariants[0].value), 0.0, 1e-15);
  EXPECT_NEAR(exact.Eval(s.state_derivatives[0]), std::cos(t), 1e-15);
  // Off the solution, G = D F with x′ → f, where F = lhs − rhs = −(x1² + x2² − 1):
  // −(2x1(x2 + x1 y) + 2x2(−x1 + x2 y)) = −2y(x1² + x2²).
  const Point off(cx_, {{"t", t}, {"x1", 0.3}, {"x2", 0.5}, {"y", 0.7}});
  EXPECT_NEAR(off.Eval(s.constraints[0]), -2 * 0.7 * (0.09 + 0.25), 1e-15);
}

// --- the circuit whose leading matrix is singular despite full structural rank ---

const Strings kCircuit = {"node1: C*(der(u1) - der(u2)) + (u1 - E)/R = 0",
                          "node2: C*(der(u2) - der(u1)) + u2/R = 0"};

TEST_F(ImplicitDaeTest, CircuitStructuralPassAloneCallsItIndexZeroAndFails) {
  StructureOptions structural_only;
  structural_only.eliminate_dependent_derivatives = false;
  const StructureResult r = Reduce({"u1", "u2"}, kCircuit, structural_only);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error->kind, StructureErrorKind::kSingularJacobian);
  EXPECT_EQ(r.error->equations, (Indices{0, 1}));
  EXPECT_EQ(r.error->variables, (Indices{0, 1}));
  EXPECT_EQ(r.error->message,
            "equations 'node1', 'node2' determine only combinations of the highest derivatives "
            "'der(u1)', 'der(u2)': the system Jacobian is singular at every test point although "
            "a transversal exists (structural index 0). Derivatives that enter nonlinearly, "
            "with coefficients depending on derivatives, or whose dependency shows only after "
            "differentiation are out of reach; write the dependent combination as one equation "
            "or eliminate it by hand");
}

TEST_F(ImplicitDaeTest, CircuitWithEliminationIsIndexOneWithOneDegreeOfFreedom) {
  const SemiExplicitSystem s = ReduceOk({"u1", "u2"}, kCircuit);
  EXPECT_EQ(s.report.structural_index, 1);
  EXPECT_TRUE(s.report.equations[1].derivatives_eliminated);
  EXPECT_EQ(s.report.equations[1].combined_with, (Indices{0}));
  EXPECT_EQ(Offsets(s), (std::vector<int>{0, 1}));
  EXPECT_EQ(Names(cx_, s.states), (Strings{"u1", "u2"}));
  EXPECT_EQ(Names(cx_, s.unknowns), (Strings{"der(u1)", "der(u2)"}));
  ASSERT_EQ(s.invariant_levels.size(), 1u);
  EXPECT_EQ(InvariantNames(s.invariant_levels[0]), (Strings{"node2"}));
  EXPECT_EQ(s.report.degrees_of_freedom, 1u);
  // Exact solution for constant E: u1 + u2 = E (the hidden Kirchhoff law), and the capacitor
  // voltage uc = u1 − u2 obeys uc′ = (E − uc)/(2RC), so
  //   uc = E + (uc0 − E) e^{−t/(2RC)},  u1 = (E + uc)/2,  u2 = (E − uc)/2,  u1′ = −u2′ = uc′/2.
  // G = (node1, D g) and H = g vanish there up to a few roundings of O(1/R) terms: 1e-12
  // (the C·u′ terms are O(1/R) too, since C·uc′ = (E − uc)/(2R)).
  const double C = 1e-3, R = 2.0, E = 1.5, uc0 = -0.5, t = 0.0037;
  const double uc = E + (uc0 - E) * std::exp(-t / (2 * R * C));
  const double ucp = (E - uc) / (2 * R * C);
  const Point at(cx_, {{"t", t}, {"C", C}, {"R", R}, {"E", E}, {"u1", (E + uc) / 2},
                       {"u2", (E - uc) / 2}, {"der(u1)", ucp / 2}, {"der(u2)", -ucp / 2}});
  for (expr::Expr g : s.constraints) EXPECT_NEAR(at.Eval(g), 0.0, 1e-12);
  EXPECT_NEAR(at.Eval(s.invariant_levels[0].invariants[0].value), 0.0, 1e-12);
}

TEST_F(ImplicitDaeTest, MassMatrixWithStateDependentSingularityIsEliminated) {
  // M(x) x′ = f with M = [x 1; x² x] singular for every x (row 2 = x·row 1): the hidden
  // constraint is f2 − x·f1 = 0. Written here: x·x′ + y′ = −x, x²·x′ + x·y′ = y − x², so the
  // hidden constraint is y = 0 and the index is 1.
  const SemiExplicitSystem s =
      ReduceOk({"x", "y"}, {"x*der(x) + der(y) = -x", "x^2*der(x) + x*der(y) = y - x^2"});
  EXPECT_EQ(s.report.structural_index, 1);
  EXPECT_TRUE(s.report.equations[1].derivatives_eliminated);
  ASSERT_EQ(s.invariant_levels.size(), 1u);
  const Point at(cx_, {{"x", 0.6}, {"y", 0.25}});
  // The replaced row is F2 − x·F1 = (x²x′ + xy′ − y + x²) − x(xx′ + y′ + x) = −y.
  EXPECT_NEAR(at.Eval(s.invariant_levels[0].invariants[0].value), -0.25, 1e-14);
}

// --- higher index ---

TEST_F(ImplicitDaeTest, ChainOfIndexFive) {
  // x1 = sin t, x_{k+1} = x_k′: x5 = sin⁽⁴⁾ t = sin t, index 5. The chain equations are
  // trivial, so z = (x1..x4), w = (x5), G = D⁴(x1 − sin t) = x5 − sin t and level ℓ holds
  // x_{ℓ+1} − sin^(ℓ) t.
  const SemiExplicitSystem s =
      ReduceOk({"x1", "x2", "x3", "x4", "x5"},
               {"source: x1 = sin(t)", "x2 = der(x1)", "x3 = der(x2)", "x4 = der(x3)",
                "x5 = der(x4)"});
  EXPECT_EQ(s.report.structural_index, 5);
  EXPECT_EQ(Offsets(s), (std::vector<int>{4, 3, 2, 1, 0}));
  EXPECT_EQ(Orders(s), (std::vector<int>{4, 3, 2, 1, 0}));
  EXPECT_EQ(Names(cx_, s.states), (Strings{"x1", "x2", "x3", "x4"}));
  EXPECT_EQ(Names(cx_, s.unknowns), (Strings{"x5"}));
  EXPECT_EQ(s.constraint_names, (Strings{"source''''"}));
  ASSERT_EQ(s.invariant_levels.size(), 4u);
  const double t = 0.4;
  const Point at(cx_, {{"t", t}, {"x1", std::sin(t)}, {"x2", std::cos(t)}, {"x3", -std::sin(t)},
                       {"x4", -std::cos(t)}, {"x5", std::sin(t)}});
  EXPECT_NEAR(at.Eval(s.constraints[0]), 0.0, 1e-15);
  for (const auto& level : s.invariant_levels) {
    ASSERT_EQ(level.invariants.size(), 1u);
    EXPECT_NEAR(at.Eval(level.invariants[0].value), 0.0, 1e-15) << level.invariants[0].name;
  }
  EXPECT_EQ(InvariantNames(s.invariant_levels[3]), (Strings{"source'''"}));
}

TEST_F(ImplicitDaeTest, TwoMultiplierMechanismIsIndexThree) {
  // A point mass on the intersection of a sphere and a plane (two multipliers):
  //   q′ = v, m v′ = f + 2qλ1 + nλ2, |q|² = r², n·q = 0, with n = (0, 0, 1).
  const SemiExplicitSystem s = ReduceOk(
      {"x", "y", "z", "u", "v", "w", "l1", "l2"},
      {"der(x) = u", "der(y) = v", "der(z) = w", "m*der(u) = 2*x*l1",
       "m*der(v) = -m*g + 2*y*l1", "m*der(w) = 2*z*l1 + l2", "sphere: x^2 + y^2 + z^2 = r^2",
       "plane: z = 0"});
  EXPECT_EQ(s.report.structural_index, 3);
  EXPECT_EQ(Names(cx_, s.states), (Strings{"x", "y", "z", "u", "v", "w"}));
  EXPECT_EQ(Names(cx_, s.unknowns), (Strings{"der(u)", "der(v)", "der(w)", "l1", "l2"}));
  ASSERT_EQ(s.invariant_levels.size(), 2u);
  EXPECT_EQ(InvariantNames(s.invariant_levels[0]), (Strings{"sphere", "plane"}));
  EXPECT_EQ(InvariantNames(s.invariant_levels[1]), (Strings{"sphere'", "plane'"}));
  EXPECT_EQ(s.report.degrees_of_freedom, 2u);  // 6 − 4: a circle
}

// --- refusals ---

TEST_F(ImplicitDaeTest, StructurallySingularNamesBothParts) {
  const StructureResult r =
      Reduce({"x", "y", "z"}, {"der(x) = y", "x = sin(t)", "x = cos(t)"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error->kind, StructureErrorKind::kStructurallySingular);
  EXPECT_EQ(r.error->message,
            "structurally singular: equations 'equations[1]', 'equations[2]' involve only the "
            "variable 'x' (2 equations for 1 unknown); variable 'z' appears in no equation");
  EXPECT_EQ(r.error->overdetermined_equations, (Indices{1, 2}));
  EXPECT_EQ(r.error->overdetermined_variables, (Indices{0}));
  EXPECT_EQ(r.error->underdetermined_variables, (Indices{2}));
  EXPECT_EQ(r.error->equations, (Indices{1, 2}));
  EXPECT_EQ(r.error->variables, (Indices{0, 2}));
}

TEST_F(ImplicitDaeTest, UnderDeterminedBlockNamesItsEquation) {
  const StructureResult r = Reduce({"x", "y", "z"}, {"force: der(x) = y*z", "x = sin(t)", "x = 2"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error->message,
            "structurally singular: equations 'equations[1]', 'equations[2]' involve only the "
            "variable 'x' (2 equations for 1 unknown); variables 'y', 'z' appear only in the "
            "equation 'force' (2 unknowns for 1 equation)");
}

TEST_F(ImplicitDaeTest, MoreEquationsThanVariables) {
  const StructureResult r = Reduce({"x"}, {"der(x) = -x", "x = 1"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error->kind, StructureErrorKind::kStructurallySingular);
  EXPECT_EQ(r.error->message,
            "structurally singular: equations 'equations[0]', 'equations[1]' involve only the "
            "variable 'x' (2 equations for 1 unknown)");
}

TEST_F(ImplicitDaeTest, DependentEquationFoundAfterElimination) {
  const StructureResult r = Reduce({"x", "y"}, {"der(x) = y", "2*der(x) = 2*y"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error->kind, StructureErrorKind::kStructurallySingular);
  EXPECT_EQ(r.error->message,
            "structurally singular: after eliminating dependent derivatives ('equations[1]' "
            "minus a combination of 'equations[0]' is 0 = 0), equation 'equations[1]' involves "
            "no unknown; variables 'x', 'y' appear only in the equation 'equations[0]' "
            "(2 unknowns for 1 equation)");
}

TEST_F(ImplicitDaeTest, NonlinearDependentDerivativesAreOutOfReach) {
  // Both rows fix only s = x′ + y′ (one through exp): J = [eˢ eˢ; 1 1] is singular everywhere
  // and the row with exp is not affine in the derivatives, so step 2 cannot help.
  const StructureResult r =
      Reduce({"x", "y"}, {"exp(der(x) + der(y)) = x", "der(x) + der(y) = y"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error->kind, StructureErrorKind::kSingularJacobian);
  EXPECT_EQ(r.error->equations, (Indices{0, 1}));
  EXPECT_EQ(r.error->variables, (Indices{0, 1}));
}

TEST_F(ImplicitDaeTest, InvalidInputIsNamed) {
  dae_ = MakeDae(cx_, {"x", "y"}, {"der(x) = y", "y = 1"});
  dae_.equations[1].residual = cx_.Sub(cx_.Symbol("der(der(x))"), cx_.Symbol("y"));
  StructureResult r = ReduceImplicitDae(cx_, dae_);
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->kind, StructureErrorKind::kInvalidInput);
  EXPECT_EQ(r.error->message,
            "equation 'equations[1]' uses der(der(x)); only first derivatives der(x) of "
            "variables may appear");

  dae_.equations[1].residual = cx_.Sub(cx_.Symbol("der(p)"), cx_.Symbol("y"));
  r = ReduceImplicitDae(cx_, dae_);
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->message, "equation 'equations[1]' uses der(p), but 'p' is not a variable");

  dae_ = MakeDae(cx_, {"x", "x"}, {"der(x) = 1", "x = 1"});
  r = ReduceImplicitDae(cx_, dae_);
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->message, "variable 'x' is listed twice");

  dae_ = MakeDae(cx_, {"x"}, {"der(x) = 1"});
  dae_.variables[0] = cx_.Symbol("der(x)");
  r = ReduceImplicitDae(cx_, dae_);
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->message,
            "variable 'der(x)' cannot be a variable name (a jet or the time)");
}

TEST_F(ImplicitDaeTest, OptionsAreValidated) {
  std::string why;
  EXPECT_TRUE(StructureOptions{}.IsValid(&why)) << why;
  StructureOptions options;
  options.probe_points = 0;
  const StructureResult r = Reduce({"x"}, {"der(x) = -x"}, options);
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->message, "StructureOptions::probe_points = 0; must be >= 1");
  options = {};
  options.max_equations = 0;
  EXPECT_FALSE(options.IsValid(&why));
  EXPECT_EQ(why, "StructureOptions::max_equations = 0; must be in [1, 4096]");
  options = {};
  options.max_new_nodes = 0;
  EXPECT_FALSE(options.IsValid(&why));
  EXPECT_EQ(why, "StructureOptions::max_new_nodes = 0; must be >= 1");
  options = {};
  options.max_equations = 1;
  const StructureResult too_big = Reduce({"x", "y"}, {"der(x) = y", "y = 1"}, options);
  ASSERT_TRUE(too_big.error);
  EXPECT_EQ(too_big.error->message,
            "2 equations and 2 variables; at most StructureOptions::max_equations = 1 of each "
            "are accepted");
}

TEST_F(ImplicitDaeTest, ExpressionBudgetStopsDifferentiation) {
  StructureOptions options;
  options.max_new_nodes = 5;
  const StructureResult r = Reduce(kPendulumVariables, kPendulum, options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error->kind, StructureErrorKind::kBudgetExceeded);
  EXPECT_NE(r.error->message.find("max_new_nodes = 5 expression nodes (while differentiating "
                                  "equation 'equations[4]' 1 time)"),
            std::string::npos)
      << r.error->message;
}

TEST_F(ImplicitDaeTest, ExpressionBudgetStopsElimination) {
  // Eight rows with state-dependent coefficients of which the last four repeat the first
  // four's derivative parts: Bareiss on the cluster must stop at the budget.
  Strings variables, equations;
  for (int k = 0; k < 8; ++k) variables.push_back("x" + std::to_string(k));
  for (int k = 0; k < 4; ++k) {
    std::string row;
    for (int j = 0; j < 4; ++j) {
      row += (j ? " + " : "") + std::string("sin(x") + std::to_string(k + j + 4) + ")*der(x" +
             std::to_string(j) + ")";
    }
    equations.push_back(row + " = x" + std::to_string(k));
    equations.push_back("2*(" + row + ") = x" + std::to_string(k + 4));
  }
  StructureOptions options;
  options.max_new_nodes = 40;
  const StructureResult r = Reduce(variables, equations, options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error->kind, StructureErrorKind::kBudgetExceeded);
  EXPECT_NE(r.error->message.find("eliminating dependent derivative combinations"),
            std::string::npos);
}

TEST_F(ImplicitDaeTest, EmptySystem) {
  const SemiExplicitSystem s = ReduceOk({}, {});
  EXPECT_TRUE(s.states.empty());
  EXPECT_EQ(s.report.structural_index, 0);
}

// --- size: the limits of a model (512 variables) are handled in reasonable time ---

TEST_F(ImplicitDaeTest, HundredPendulaAreFiveHundredVariables) {
  Strings variables, equations;
  for (int k = 0; k < 100; ++k) {
    const std::string s = std::to_string(k);
    for (const char* v : {"x", "y", "u", "v", "lam"}) variables.push_back(v + s);
    equations.push_back("der(x" + s + ") = u" + s);
    equations.push_back("der(y" + s + ") = v" + s);
    equations.push_back("m*der(u" + s + ") = 2*x" + s + "*lam" + s);
    equations.push_back("m*der(v" + s + ") = -m*g + 2*y" + s + "*lam" + s);
    equations.push_back("x" + s + "^2 + y" + s + "^2 = l^2");
  }
  const SemiExplicitSystem s = ReduceOk(variables, equations);
  EXPECT_EQ(s.report.structural_index, 3);
  EXPECT_EQ(s.states.size(), 400u);
  EXPECT_EQ(s.unknowns.size(), 300u);
  ASSERT_EQ(s.invariant_levels.size(), 2u);
  EXPECT_EQ(s.invariant_levels[0].invariants.size(), 100u);
  EXPECT_EQ(s.report.degrees_of_freedom, 200u);
}

TEST_F(ImplicitDaeTest, FloatingCapacitorLadderIsEliminatedBlockByBlock) {
  // 200 floating capacitors (400 node voltages): pair p has nodes a = 2p, b = 2p + 1,
  //   a: C(u_a′ − u_b′) + (u_a − u_prev)/R = 0   (u_prev = E(t) or the previous pair's b),
  //   b: C(u_b′ − u_a′) + u_b/R + (u_b − u_next)/R = 0   (u_next the next pair's a, if any).
  // Every pair's rows are dependent in their derivatives; the 200 blocks are eliminated one by
  // one (a single 400-row Bareiss would need ~10⁸ nodes). Index 1, one state per capacitor.
  constexpr int kPairs = 200;
  Strings variables, equations;
  for (int p = 0; p < kPairs; ++p) {
    const std::string a = "u" + std::to_string(2 * p), b = "u" + std::to_string(2 * p + 1);
    variables.push_back(a);
    variables.push_back(b);
    const std::string previous = p == 0 ? "E*sin(t)" : "u" + std::to_string(2 * p - 1);
    std::string next_current;
    if (p + 1 < kPairs) next_current = " + (" + b + " - u" + std::to_string(2 * p + 2) + ")/R";
    equations.push_back("C*(der(" + a + ") - der(" + b + ")) + (" + a + " - " + previous + ")/R = 0");
    equations.push_back("C*(der(" + b + ") - der(" + a + ")) + " + b + "/R" + next_current + " = 0");
  }
  const SemiExplicitSystem s = ReduceOk(variables, equations);
  EXPECT_EQ(s.report.structural_index, 1);
  int eliminated = 0;
  for (const auto& e : s.report.equations) eliminated += e.derivatives_eliminated ? 1 : 0;
  EXPECT_EQ(eliminated, kPairs);
  ASSERT_EQ(s.invariant_levels.size(), 1u);
  EXPECT_EQ(s.invariant_levels[0].invariants.size(), static_cast<std::size_t>(kPairs));
  EXPECT_EQ(s.report.degrees_of_freedom, static_cast<std::size_t>(kPairs));
}

}  // namespace
}  // namespace tether::testing
