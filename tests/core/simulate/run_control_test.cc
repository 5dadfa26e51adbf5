// Setup validation, failure paths, pause/resume and forking of a Simulation.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>

#include "core/simulate/pendulum_spec.h"
#include "core/simulate/sim_helpers.h"
#include "tether/simulate/overrides.h"

namespace tether::testing {
namespace {

using simulate::Projection;
using simulate::Termination;
using SimSetup = simulate::Setup;

SimSetup Seed(double t_end = 5.0) {
  SimSetup setup;
  setup.model = Pendulum();
  setup.options.method = "dp5";
  setup.options.t_end = t_end;
  setup.options.output_interval = 0.05;
  return setup;
}

bool HasProblem(const simulate::CreateResult& r, const std::string& path,
                const std::string& text) {
  for (const auto& p : r.problems) {
    if (p.path == path && p.message.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(Setup, DefaultOptionsAreValid) {
  std::string why;
  EXPECT_TRUE(simulate::Options{}.IsValid(&why)) << why;
}

TEST(Setup, BadNamesAndValuesAreReportedByPathWithSuggestions) {
  SimSetup setup = Seed();
  setup.parameters["gg"] = 9.8;
  setup.initial["vz"] = 0.0;
  setup.fixed = {"xx"};
  setup.options.rtol = -1.0;
  setup.options.method = "dp6";
  const simulate::CreateResult r = simulate::Simulation::Create(setup);
  EXPECT_FALSE(r.simulation);
  EXPECT_TRUE(HasProblem(r, "parameters.gg", "unknown parameter 'gg'"));
  EXPECT_TRUE(HasProblem(r, "parameters.gg", "did you mean 'g'?"));
  EXPECT_TRUE(HasProblem(r, "initial.vz", "did you mean 'vx'?"));
  EXPECT_TRUE(HasProblem(r, "fixed.xx", "did you mean 'x'?"));
  EXPECT_TRUE(HasProblem(r, "options.rtol", "rtol = -1; must be in [1e-15, 1)"));
  EXPECT_TRUE(HasProblem(r, "options.method", "did you mean 'dp5'?"));
}

// The pendulum with a range on l: every way an override reaches a run (Create, Update, and
// OverrideProblems for a change queued for a running stream) refuses a value outside it with
// the same path and message, and accepts the ends of the closed range.
TEST(Setup, ParametersOutsideTheirRangeAreRefusedOnEveryPath) {
  std::string spec = kPendulumSpec;
  const std::string unbounded = R"("l": {"value": 2.5})";
  spec.replace(spec.find(unbounded), unbounded.size(),
               R"("l": {"value": 2.5, "min": 0.5, "max": 4})");
  SimSetup setup = Seed(1.0);
  setup.model = ParseOrDie(spec);
  const std::string message = "parameter 'l' = 5; must be in [0.5, 4] (the model's range)";
  setup.parameters["l"] = 5.0;
  const simulate::CreateResult created = simulate::Simulation::Create(setup);
  EXPECT_FALSE(created.simulation);
  EXPECT_TRUE(HasProblem(created, "parameters.l", message));

  const std::vector<simulate::SetupProblem> queued =
      simulate::OverrideProblems(*setup.model, {{"l", 5.0}}, {});
  ASSERT_EQ(queued.size(), 1u);
  EXPECT_EQ(queued[0].path, "parameters.l");
  EXPECT_EQ(queued[0].message, message);

  setup.parameters["l"] = 4.0;  // the upper end
  auto sim = CreateOrFail(setup);
  ASSERT_TRUE(sim);
  const simulate::CreateResult refused = sim->Update({{"l", 5.0}}, {});
  EXPECT_TRUE(HasProblem(refused, "parameters.l", message));
  EXPECT_EQ(sim->parameters().at("l"), 4.0);  // nothing changed
  EXPECT_TRUE(HasProblem(sim->Update({{"l", 0.25}}, {}), "parameters.l",
                         "parameter 'l' = 0.25; must be in [0.5, 4] (the model's range)"));
  const simulate::CreateResult lower = sim->Update({{"l", 0.5}}, {});
  EXPECT_TRUE(lower.problems.empty());
  EXPECT_EQ(sim->parameters().at("l"), 0.5);
  EXPECT_TRUE(simulate::OverrideProblems(*setup.model, {{"l", 0.5}}, {}).empty());
}

TEST(Setup, MassMetricNeedsAMechanicalModel) {
  SimSetup setup;
  setup.model = ParseOrDie(R"json({"name": "lin", "form": "index1", "differential": ["x"],
      "algebraic": ["y"], "rhs": ["-y"], "constraints": ["y - x"], "initial": {"x": 1, "y": 1}})json");
  setup.options.metric = simulate::Metric::kMass;
  const simulate::CreateResult r = simulate::Simulation::Create(setup);
  EXPECT_TRUE(HasProblem(r, "options.metric", "needs a mechanical model"));
}

// A periodic input written with mod: x' = mod(t, 1), a sawtooth, integrates to
// x = floor(t)/2 + mod(t, 1)²/2. The jumps of x' are stepped over, not located, so each costs
// what the error control lets through on the step across it: 2e-7 to 1.2e-6 over the three
// jumps (dp5, radau5, bdf at the defaults with max_step 0.1, measured), against 1e-5.
TEST(Setup, APeriodicInputWrittenWithModIsIntegratedAcrossItsJumps) {
  for (const char* method : {"dp5", "radau5", "bdf"}) {
    SCOPED_TRACE(method);
    SimSetup setup;
    setup.model = ParseOrDie(R"json({"name": "saw", "form": "index1", "differential": ["x"],
        "rhs": ["mod(t, 1)"], "initial": {"x": 0}})json");
    setup.options.method = method;
    setup.options.t_end = 3.5;
    setup.options.output_interval = 3.5;
    setup.options.max_step = 0.1;
    auto sim = CreateOrFail(setup);
    ASSERT_TRUE(sim);
    simulate::Status status;
    const std::vector<Row> rows = RunAll(*sim, &status);
    ASSERT_EQ(status.reason, simulate::Termination::kReachedEnd) << status.message;
    EXPECT_NEAR(rows.back().values[0], 1.5 + 0.125, 1e-5);
  }
}

// A model with inequalities is run as a projected dynamical system, never as a free ODE whose
// states leave the feasible set unnoticed: x' = −1 with x ≥ 0 stops at x = 0 (t = 1) and stays,
// held by μ = 1 (tests/core/pds has the full study).
TEST(Setup, InequalitiesAreHonouredNotIgnored) {
  SimSetup setup;
  setup.model = ParseOrDie(R"json({"name": "half", "form": "index1", "differential": ["x"],
      "algebraic": [], "rhs": ["-1"], "constraints": [], "inequalities": ["x"],
      "initial": {"x": 1}})json");
  setup.options.t_end = 2.0;
  auto sim = CreateOrFail(setup);
  ASSERT_TRUE(sim);
  std::vector<simulate::SwitchEvent> events;
  double lowest = 1.0;
  const simulate::Status status = sim->Advance(1u << 20, [&](const simulate::Sample& s) {
    events.insert(events.end(), s.events.begin(), s.events.end());
    lowest = std::min(lowest, s.values[0]);
    if (s.t > 1.0) {
      EXPECT_EQ(s.values[1], 1.0) << "mu_1 at t = " << s.t;
    }
  });
  EXPECT_EQ(status.reason, simulate::Termination::kReachedEnd) << status.message;
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(events[0].activated);
  // Linear x(t): the dense output is exact and the location tolerance rtol·h ≤ 1e-8 s.
  EXPECT_NEAR(events[0].t, 1.0, 1e-8);
  EXPECT_GE(lowest, -1e-12);
}

TEST(Setup, FixedValuesAreKeptByInitialization) {
  SimSetup setup = Seed();
  setup.fixed = {"x"};
  auto sim = CreateOrFail(setup);
  ASSERT_TRUE(sim);
  // x = 0.86 held: y moves alone onto the circle, y = √(ℓ² − x²), to within the Newton
  // stopping distance |Φ|/|∂Φ/∂y| ≤ 1e-12·ℓ²/(2y) < 1e-12·ℓ²/(2·2.3) ≈ 1.4e-12.
  const auto& changes = sim->initialization().changes;
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].name, "y");
  EXPECT_NEAR(changes[0].corrected, std::sqrt(kLength * kLength - kX0 * kX0), 1.4e-12);
}

