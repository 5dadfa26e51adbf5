// The implicit form end to end: the implicit pendulum against the mechanical one, every method
// and projection on its manifold, the floating-capacitor circuit against the same circuit
// written by hand in the index1 form.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numbers>
#include <string>
#include <vector>

#include "core/simulate/pendulum_spec.h"
#include "core/simulate/sim_helpers.h"
#include "tether/integrate/stepper.h"
#include "tether/model/registry.h"

namespace tether::testing {
namespace {

using simulate::Projection;
using simulate::Termination;

std::string Sci(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3e", x);
  return buffer;
}

std::shared_ptr<const model::Model> Catalog(const std::string& name) { return CatalogModel(name); }

// models/pendulum_implicit.json in the mechanical form (same parameters, names and start).
const char* kMechanicalTwin = R"({
  "name": "pendulum-twin",
  "form": "mechanical",
  "parameters": {"m": 1.0, "l": 1.0, "g": 9.81},
  "coordinates": ["x", "y"],
  "velocities": ["u", "v"],
  "mass": ["m", "m"],
  "forces": ["0", "-m*g"],
  "constraints": ["x^2 + y^2 - l^2"],
  "initial": {"x": 0.6, "y": -0.8, "u": 0, "v": 0},
  "outputs": {"energy": "0.5*m*(u^2 + v^2) + m*g*y"}
})";

// Runs to the end, which it must reach.
std::vector<Row> RunToEnd(simulate::Simulation& sim) {
  simulate::Status status;
  std::vector<Row> rows = RunAll(sim, &status);
  EXPECT_EQ(status.reason, Termination::kReachedEnd) << status.message;
  return rows;
}

simulate::Setup PendulumSetup(std::shared_ptr<const model::Model> model, const std::string& method,
                              Projection projection) {
  simulate::Setup setup;
  setup.model = std::move(model);
  setup.options.method = method;
  setup.options.projection = projection;
  setup.options.rtol = 1e-10;
  setup.options.atol = 1e-10;
  setup.options.step = method == "euler" ? 1e-4 : method == "rk4" ? 1e-3 : 0.0;
  setup.options.t_end = 3.0;
  setup.options.output_interval = 0.05;
  return setup;
}

// A column of the implicit run, its twin in the other run, and the size it is compared against.
struct Pair {
  std::string implicit;
  std::string twin;
  double scale = 1.0;
};

// Runs both to their end and returns max |a − b| / scale over every sample and pair.
double MaxDifference(simulate::Simulation& implicit, simulate::Simulation& twin,
                     const std::vector<Pair>& pairs) {
  const std::vector<Row> a = RunToEnd(implicit);
  const std::vector<Row> b = RunToEnd(twin);
  EXPECT_EQ(a.size(), b.size());
  double worst = 0.0;
  for (const Pair& pair : pairs) {
    const std::size_t ki = Column(implicit, pair.implicit);
    const std::size_t kt = Column(twin, pair.twin);
    for (std::size_t r = 0; r < std::min(a.size(), b.size()); ++r) {
      EXPECT_EQ(a[r].t, b[r].t);
      worst = std::max(worst, std::abs(a[r].values[ki] - b[r].values[kt]) / pair.scale);
    }
  }
  return worst;
}

struct Case {
  std::string method;
  Projection projection;
};

class ImplicitPendulum : public ::testing::TestWithParam<Case> {};

