// Index-1 systems handed whole to the implicit methods (algebraic mode kStage, reduced_model.h):
// radau5 and bdf advance M (x, y)' = (f, c) with M = diag(I, 0) and solve c = 0 inside their
// stage systems, instead of an inner Newton per stage evaluation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/simulate/pendulum_spec.h"
#include "core/simulate/sim_helpers.h"
#include "tether/integrate/stepper.h"
#include "tether/reduce/reduced_model.h"
#include "tether/simulate/simulation.h"

namespace tether::testing {
namespace {

// x' = 1 − y, z' = x (1 − y), 0 = y + y³ − x² − x⁶: y = x² (y + y³ is increasing), so
// x = tanh t, y = tanh² t, z = tanh t − t + … (z is not checked).
constexpr const char* kTanhSpec = R"json({"name": "i1", "form": "index1",
    "differential": ["x", "z"], "algebraic": ["y"], "rhs": ["1 - y", "x*(1 - y)"],
    "constraints": ["y + y^3 - x^2 - x^6"], "initial": {"x": 0, "z": 0, "y": 0},
    "outputs": {"x_error": "x - tanh(t)", "y_error": "y - tanh(t)^2"}})json";

// Robertson's kinetics with the conservation law as the constraint (HW II, IV.10).
constexpr const char* kRobertsonSpec = R"json({"name": "robertson", "form": "index1",
    "differential": ["y1", "y2"], "algebraic": ["y3"],
    "rhs": ["-0.04*y1 + 1e4*y2*y3", "0.04*y1 - 1e4*y2*y3 - 3e7*y2^2"],
    "constraints": ["y1 + y2 + y3 - 1"], "initial": {"y1": 1, "y2": 0, "y3": 0}})json";

simulate::Setup TanhSetup(const std::string& method) {
  simulate::Setup setup;
  setup.model = ParseOrDie(kTanhSpec);
  setup.options.method = method;
  setup.options.t_end = 1.0;
  setup.options.output_interval = 0.05;
  return setup;
}

// Every sample, step ends and interpolated grid points alike, has y re-solved from g = 0 at
// its projected x: the algebraic Newton stops at scaled residual ≤ projection_tolerance with
// the scale s = max(1, ½(|g_x x| + |g_y y|)) ≤ ½((2 + 6)·1 + (1 + 3)·1) = 6 on x, y ∈ [0, 1],
// so |g| ≤ 6 · 1e-12. bdf interpolates the grid points inside its steps; radau5 ends a step at
// each of them (Stepper::samples_at_step_ends).
TEST(StageAlgebraic, EverySampleSatisfiesTheConstraintToTheProjectionTolerance) {
  for (const std::string method : {"radau5", "bdf"}) {
    SCOPED_TRACE(method);
    simulate::Setup setup = TanhSetup(method);
    setup.options.rtol = 1e-6;
    setup.options.atol = 1e-6;
    setup.options.t_end = 3.0;
    setup.options.output_interval = 0.001;  // samples inside the steps
    auto sim = CreateOrFail(setup);
    ASSERT_TRUE(sim);
    simulate::Status status;
    const std::vector<Row> rows = RunAll(*sim, &status);
    ASSERT_EQ(status.reason, simulate::Termination::kReachedEnd) << status.message;
    if (method == "bdf") {
      ASSERT_GT(rows.size(), 2 * sim->statistics().steps) << "samples must lie inside steps";
    } else {
      ASSERT_LE(rows.size(), sim->statistics().steps + 1) << "samples must be step ends";
    }
    for (const Row& row : rows) {
      EXPECT_LE(row.residual_position, 6 * setup.options.projection_tolerance) << "t = " << row.t;
      const double x = row.values[0];
      const double y = row.values[2];
      EXPECT_LE(std::abs(y + y * y * y - std::pow(x, 2) - std::pow(x, 6)),
                6 * setup.options.projection_tolerance)
          << "t = " << row.t;
    }
  }
}