TEST(Failure, DependentConstraintsAreNamed) {
  SimSetup setup = Seed();
  setup.model = ParseOrDie(R"json({"name": "twice", "form": "mechanical",
      "parameters": {"m": {"value": 2.0}, "l": {"value": 2.5}, "g": {"value": 9.81}},
      "coordinates": ["x", "y"], "velocities": ["vx", "vy"], "mass": [["m", "0"], ["0", "m"]],
      "forces": ["0", "-m*g"],
      "constraints": ["x^2 + y^2 - l^2", "2*(x^2 + y^2 - l^2)"],
      "initial": {"x": 0.86, "y": 2.35}})json");
  const simulate::CreateResult r = simulate::Simulation::Create(setup);
  ASSERT_TRUE(r.problems.empty());
  EXPECT_FALSE(r.simulation);
  EXPECT_EQ(r.status.reason, Termination::kSingularConstraints);
  EXPECT_NE(r.status.message.find("rank-deficient at t = 0"), std::string::npos) << r.status.message;
  EXPECT_NE(r.status.message.find("'constraints[0]', 'constraints[1]'"), std::string::npos)
      << r.status.message;
}

TEST(Failure, AStepTooLargeForNewtonEndsWithProjectionFailed) {
  SimSetup setup = Seed();
  setup.options.method = "rk4";
  setup.options.step = 0.3;              // ωh ≈ 0.6: x̃ lands ~1e-3 off the circle
  setup.options.max_newton_iterations = 1;  // one Newton step cannot reach 1e-12 from there
  auto sim = CreateOrFail(setup);
  ASSERT_TRUE(sim);
  std::vector<Row> rows;
  const simulate::Status status = sim->Advance(1000, Collect(&rows));
  EXPECT_EQ(status.reason, Termination::kProjectionFailed);
  EXPECT_EQ(status.t, 0.0);
  EXPECT_NE(status.message.find("projection did not converge at t = 0.3 after 1 iterations"),
            std::string::npos) << status.message;
  EXPECT_NE(status.message.find("the step may be too large for this constraint curvature"),
            std::string::npos);
  ASSERT_EQ(rows.size(), 1u);  // the last good state is sample 0 …
  EXPECT_EQ(sim->CurrentValues(), rows[0].values);  // … and it is kept
  EXPECT_EQ(sim->Advance(10, Collect(&rows)).reason, Termination::kProjectionFailed);  // sticky
}