// Both forms reduce to the same ODE on z = (x, y, u, v): q' = v and the multiplier from the
// rod's second derivative; they differ only in how the linear stage system is solved (the
// mechanical form's Schur complement, the implicit form's Newton on G, linear in w, so one
// step), that is by rounding, about 1e-15 relative. Equal step sequences then keep the runs
// within rounding amplified over a few hundred steps; 1e-9 is the figure the form promises
// ("equal to the mechanical pendulum to 1e-9 at equal tolerance").
TEST_P(ImplicitPendulum, EqualsTheMechanicalPendulum) {
  const Case c = GetParam();
  auto implicit = CreateOrFail(PendulumSetup(Catalog("pendulum_implicit"), c.method, c.projection));
  auto mechanical = CreateOrFail(PendulumSetup(ParseOrDie(kMechanicalTwin), c.method, c.projection));
  ASSERT_TRUE(implicit && mechanical);
  // λ and the energy are of the size m g ≈ 10 and 3 m g ≈ 30: compare relative to that.
  const double worst = MaxDifference(*implicit, *mechanical,
                                     {{"x", "x"}, {"y", "y"}, {"u", "u"}, {"v", "v"},
                                      {"lam", "lambda_1", 30.0}, {"energy", "energy", 30.0}});
  EXPECT_LE(worst, 1e-9) << c.method;
  RecordProperty("max_difference", Sci(worst));
}

INSTANTIATE_TEST_SUITE_P(
    Methods, ImplicitPendulum,
    ::testing::Values(Case{"euler", Projection::kCoupled}, Case{"rk4", Projection::kCoupled},
                      Case{"rk4", Projection::kSequential}, Case{"dp5", Projection::kCoupled},
                      Case{"dop853", Projection::kCoupled}, Case{"dop853", Projection::kSequential},
                      Case{"dop853", Projection::kNone}),
    [](const auto& param_info) {
      const Case& c = param_info.param;
      return c.method + "_" + std::string(simulate::ProjectionName(c.projection));
    });

// The mechanism with two multipliers: models/double_pendulum_implicit.json against the catalog's
// double_pendulum, the same argument as for the pendulum. The motion is chaotic, so rounding
// differences grow like e^(Λt); over 2 s from rest (Λ of a few 1/s for this energy) they stay far
// below 1e-9. Multipliers and energy are of the size (m1 + m2) g l ≈ 20.
TEST(ImplicitForm, DoublePendulumEqualsTheMechanicalOne) {
  for (Projection projection : {Projection::kCoupled, Projection::kSequential}) {
    simulate::Setup a = PendulumSetup(Catalog("double_pendulum_implicit"), "dop853", projection);
    a.options.t_end = 2.0;
    simulate::Setup b = a;
    b.model = Catalog("double_pendulum");
    auto implicit = CreateOrFail(a);
    auto mechanical = CreateOrFail(b);
    ASSERT_TRUE(implicit && mechanical);
    std::vector<Pair> pairs = {{"lam1", "lambda_1", 20.0}, {"lam2", "lambda_2", 20.0},
                               {"energy", "energy", 20.0}};
    for (const char* name : {"x1", "y1", "x2", "y2", "vx1", "vy1", "vx2", "vy2"}) {
      pairs.push_back({name, name, 1.0});
    }
    const double worst = MaxDifference(*implicit, *mechanical, pairs);
    EXPECT_LE(worst, 1e-9) << simulate::ProjectionName(projection);
    RecordProperty(std::string("max_difference_") +
                       std::string(simulate::ProjectionName(projection)),
                   Sci(worst));
  }
}

// A driven chain of index 4: x1 = sin t is differentiated three times, so there are three
// invariant levels (x1 − sin t, x2 − cos t, x3 + sin t) and G is lam + cos t = 0. Levels 1 and 2
// form the second block of the sequential projector. Every sample is on all three levels to
// the projector's tolerance 1e-12 (each scale is max(1, |x_i|) = 1), and lam = −cos t to the
// stage Newton's 1e-12.
const char* kChainOfIndexFour = R"json({
  "name": "chain4",
  "form": "implicit",
  "variables": ["x1", "x2", "x3", "lam"],
  "equations": ["der(x1) = x2", "der(x2) = x3", "der(x3) = lam", {"name": "drive", "expr": "x1 = sin(t)"}],
  "initial": {"x1": 0, "x2": 1, "x3": 0, "lam": 0},
  "outputs": {"x1_error": "x1 - sin(t)", "x3_error": "x3 + sin(t)", "lam_error": "lam + cos(t)"}
})json";