// The reduced model as Simulation hands it to a stepper (simulation.cc), with no invariants to
// project onto (index 1): M = I and F = f(x, y(x)) in kSolve, M = diag(I, 0) and F = (f, g) in
// kStage, whose step ends get y re-solved as Simulation does.
class ReducedSystem : public integrate::OdeSystem {
 public:
  explicit ReducedSystem(reduce::ReducedModel* model) : model_(model) {
    for (const auto& e : model->jacobian_pattern()) pattern_.push_back({e.row, e.col});
    for (std::uint32_t i = 0; i < model->stage_differential_size(); ++i) {
      mass_pattern_.push_back({i, i});
      mass_values_.push_back(1.0);
    }
  }
  [[nodiscard]] std::size_t size() const override { return model_->ode_size(); }
  bool Evaluate(double t, std::span<const double> x, std::span<double> dxdt) override {
    return model_->Rhs(t, x, dxdt);
  }
  [[nodiscard]] std::span<const integrate::MatrixEntry> mass_pattern() const override {
    return mass_pattern_;
  }
  [[nodiscard]] std::span<const double> mass_values() const override { return mass_values_; }
  [[nodiscard]] std::span<const integrate::MatrixEntry> jacobian_pattern() const override {
    return pattern_;
  }
  bool Jacobian(double t, std::span<const double> x, std::span<double> values) override {
    return model_->Jacobian(t, x, values);
  }

 private:
  reduce::ReducedModel* model_;
  std::vector<integrate::MatrixEntry> pattern_;
  std::vector<integrate::MatrixEntry> mass_pattern_;
  std::vector<double> mass_values_;
};

struct PathRun {
  std::vector<double> end;  // the full state (x, y) at t_end
  std::uint64_t stage_evaluations = 0;
  std::uint64_t steps = 0;
};

// radau5 with `options` from the consistent initial state to t_end in algebraic mode `mode`
// (fixed-step options: steps of options.step, the last one shortened to end at t_end).
PathRun RunRadau5(const char* spec, reduce::AlgebraicMode mode, double t_end,
                  const integrate::StepperOptions& options) {
  PathRun run;
  reduce::ReduceOptions reduce_options;
  reduce_options.algebraic = mode;
  reduce_options.jacobian = true;
  reduce::ReduceResult built = reduce::ReducedModel::Build(ParseOrDie(spec), reduce_options);
  EXPECT_TRUE(built.reduced) << built.error;
  if (!built.reduced) return run;
  reduce::ReducedModel& model = *built.reduced;
  std::vector<double> state(model.num_states(), 0.0);
  const std::vector<const model::Variable*> variables = model.model().states();
  for (std::size_t i = 0; i < state.size(); ++i) state[i] = model.model().initial.at(variables[i]->name);
  std::vector<double> z(model.ode_size()), z_new(model.ode_size());
  model.SetFullState(state, z);
  const std::unique_ptr<integrate::Stepper> stepper = integrate::MakeStepper("radau5", options);
  stepper->Resize(z.size());
  ReducedSystem system(&model);
  double t = 0.0;
  while (t < t_end) {
    const double h = options.error_control ? t_end - t : std::min(options.step, t_end - t);
    const integrate::StepResult r = stepper->Step(system, t, z, h, z_new);
    EXPECT_EQ(r.status, integrate::StepStatus::kAccepted) << "t = " << t << ": " << r.message;
    if (r.status != integrate::StepStatus::kAccepted) return run;
    // The last fixed step lands on t_end when the rounding of t + h would miss it.
    t = r.h_taken == t_end - t || t_end - (t + r.h_taken) < 1e-9 * h ? t_end : t + r.h_taken;
    EXPECT_TRUE(model.SolveAlgebraicPart(t, z_new)) << model.failure().message;
    z.swap(z_new);
    ++run.steps;
  }
  run.end.resize(model.num_states());
  model.FullState(z, run.end);
  run.stage_evaluations = model.stage_evaluations();
  return run;
}