TEST(Failure, ANonFiniteRightHandSideEndsWithNonFinite) {
  SimSetup setup = Seed();
  // log(tc − t) leaves its domain for t > tc: the stage at t = 0.505 of the step from 0.5 is NaN.
  setup.model = ParseOrDie(R"json({"name": "blowup", "form": "mechanical",
      "parameters": {"m": {"value": 2.0}, "l": {"value": 2.5}, "g": {"value": 9.81},
                     "tc": {"value": 1.0}},
      "coordinates": ["x", "y"], "velocities": ["vx", "vy"], "mass": [["m", "0"], ["0", "m"]],
      "forces": ["log(tc - t)", "-m*g"], "constraints": ["x^2 + y^2 - l^2"],
      "initial": {"x": 1.5, "y": -2.0}})json");
  setup.parameters["tc"] = 0.503;
  setup.options.method = "rk4";
  setup.options.step = 0.01;
  setup.options.output_interval = 0.1;
  auto sim = CreateOrFail(setup);
  ASSERT_TRUE(sim);
  std::vector<Row> rows;
  const simulate::Status status = sim->Advance(1000, Collect(&rows));
  EXPECT_EQ(status.reason, Termination::kNonFinite) << status.message;
  EXPECT_NEAR(status.t, 0.5, 1e-12);
  EXPECT_NE(status.message.find("non-finite"), std::string::npos) << status.message;
  ASSERT_EQ(rows.size(), 6u);  // 0, 0.1, …, 0.5
  EXPECT_EQ(sim->CurrentValues(), rows.back().values);
}