TEST(ImplicitForm, ThreeInvariantLevelsAreAllKept) {
  const auto model = ParseOrDie(kChainOfIndexFour);
  ASSERT_TRUE(model->implicit);
  EXPECT_EQ(model->implicit->report.structural_index, 4);
  ASSERT_EQ(model->implicit->invariant_names.size(), 3u);
  for (Projection projection : {Projection::kCoupled, Projection::kSequential}) {
    auto sim = CreateOrFail(PendulumSetup(model, "dop853", projection));
    ASSERT_TRUE(sim);
    const std::vector<Row> rows = RunToEnd(*sim);
    ASSERT_GT(rows.size(), 10u);
    for (const char* name : {"x1_error", "x3_error", "lam_error"}) {
      const std::size_t k = Column(*sim, name);
      for (const Row& r : rows) ASSERT_LE(std::abs(r.values[k]), 1e-12) << name << " t = " << r.t;
    }
    for (const Row& r : rows) ASSERT_LE(r.residual_velocity, 1e-12) << "t = " << r.t;
  }
}

// Consistent initialization of the implicit form: start values off the rod (0.7, −0.8) and a
// velocity off its derivative; with x fixed, y alone moves onto the rod (y = −√(1 − 0.49), the
// branch nearest −0.8), then (u, v) move to the nearest point of 2(x u + y v) = 0, and the stage
// unknowns follow from G. The report lists every change, w included.
TEST(ImplicitForm, InitializationKeepsFixedStatesAndMovesTheRest) {
  simulate::Setup setup = PendulumSetup(Catalog("pendulum_implicit"), "dop853",
                                        Projection::kCoupled);
  setup.initial = {{"x", 0.7}, {"y", -0.8}, {"u", 1.0}, {"v", 0.0}};
  setup.fixed = {"x"};
  auto sim = CreateOrFail(setup);
  ASSERT_TRUE(sim);
  const simulate::InitializationReport& report = sim->initialization();
  std::map<std::string, double> corrected;
  for (const auto& change : report.changes) corrected[change.name] = change.corrected;
  EXPECT_EQ(corrected.count("x"), 0u);
  const double y = -std::sqrt(1.0 - 0.49);
  ASSERT_EQ(corrected.count("y"), 1u);
  EXPECT_NEAR(corrected["y"], y, 1e-12);
  // (u, v) ← (1, 0) − ((x·1 + y·0)/(x² + y²)) (x, y): the projection onto the normal plane.
  ASSERT_EQ(corrected.count("u"), 1u);
  EXPECT_NEAR(corrected["u"], 1.0 - 0.7 * 0.7, 1e-12);
  EXPECT_NEAR(corrected["v"], -0.7 * y, 1e-12);
  EXPECT_EQ(corrected.count("lam"), 1u);
  EXPECT_LE(report.residual_position_after, 1e-12);
  EXPECT_LE(report.residual_velocity_after, 1e-12);
  EXPECT_GT(report.residual_position_before, 0.1);  // 0.49 + 0.64 − 1 = 0.13
}

// The options that need another form are refused by path when the session is created.
TEST(ImplicitForm, OptionsOfOtherFormsAreRefusedByPath) {
  simulate::Setup setup = PendulumSetup(Catalog("pendulum_implicit"), "dop853",
                                        Projection::kCoupled);
  setup.options.algebraic = simulate::AlgebraicMode::kOde;
  setup.options.metric = simulate::Metric::kMass;
  const simulate::CreateResult created = simulate::Simulation::Create(setup);
  ASSERT_FALSE(created.simulation);
  std::map<std::string, std::string> problems;
  for (const auto& p : created.problems) problems[p.path] = p.message;
  ASSERT_EQ(problems.count("options.algebraic"), 1u);
  EXPECT_NE(problems["options.algebraic"].find("not available for form 'implicit'"),
            std::string::npos);
  ASSERT_EQ(problems.count("options.metric"), 1u);
  EXPECT_NE(problems["options.metric"].find("needs a mechanical model"), std::string::npos);
}

