// The built-in catalog: every spec validates, has the expected shape, and the analytic
// solutions its descriptions state satisfy the equations.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <functional>
#include <map>
#include <string>

#include "core/model/spec_fixtures.h"
#include "tether/model/registry.h"

namespace tether::model {
namespace {

using testing::Evaluate;

std::shared_ptr<const Model> CatalogModel(std::string_view name) {
  for (const CatalogEntry& entry : BuiltinCatalog()) {
    ModelResult result = ParseModel(entry.json);
    if (result.ok() && result.model->name == name) return result.model;
  }
  ADD_FAILURE() << "catalog model '" << name << "' not found";
  return nullptr;
}

TEST(CatalogTest, EverySpecValidatesAndIsNamedAfterItsFile) {
  ASSERT_GE(BuiltinCatalog().size(), 5u);
  for (const CatalogEntry& entry : BuiltinCatalog()) {
    const ModelResult result = ParseModel(entry.json);
    ASSERT_TRUE(result.ok()) << entry.file << ":\n" << result.ErrorText();
    EXPECT_EQ(std::string(entry.file), result.model->name + ".json");
    EXPECT_FALSE(result.model->title.empty()) << entry.file;
    EXPECT_FALSE(result.model->description.empty()) << entry.file;
    EXPECT_FALSE(result.model->time_unit.empty()) << entry.file << " has no units.t";
    for (const Variable* state : result.model->states()) {
      EXPECT_FALSE(state->unit.empty()) << entry.file << ": no unit for " << state->name;
    }
  }
}

// A dashboard slider spans a parameter's range, and a session is held to it: every catalog
// parameter states both ends, and its default lies inside (the reader refuses it otherwise).
TEST(CatalogTest, EveryParameterHasARangeAroundItsDefault) {
  for (const CatalogEntry& entry : BuiltinCatalog()) {
    const ModelResult result = ParseModel(entry.json);
    ASSERT_TRUE(result.ok()) << entry.file << ":\n" << result.ErrorText();
    for (const Parameter& p : result.model->parameters) {
      ASSERT_TRUE(p.minimum.has_value() && p.maximum.has_value())
          << entry.file << ": parameter '" << p.name << "' has no min and max";
      EXPECT_LT(*p.minimum, *p.maximum) << entry.file << ": " << p.name;
      EXPECT_TRUE(p.InRange(p.value)) << entry.file << ": " << p.name;
    }
  }
}

struct Shape {
  std::string name;
  Form form;
  std::size_t states;
  std::size_t constraints;
};

TEST(CatalogTest, ShapesAreAsDocumented) {
  const Shape shapes[] = {
      {"pendulum", Form::kMechanical, 4, 1},     {"double_pendulum", Form::kMechanical, 8, 2},
      {"slider_crank", Form::kMechanical, 8, 3}, {"car_axis", Form::kMechanical, 8, 2},
      {"index1_tanh", Form::kIndex1, 3, 1},
      {"index2_spiral", Form::kIndex2, 3, 1},
      // implicit: z and w of the reduction, G as constraints. The pendulum keeps (x, y, u, v)
      // and solves (der(u), der(v), lam) from the two dynamic equations and the rod's second
      // derivative; the circuit's one dependent derivative combination leaves index 1 with all
      // three voltages as states, solved for their derivatives; the reactor substitutes both
      // rate equations and solves c from the conservation law.
      {"pendulum_implicit", Form::kImplicit, 7, 3},
      {"double_pendulum_implicit", Form::kImplicit, 14, 6},
      {"rc_floating_capacitor", Form::kImplicit, 6, 3},
      {"reactor_conservation", Form::kImplicit, 3, 1},
      {"transistor_amplifier", Form::kImplicit, 16, 8},
  };
  for (const Shape& shape : shapes) {
    const auto model = CatalogModel(shape.name);
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(model->form, shape.form) << shape.name;
    EXPECT_EQ(model->num_states(), shape.states) << shape.name;
    EXPECT_EQ(model->constraints.size(), shape.constraints) << shape.name;
    EXPECT_EQ(model->constraint_names.size(), shape.constraints) << shape.name;
    EXPECT_TRUE(model->t_end.has_value()) << shape.name;
  }
}

// Chapter 11, Example 11.1: m = 2, l = 2.5, g = 9.81, q0 = (0.86, 2.35), v0 = 0, 50 s.
TEST(CatalogTest, PendulumIsTheSeedPendulumExactly) {
  const auto model = CatalogModel("pendulum");
  ASSERT_NE(model, nullptr);
  ASSERT_EQ(model->parameters.size(), 3u);
  EXPECT_EQ(model->parameters[0].name, "m");
  EXPECT_EQ(model->parameters[0].value, 2.0);
  EXPECT_EQ(model->parameters[0].unit, "kg");
  EXPECT_EQ(model->parameters[1].name, "l");
  EXPECT_EQ(model->parameters[1].value, 2.5);
  EXPECT_EQ(model->parameters[2].name, "g");
  EXPECT_EQ(model->parameters[2].value, 9.81);
  ASSERT_EQ(model->coordinates.size(), 2u);
  EXPECT_EQ(model->coordinates[0].name, "x");
  EXPECT_EQ(model->coordinates[1].name, "y");
  EXPECT_EQ(model->velocities[0].name, "vx");
  EXPECT_EQ(model->velocities[1].name, "vy");
  EXPECT_EQ(model->initial.at("x"), 0.86);
  EXPECT_EQ(model->initial.at("y"), 2.35);
  EXPECT_EQ(model->initial.at("vx"), 0.0);
  EXPECT_EQ(model->initial.at("vy"), 0.0);
  EXPECT_EQ(model->t_end, 50.0);
  EXPECT_EQ(model->constraint_names[0], "constraints[0]");

  // M = diag(m, m), f = (0, −m g), Φ = x² + y² − l², at a point where each term differs.
  const std::map<std::string, double> at = {{"x", 0.3}, {"y", -0.7}, {"vx", 1.1}, {"vy", 0.4}};
  ASSERT_EQ(model->mass.size(), 4u);
  EXPECT_EQ(Evaluate(*model, model->mass[0], at), 2.0);
  EXPECT_EQ(Evaluate(*model, model->mass[1], at), 0.0);
  EXPECT_EQ(Evaluate(*model, model->mass[2], at), 0.0);
  EXPECT_EQ(Evaluate(*model, model->mass[3], at), 2.0);
  EXPECT_EQ(Evaluate(*model, model->forces[0], at), 0.0);
  EXPECT_DOUBLE_EQ(Evaluate(*model, model->forces[1], at), -2.0 * 9.81);
  EXPECT_DOUBLE_EQ(Evaluate(*model, model->constraints[0], at), 0.09 + 0.49 - 6.25);
  ASSERT_EQ(model->outputs[0].name, "energy");
  EXPECT_DOUBLE_EQ(Evaluate(*model, model->outputs[0].value, at),
                   0.5 * 2.0 * (1.21 + 0.16) + 2.0 * 9.81 * -0.7);
}

// Φ_q at the initial configuration has full row rank: the mechanism is not locked there and
// the projection's Schur complement Φ_q M⁻¹ Φ_qᵀ is invertible.
TEST(CatalogTest, MechanicalConstraintsAreIndependentInitially) {
  for (const char* name : {"pendulum", "double_pendulum", "slider_crank"}) {
    const auto model = CatalogModel(name);
    ASSERT_NE(model, nullptr);
    std::map<std::string, double> at(model->initial.begin(), model->initial.end());
    const auto m = static_cast<Eigen::Index>(model->constraints.size());
    const auto n = static_cast<Eigen::Index>(model->coordinates.size());
    Eigen::MatrixXd jacobian(m, n);
    for (Eigen::Index i = 0; i < m; ++i) {
      for (Eigen::Index j = 0; j < n; ++j) {
        const expr::Expr d =
            model->context->Diff(model->constraints[static_cast<std::size_t>(i)],
                                 model->coordinates[static_cast<std::size_t>(j)].symbol);
        jacobian(i, j) = Evaluate(*model, d, at);
      }
    }
    const Eigen::JacobiSVD<Eigen::MatrixXd> svd(jacobian);
    const Eigen::VectorXd sigma = svd.singularValues();
    // A conditioning of 1e-3 is far from rank loss (entries are O(lengths) ≈ 0.1 … 2.5).
    EXPECT_GT(sigma(m - 1), 1e-3 * sigma(0)) << name << " Φ_q =\n" << jacobian;
  }
}

// The claimed solution of a semi-explicit model, by variable name.
using Solution = std::function<std::map<std::string, double>(double t)>;

// Residuals of x' − f(x, y, t) (x' by central difference) and of g(x, y, t) along `exact`.
void ExpectSolves(const Model& model, const Solution& exact) {
  // Central difference error: h²/6 · max|x'''| + ε·max|x|/h. With h = 1e-4, |x'''| ≤ 10 on
  // these smooth solutions for t ≤ 2.5 and |x| ≤ 1: ≈ 2e-8 + 1e-12, so 1e-7 is the bound.
  constexpr double kH = 1e-4;
  constexpr double kDerivativeTolerance = 1e-7;
  // g is evaluated exactly up to rounding of O(1) terms: a few ε.
  constexpr double kConstraintTolerance = 1e-14;
  for (double t : {0.0, 0.37, 1.0, 1.8, 2.5}) {
    std::map<std::string, double> at = exact(t);
    at["t"] = t;
    const std::map<std::string, double> ahead = exact(t + kH);
    const std::map<std::string, double> behind = exact(t - kH);
    for (std::size_t i = 0; i < model.differential.size(); ++i) {
      const std::string& x = model.differential[i].name;
      const double derivative = (ahead.at(x) - behind.at(x)) / (2 * kH);
      EXPECT_NEAR(derivative, Evaluate(model, model.rhs[i], at), kDerivativeTolerance)
          << model.name << ": " << x << "' at t = " << t;
    }
    for (const expr::Expr& g : model.constraints) {
      EXPECT_NEAR(Evaluate(model, g, at), 0.0, kConstraintTolerance) << model.name << " t = " << t;
    }
    for (const Output& output : model.outputs) {
      EXPECT_NEAR(Evaluate(model, output.value, at), 0.0, kConstraintTolerance)
          << model.name << ": " << output.name << " at t = " << t;
    }
  }
}

TEST(CatalogTest, Index1AnalyticSolutionSolvesTheDae) {
  const auto model = CatalogModel("index1_tanh");
  ASSERT_NE(model, nullptr);
  ExpectSolves(*model, [](double t) {
    const double x = std::tanh(t);
    return std::map<std::string, double>{{"x", x}, {"z", x * x / 2}, {"y", x * x}};
  });
  EXPECT_EQ(model->initial.at("x"), 0.0);
  EXPECT_EQ(model->initial.at("y"), 0.0);
}

TEST(CatalogTest, Index2AnalyticSolutionSolvesTheDae) {
  const auto model = CatalogModel("index2_spiral");
  ASSERT_NE(model, nullptr);
  ExpectSolves(*model, [](double t) {
    const double r = std::exp(-t * t / 2);
    return std::map<std::string, double>{
        {"x1", r * std::sin(t)}, {"x2", r * std::cos(t)}, {"y", -t}};
  });
  EXPECT_EQ(model->initial.at("x2"), 1.0);
}

}  // namespace
}  // namespace tether::model