// x' = −sign(x) from x = 1: x = 1 − t reaches 0 at t = 1, where the right-hand side switches
// with the state and every adaptive method's step collapses (1e-11 to 1e-8 s) without end.
SimSetup Chattering(const std::string& method) {
  SimSetup setup;
  setup.model = ParseOrDie(R"json({"name": "sign", "form": "index1", "differential": ["x"],
      "rhs": ["-sign(x)"], "initial": {"x": 1}})json");
  setup.options.method = method;
  setup.options.t_end = 3.0;
  setup.options.output_interval = 0.5;
  return setup;
}

// The pace check ends a run that cannot reach t_end within its step limit after one window of
// steps, not after the limit (minutes at the default 1e8), keeping every sample up to there.
TEST(Failure, AChatteringRunEndsWhenItsPaceCannotReachTheEnd) {
  for (const char* method : {"dp5", "dop853", "bdf", "auto"}) {
    auto sim = CreateOrFail(Chattering(method));
    ASSERT_TRUE(sim);
    simulate::Status status;
    const std::vector<Row> rows = RunAll(*sim, &status);
    EXPECT_EQ(status.reason, Termination::kStepLimit) << method << ": " << status.message;
    // At the end of the first window the smooth piece before t = 1 may still carry the pace.
    EXPECT_EQ(sim->statistics().steps % 200'000, 0u) << method;
    EXPECT_LE(sim->statistics().steps, 400'000u) << method;
    EXPECT_GT(status.t, 1.0) << method;
    EXPECT_LT(status.t, 1.01) << method;
    EXPECT_NE(status.message.find("accepted steps out of reach at t = "), std::string::npos)
        << status.message;
    EXPECT_NE(status.message.find("raise max_steps to run on"), std::string::npos);
    EXPECT_NE(status.message.find("switches with the state"), std::string::npos);
    ASSERT_EQ(rows.size(), 3u) << method;  // t = 0, 0.5 and 1: x = 1 − t
    EXPECT_NEAR(rows[1].values[0], 0.5, 1e-8) << method;
  }
}

// The check measures the pace against the steps left, so a larger limit lets the same run go on.
TEST(Failure, ALargerStepLimitLetsASlowPaceGoOn) {
  for (const std::uint64_t max_steps : {std::uint64_t{100'000'000}, std::uint64_t{1} << 50}) {
    SimSetup setup = Chattering("dp5");
    setup.options.max_steps = max_steps;
    setup.options.output_interval = 0.0;  // a sample per step: Advance's count bounds the run
    auto sim = CreateOrFail(setup);
    ASSERT_TRUE(sim);
    std::uint64_t samples = 0;
    const simulate::Status status =
        sim->Advance(500'000, [&samples](const simulate::Sample&) { ++samples; });
    if (max_steps == 100'000'000) {  // the default: 2e8 steps at dp5's pace are out of reach
      EXPECT_EQ(status.reason, Termination::kStepLimit) << status.message;
      EXPECT_LT(samples, 500'000u);
    } else {
      EXPECT_EQ(status.reason, Termination::kRunning) << status.message;
      EXPECT_EQ(samples, 500'000u);
    }
  }
}

// Notices go out with the next sample; a run that fails before it says them in its message.
TEST(Failure, AFailedRunsMessageCarriesTheNoticesNoSampleCarried) {
  SimSetup setup;
  setup.model = CatalogModel("robertson");
  ASSERT_TRUE(setup.model);
  setup.options.method = "dp5";
  setup.options.t_end = 40.0;
  setup.options.output_interval = 40.0;  // no sample between t = 0 and the end
  setup.options.max_steps = 20'000;
  auto sim = CreateOrFail(setup);
  ASSERT_TRUE(sim);
  simulate::Status status;
  const std::vector<Row> rows = RunAll(*sim, &status);
  EXPECT_EQ(status.reason, Termination::kStepLimit) << status.message;
  EXPECT_EQ(rows.size(), 1u);
  EXPECT_NE(status.message.find("step limit of 20000 accepted steps reached at t = "),
            std::string::npos) << status.message;
  EXPECT_NE(status.message.find(". Noticed before: stiffness detected at t = "),
            std::string::npos) << status.message;
}

// A fixed-step run needs exactly (t_end − t0)/h steps: a limit of exactly that many passes the
// check, one step fewer ends it at the end of its first window (t = 2 with h = 1e-5).
TEST(Failure, AFixedStepRunsPaceIsJudgedExactly) {
  SimSetup setup = Seed(3.0);
  setup.options.method = "rk4";
  setup.options.step = 1e-5;
  setup.options.output_interval = 1.0;
  setup.options.max_steps = 300'000;
  auto enough = CreateOrFail(setup);
  ASSERT_TRUE(enough);
  simulate::Status status;
  RunAll(*enough, &status);
  EXPECT_EQ(status.reason, Termination::kReachedEnd) << status.message;
  EXPECT_EQ(enough->statistics().steps, 300'000u);
  setup.options.max_steps = 290'000;
  auto short_of_it = CreateOrFail(setup);
  ASSERT_TRUE(short_of_it);
  const std::vector<Row> rows = RunAll(*short_of_it, &status);
  EXPECT_EQ(status.reason, Termination::kStepLimit) << status.message;
  EXPECT_NEAR(status.t, 2.0, 1e-9);
  EXPECT_NE(status.message.find("Or choose a longer step"), std::string::npos) << status.message;
  EXPECT_EQ(rows.size(), 3u);  // t = 0, 1, 2
}

TEST(RunControl, ChunksOfSevenGiveTheSameSamplesAsOneAdvance) {
  auto whole = CreateOrFail(Seed());
  auto chunked = CreateOrFail(Seed());
  ASSERT_TRUE(whole && chunked);
  const std::vector<Row> all = RunAll(*whole);
  std::vector<Row> pieces;
  simulate::Status status;
  do {
    const std::size_t before = pieces.size();
    status = chunked->Advance(7, Collect(&pieces));
    EXPECT_LE(pieces.size() - before, 7u);
  } while (status.reason == Termination::kRunning);
  EXPECT_EQ(status.reason, Termination::kReachedEnd);
  ASSERT_EQ(pieces.size(), all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    ASSERT_EQ(pieces[i].index, i);
    ASSERT_EQ(pieces[i].t, all[i].t);
    ASSERT_EQ(pieces[i].values, all[i].values) << "sample " << i;  // bit for bit
  }
}

// A passed `return_by` ends a call once it has a sample: within kStepsPerClockRead steps of
// it (one sample per step here), never before the first sample; the run goes on unchanged.
TEST(RunControl, APassedDeadlineEndsTheCallAfterItsFirstSamples) {
  simulate::Setup setup = Seed();
  setup.options.output_interval = 0.0;  // a sample per step
  auto timed = CreateOrFail(setup);
  auto untimed = CreateOrFail(setup);
  ASSERT_TRUE(timed && untimed);
  const auto passed = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  std::vector<Row> pieces;
  const simulate::Status first = timed->Advance(1000, Collect(&pieces), nullptr, passed);
  EXPECT_EQ(first.reason, Termination::kRunning);
  EXPECT_GE(pieces.size(), 1u);
  EXPECT_LE(pieces.size(), simulate::Simulation::kStepsPerClockRead + 1);
  timed->Advance(1000 - pieces.size(), Collect(&pieces));
  std::vector<Row> whole;
  untimed->Advance(1000, Collect(&whole));
  ASSERT_EQ(pieces.size(), whole.size());
  for (std::size_t i = 0; i < whole.size(); ++i) {
    ASSERT_EQ(pieces[i].values, whole[i].values) << "sample " << i;  // bit for bit
  }
}

TEST(RunControl, AForkContinuesIdentically) {
  auto original = CreateOrFail(Seed());
  ASSERT_TRUE(original);
  std::vector<Row> head;
  original->Advance(30, Collect(&head));
  simulate::Simulation fork(*original);
  EXPECT_EQ(fork.next_sample_index(), 30u);
  const std::vector<Row> a = RunAll(*original);
  const std::vector<Row> b = RunAll(fork);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].index, b[i].index);
    ASSERT_EQ(a[i].values, b[i].values);
  }
}

TEST(RunControl, CancelPausesAndTheNextAdvanceResumes) {
  auto sim = CreateOrFail(Seed(1.0));
  auto reference = CreateOrFail(Seed(1.0));
  ASSERT_TRUE(sim && reference);
  std::atomic<bool> cancel{false};
  std::vector<Row> rows;
  sim->Advance(5, Collect(&rows));
  cancel = true;
  EXPECT_EQ(sim->Advance(5, Collect(&rows), &cancel).reason, Termination::kCancelled);
  EXPECT_EQ(sim->status().reason, Termination::kRunning);
  cancel = false;
  sim->Advance(1000, Collect(&rows), &cancel);
  const std::vector<Row> all = RunAll(*reference);
  ASSERT_EQ(rows.size(), all.size());
  for (std::size_t i = 0; i < all.size(); ++i) ASSERT_EQ(rows[i].values, all[i].values);
}

TEST(RunControl, SetHorizonExtendsAFinishedRun) {
  auto sim = CreateOrFail(Seed(1.0));
  ASSERT_TRUE(sim);
  std::vector<Row> rows = RunAll(*sim);
  EXPECT_EQ(rows.back().t, 1.0);
  EXPECT_TRUE(sim->SetHorizon(2.0, 0.25).empty());
  EXPECT_FALSE(sim->SetHorizon(0.5, 0.1).empty());  // before the last sample
  std::vector<Row> more = RunAll(*sim);
  ASSERT_EQ(more.size(), 4u);  // 1.25, 1.5, 1.75, 2
  EXPECT_EQ(more.front().index, rows.size());
  EXPECT_EQ(more.back().t, 2.0);
}

TEST(RunControl, UpdateReinitializesWithNewParameters) {
  auto sim = CreateOrFail(Seed(1.0));
  ASSERT_TRUE(sim);
  std::vector<Row> rows;
  sim->Advance(5, Collect(&rows));
  const simulate::CreateResult r = sim->Update({{"l", 2.0}}, {});
  ASSERT_TRUE(r.problems.empty());
  ASSERT_FALSE(r.status.ended()) << r.status.message;
  EXPECT_EQ(sim->parameters().at("l"), 2.0);
  std::vector<Row> after = RunAll(*sim);
  ASSERT_FALSE(after.empty());
  EXPECT_EQ(after.front().index, 5u);
  const Row& last = after.back();
  // On the new circle of radius 2 (scaled residual 1e-12 with scale ℓ² = 4).
  EXPECT_NEAR(last.values[0] * last.values[0] + last.values[1] * last.values[1], 4.0, 4e-12);
  EXPECT_TRUE(HasProblem(sim->Update({{"ll", 1.0}}, {}), "parameters.ll", "did you mean 'l'?"));
}

}  // namespace
}  // namespace tether::testing