// Problems of the Test Set for IVP Solvers (F. Mazzia, C. Magherini, Release 2.4, Univ. Bari,
// 2008) in the implicit form, against the set's reference solutions: at rtol = 1e-8 every
// component must have at least 6 correct significant digits, |y − y_ref| ≤ 1e-6 |y_ref|.
// transamp (index 1, mass matrix of rank 5) is the catalog's transistor_amplifier; chemakzo
// (index 1, the equilibrium y6 = Ks y1 y4 as an algebraic equation) is written here.
const char* kChemAkzo = R"json({
  "name": "chemakzo",
  "form": "implicit",
  "parameters": {"k1": 18.7, "k2": 0.58, "k3": 0.09, "k4": 0.42, "kbig": 34.4, "kla": 3.3,
                 "ks": 115.83, "po2": 0.9, "hen": 737},
  "definitions": {"r1": "k1*y1^4*sqrt(y2)", "r2": "k2*y3*y4", "r3": "k2/kbig*y1*y5",
                  "r4": "k3*y1*y4^2", "r5": "k4*y6^2*sqrt(y2)", "fin": "kla*(po2/hen - y2)"},
  "variables": ["y1", "y2", "y3", "y4", "y5", "y6"],
  "equations": ["der(y1) = -2*r1 + r2 - r3 - r4", "der(y2) = -0.5*r1 - r4 - 0.5*r5 + fin",
                "der(y3) = r1 - r2 + r3", "der(y4) = -r2 + r3 - 2*r4", "der(y5) = r2 - r3 + r5",
                "ks*y1*y4 = y6"],
  "initial": {"y1": 0.444, "y2": 0.00123, "y3": 0, "y4": 0.007, "y5": 0, "y6": 0.3571497}
})json";

struct Reference {
  std::shared_ptr<const model::Model> model;
  double t_end;
  std::vector<double> y;  // y1, y2, … at t_end
};

Reference TransistorAmplifier() {
  return {Catalog("transistor_amplifier"), 0.2,
          {-0.5562145012262709e-2, 0.3006522471903042e1, 0.2849958788608128e1,
           0.2926422536206241e1, 0.2704617865010554e1, 0.2761837778393145e1,
           0.4770927631616772e1, 0.1236995868091548e1}};
}

TEST(ImplicitForm, TestSetProblemsReachSixSignificantDigits) {
  const Reference problems[] = {
      TransistorAmplifier(),
      {ParseOrDie(kChemAkzo), 180.0,
       {0.1150794920661702, 0.1203831471567715e-2, 0.1611562887407974,
        0.3656156421249283e-3, 0.1708010885264404e-1, 0.4873531310307455e-2}},
  };
  for (const Reference& problem : problems) {
    simulate::Setup setup;
    setup.model = problem.model;
    setup.options.method = "dop853";
    setup.options.rtol = 1e-8;
    setup.options.atol = 1e-10;  // below rtol·|y| of the smallest components (y2, y4 ≈ 1e-3)
    setup.options.t_end = problem.t_end;
    setup.options.output_interval = problem.t_end;
    auto sim = CreateOrFail(setup);
    ASSERT_TRUE(sim);
    const std::vector<Row> rows = RunToEnd(*sim);
    ASSERT_EQ(rows.back().t, problem.t_end);
    for (std::size_t i = 0; i < problem.y.size(); ++i) {
      const std::string name = "y" + std::to_string(i + 1);
      const double y = rows.back().values[Column(*sim, name)];
      EXPECT_LE(std::abs(y - problem.y[i]), 1e-6 * std::abs(problem.y[i]))
          << problem.model->name << " " << name;
    }
  }
}