// The same problem, both ways: the kSolve path pays an inner Newton (one stage evaluation per
// iteration, plus the one that finds it converged) in every one of radau5's evaluations; kStage
// pays one evaluation each, plus one per step end for re-solving y. Both meet the same
// tolerances, so their end states agree to the global error (≤ 1e-6 relative here, a hundred
// times the rtol of these damped problems, HW II, IV.10).
TEST(StageAlgebraic, TheStageSystemNeedsFewerEvaluationsThanTheInnerNewton) {
  struct Case {
    const char* name;
    const char* spec;
    double t_end, rtol, atol;
  };
  for (const Case& c : {Case{"tanh", kTanhSpec, 3.0, 1e-8, 1e-8},
                        Case{"robertson", kRobertsonSpec, 40.0, 1e-8, 1e-14}}) {
    SCOPED_TRACE(c.name);
    integrate::StepperOptions options;
    options.rtol = c.rtol;
    options.atol = c.atol;
    const PathRun solve = RunRadau5(c.spec, reduce::AlgebraicMode::kSolve, c.t_end, options);
    const PathRun stage = RunRadau5(c.spec, reduce::AlgebraicMode::kStage, c.t_end, options);
    ASSERT_EQ(solve.end.size(), stage.end.size());
    for (std::size_t i = 0; i < solve.end.size(); ++i) {
      EXPECT_NEAR(stage.end[i], solve.end[i], 1e-6 * std::max(std::abs(solve.end[i]), 1e-6)) << i;
    }
    EXPECT_LT(stage.stage_evaluations, solve.stage_evaluations);
    RecordProperty(std::string(c.name) + "_evaluations_solve",
                   std::to_string(solve.stage_evaluations) + " in " + std::to_string(solve.steps) +
                       " steps");
    RecordProperty(std::string(c.name) + "_evaluations_stage",
                   std::to_string(stage.stage_evaluations) + " in " + std::to_string(stage.steps) +
                       " steps");
  }
}

// radau5 at fixed steps h = 0.1, 0.05, 0.025 to t = 1 on the stage system (x, y). Radau IIA
// is stiffly accurate, so on an index-1 DAE its direct approach equals the method applied to
// the state-space form x' = f(x, G(x)) (HW II, VI.1): order 5 at step points for x. Halving h
// divides the error of x at t = 1 by 2⁵ = 32: log2 of the ratio within 0.3 of 5. Measured
// 4.0e-9, 1.3e-10, 4.0e-12 (ratios 31.6, 31.8). rtol = 1e-13 and 50 Newton iterations (as
// tests/core/integrate/radau5_test.cc's fixed-step runs) put the Newton error near 1e-15.
TEST(StageAlgebraic, Radau5IsOfOrderFiveOnTheDifferentialVariables) {
  integrate::StepperOptions options;
  options.error_control = false;
  options.rtol = 1e-13;
  options.atol = 1e-13;
  options.newton_max_iterations = 50;
  std::vector<double> errors;
  for (double h : {0.1, 0.05, 0.025}) {
    options.step = h;
    const PathRun run = RunRadau5(kTanhSpec, reduce::AlgebraicMode::kStage, 1.0, options);
    ASSERT_FALSE(run.end.empty());
    errors.push_back(std::abs(run.end[0] - std::tanh(1.0)));
    char text[32];
    std::snprintf(text, sizeof text, "%.3e", errors.back());
    RecordProperty("x_error_h" + std::to_string(errors.size()), text);
  }
  ASSERT_GT(errors.back(), 1e-13) << "too close to the Newton error";
  EXPECT_NEAR(std::log2(errors[0] / errors[1]), 5.0, 0.3);
  EXPECT_NEAR(std::log2(errors[1] / errors[2]), 5.0, 0.3);
}