// sin(der(x)) = 1/2 has the roots π/6 + 2πk and 5π/6 + 2πk: consistent initialization
// takes the one its Newton reaches from the start value of der(x), 0 unless `initial` gives
// one. Then x = der(x)·t.
TEST(ImplicitForm, AStartValueForADerivativePicksItsRoot) {
  constexpr double kPi = std::numbers::pi;
  for (const auto& [start, root] : {std::pair{0.0, kPi / 6}, std::pair{2.5, 5 * kPi / 6}}) {
    SCOPED_TRACE(start);
    simulate::Setup setup;
    setup.model = ParseOrDie(R"json({"name": "sine_root", "form": "implicit",
        "variables": ["x"], "equations": ["sin(der(x)) = 0.5"],
        "initial": {"x": 0, "der(x)": )json" + std::to_string(start) + "}}");
    setup.options.t_end = 1.0;
    setup.options.output_interval = 1.0;
    auto sim = CreateOrFail(setup);
    ASSERT_TRUE(sim);
    const std::vector<Row> rows = RunToEnd(*sim);
    ASSERT_EQ(rows.back().t, 1.0);
    EXPECT_NEAR(rows.back().values[Column(*sim, "der(x)")], root, 1e-12);
    EXPECT_NEAR(rows.back().values[Column(*sim, "x")], root, 1e-9);
  }
}

// The transistor amplifier by radau5 at rtol = atol = 1e-8 and 1e-10. Its stage system has the
// derivatives der(y_k) as unknowns, weighed by y_k (radau5.h): in their own weights their Newton
// increments stall at rounding level near the transistors' exponentials (at 1e-10: step size
// underflow at t = 0.0131). Order 5 with local errors ≤ rtol over about 10⁴ steps of a circuit
// that damps its errors: 100·rtol relative bounds the end error (measured ≤ 15·rtol). And on
// this mildly stiff circuit, sampled 400 times per 0.2 s, radau5 takes about as many steps as
// dp5 (5192 and 4792 at 1e-8; 10781 in the derivatives' own weights).
TEST(ImplicitForm, Radau5ReachesTheTransistorAmplifierReferenceAtTightTolerances) {
  const Reference transistor = TransistorAmplifier();
  const auto run = [&](const std::string& method, double rtol, std::vector<double>* end) {
    simulate::Setup setup;
    setup.model = transistor.model;
    setup.options.method = method;
    setup.options.rtol = setup.options.atol = rtol;
    setup.options.t_end = transistor.t_end;
    auto sim = CreateOrFail(setup);
    if (!sim) return std::uint64_t{0};
    simulate::Status status;
    const std::vector<Row> rows = RunAll(*sim, &status);
    EXPECT_EQ(status.reason, simulate::Termination::kReachedEnd) << method << ": "
                                                                  << status.message;
    if (end != nullptr && !rows.empty()) {
      for (std::size_t i = 0; i < transistor.y.size(); ++i) {
        end->push_back(rows.back().values[Column(*sim, "y" + std::to_string(i + 1))]);
      }
    }
    return sim->statistics().steps;
  };
  for (const double rtol : {1e-8, 1e-10}) {
    SCOPED_TRACE(rtol);
    std::vector<double> y;
    const std::uint64_t steps = run("radau5", rtol, &y);
    ASSERT_EQ(y.size(), transistor.y.size());
    for (std::size_t i = 0; i < y.size(); ++i) {
      EXPECT_LE(std::abs(y[i] - transistor.y[i]), 100 * rtol * std::abs(transistor.y[i]))
          << "y" << i + 1;
    }
    EXPECT_LT(static_cast<double>(steps), 1.5 * static_cast<double>(run("dp5", rtol, nullptr)));
  }
}

// Every registered method and every projection that applies to the form runs the implicit
// pendulum to its end with every sample on both invariant levels (whatever the step error:
// rtol = 1e-6 keeps bdf, which restarts after every projection, to a few thousand steps). Newton stops at scaled
// residual 1e-12 with s = max(1, ½ Σ_j |∂H/∂z_j z_j|): for the rod x² + y² − 1, s = 1; for its
// derivative 2(x u + y v), s ≤ 2 |q| |v| ≤ 2·1·√(2 g · 2l) ≈ 12.5 (energy bound on the speed).
TEST(ImplicitForm, EveryMethodStaysOnEveryInvariantLevel) {
  for (std::string_view method : integrate::StepperNames()) {
    for (Projection projection : {Projection::kCoupled, Projection::kSequential}) {
      simulate::Setup setup =
          PendulumSetup(Catalog("pendulum_implicit"), std::string(method), projection);
      setup.options.rtol = setup.options.atol = 1e-6;
      auto sim = CreateOrFail(setup);
      ASSERT_TRUE(sim);
      SCOPED_TRACE(std::string(method));
      const std::vector<Row> rows = RunToEnd(*sim);
      const std::size_t x = Column(*sim, "x"), y = Column(*sim, "y");
      const std::size_t u = Column(*sim, "u"), v = Column(*sim, "v");
      for (const Row& r : rows) {
        const double rod = r.values[x] * r.values[x] + r.values[y] * r.values[y] - 1.0;
        const double rod_rate = 2.0 * (r.values[x] * r.values[u] + r.values[y] * r.values[v]);
        ASSERT_LE(std::abs(rod), 1e-12 + 4e-16) << method << " t = " << r.t;
        ASSERT_LE(std::abs(rod_rate), 12.5e-12) << method << " t = " << r.t;
        ASSERT_LE(r.residual_position, 1e-12 + 4e-16) << method << " t = " << r.t;
        ASSERT_LE(r.residual_velocity, 12.5e-12) << method << " t = " << r.t;
      }
    }
  }
}

// The circuit of models/rc_floating_capacitor.json with the change of variables done by hand:
// q = u1 − u2 (the capacitor voltage) is the state, u1 and u2 follow from q and the sum of the
// first two node equations, which has no derivative.
const char* kCircuitByHand = R"json({
  "name": "rc-by-hand",
  "form": "index1",
  "parameters": {"U0": 1.0, "omega": 6.283185307179586, "R0": 1000, "R1": 2000, "R2": 500,
                 "R3": 4000, "C1": 1e-4, "C3": 2e-4},
  "definitions": {"ue": "U0*sin(omega*t)"},
  "differential": ["q", "u3"],
  "algebraic": ["u1", "u2"],
  "rhs": ["(ue - u1)/(R0*C1)", "((u2 - u3)/R2 - u3/R3)/C3"],
  "constraints": ["u1 - u2 - q", "(ue - u1)/R0 - u2/R1 - (u2 - u3)/R2"],
  "initial": {"q": 0, "u3": 0, "u1": 0, "u2": 0}
})json";

// Two runs of an 8th-order pair at rtol = atol = 1e-10 over t ∈ [0, 2] (a few hundred steps of a
// dissipative linear circuit with voltages ≤ 1 V): each global error ≤ steps · 1e-10 ≈ 1e-7.
TEST(ImplicitForm, FloatingCapacitorCircuitMatchesTheHandReduction) {
  simulate::Setup a;
  a.model = Catalog("rc_floating_capacitor");
  a.options.method = "dop853";
  a.options.rtol = a.options.atol = 1e-10;
  a.options.t_end = 2.0;
  a.options.output_interval = 0.01;
  simulate::Setup b = a;
  b.model = ParseOrDie(kCircuitByHand);
  auto implicit = CreateOrFail(a);
  auto by_hand = CreateOrFail(b);
  ASSERT_TRUE(implicit && by_hand);
  const std::vector<Row> ra = RunToEnd(*implicit);
  const std::vector<Row> rb = RunToEnd(*by_hand);
  ASSERT_EQ(ra.size(), rb.size());
  double worst = 0.0, largest = 0.0;
  for (const std::string name : {"u1", "u2", "u3"}) {
    const std::size_t ka = Column(*implicit, name), kb = Column(*by_hand, name);
    for (std::size_t r = 0; r < ra.size(); ++r) {
      worst = std::max(worst, std::abs(ra[r].values[ka] - rb[r].values[kb]));
      largest = std::max(largest, std::abs(ra[r].values[ka]));
    }
  }
  EXPECT_GT(largest, 0.1);  // the source drives the circuit: a comparison of zeros proves nothing
  EXPECT_LE(worst, 2e-7);
  RecordProperty("max_difference", Sci(worst));
}

}  // namespace
}  // namespace tether::testing