// 0 = atan(y − 100 sin x) with x = t: y = 100 sin t. The simplified Newton of a stage, with
// J frozen where ∂g/∂y = 1/(1 + e²) for e = y − 100 sin x, contracts only while the starting
// values are within about one unit of the solution; a first step of 1 (y moves by ~80 over it)
// starts them far off, so the iteration fails, the step is rejected and retried smaller until
// it converges, and the run reaches its end accurate to the tolerance.
TEST(StageAlgebraic, AnAlgebraicNewtonThatFailsForLargeStepsIsRetriedSmaller) {
  for (const std::string method : {"radau5", "bdf"}) {
    SCOPED_TRACE(method);
    simulate::Setup setup;
    setup.model = ParseOrDie(R"json({"name": "atan_drive", "form": "index1",
        "differential": ["x"], "algebraic": ["y"], "rhs": ["1"],
        "constraints": ["atan(y - 100*sin(x))"], "initial": {"x": 0, "y": 0},
        "outputs": {"y_error": "y - 100*sin(t)"}})json");
    setup.options.method = method;
    setup.options.rtol = 1e-8;
    setup.options.atol = 1e-8;
    setup.options.step = 1.0;  // the first step tried
    setup.options.t_end = 3.0;
    setup.options.output_interval = 1.0;  // radau5 ends its steps at the samples: not before 1
    auto sim = CreateOrFail(setup);
    ASSERT_TRUE(sim);
    simulate::Status status;
    const std::vector<Row> rows = RunAll(*sim, &status);
    ASSERT_EQ(status.reason, simulate::Termination::kReachedEnd) << status.message;
    EXPECT_GT(sim->statistics().rejected_steps, 0u);
    // y is determined by x = t exactly (x' = 1 is integrated without error), so its error is
    // the Newton tolerance's: 1e-12 · max(1, ½·|100 cos x · x| + ½|y|) ≤ 1e-12 · 200.
    const std::size_t y_error = Column(*sim, "y_error");
    for (const Row& row : rows) EXPECT_NEAR(row.values[y_error], 0.0, 2e-10) << "t = " << row.t;
  }
}

// Index 2 as the index-1 system in y that kSolve solves (F = (f, h), h = g_x f + g_t), with
// projection onto g after every step (radau5; bdf keeps CVODE with the inner Newton for a model
// with invariants, simulation.cc): the catalog's spiral against its analytic solution.
// Global error ≤ steps · rtol-ish local errors for these damped dynamics: 1e-6 at rtol 1e-9.
TEST(StageAlgebraic, IndexTwoRunsThroughItsIndexOneStageSystem) {
  for (const std::string method : {"radau5", "bdf"}) {
    SCOPED_TRACE(method);
    simulate::Setup setup;
    setup.model = ParseOrDie(R"json({"name": "spiral", "form": "index2",
        "differential": ["x1", "x2"], "algebraic": ["y"], "rhs": ["x2 + y*x1", "-x1 + y*x2"],
        "constraints": ["x1^2 + x2^2 - exp(-t^2)"], "initial": {"x1": 0, "x2": 1, "y": 0},
        "outputs": {"x1_error": "x1 - exp(-t^2/2)*sin(t)", "x2_error": "x2 - exp(-t^2/2)*cos(t)",
                    "y_error": "y + t"}})json");
    setup.options.method = method;
    setup.options.rtol = 1e-9;
    setup.options.atol = 1e-9;
    setup.options.t_end = 3.0;
    setup.options.output_interval = 0.01;
    auto sim = CreateOrFail(setup);
    ASSERT_TRUE(sim);
    simulate::Status status;
    const std::vector<Row> rows = RunAll(*sim, &status);
    ASSERT_EQ(status.reason, simulate::Termination::kReachedEnd) << status.message;
    for (const std::string name : {"x1_error", "x2_error", "y_error"}) {
      const std::size_t k = Column(*sim, name);
      for (const Row& row : rows) EXPECT_NEAR(row.values[k], 0.0, 1e-6) << name << " t = " << row.t;
    }
    // g on x is projected (scaled tolerance 1e-12, scale ≤ max(1, x1² + x2²) = 1); h = 0 holds
    // at the re-solved y to the same tolerance (scale ≤ max(1, ½·4·|y| + …) ≤ 10 for |y| ≤ 3).
    for (const Row& row : rows) {
      EXPECT_LE(row.residual_position, 1e-12) << "t = " << row.t;
      EXPECT_LE(row.residual_velocity, 1e-11) << "t = " << row.t;
    }
  }
}

}  // namespace
}  // namespace tether::testing
