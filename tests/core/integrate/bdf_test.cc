// The bdf stepper (core/integrate/bdf.h) on the problems that make BDF worth having: stiff
// ODEs through CVODE, index-1 DAEs through IDA, invariants kept by the projection hook, and
// the restarts a multistep method needs when its caller moves the state. The generic
// contract (stepper_contract_test.cc) runs over bdf too.
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/integrate/stiff_problems.h"
#include "tether/integrate/stepper.h"

namespace tether::integrate {
namespace {

using ::testing::HasSubstr;
using testing::Pendulum;
using testing::PendulumDae;
using testing::Robertson;
using testing::RobertsonDae;
using testing::StiffChain;
using testing::StiffLinear;
using testing::VanDerPol;

constexpr double kEps = std::numeric_limits<double>::epsilon();

std::unique_ptr<Stepper> MakeBdf(const StepperOptions& options) {
  std::unique_ptr<Stepper> stepper = MakeStepper("bdf", options);
  EXPECT_NE(stepper, nullptr);
  return stepper;
}

// The outcome of a run from t0 to t_end, stepping as core/simulate does: every Step asks for
// the whole remaining interval, the stepper takes what its error control allows.
struct Outcome {
  StepStatus status = StepStatus::kAccepted;
  std::string message;
  double t = 0.0;
  std::vector<double> x;
  int steps = 0;
  int rejections = 0;
  long evaluations = 0;
  long jacobians = 0;
  long factorizations = 0;
  long newton_iterations = 0;
};

// After each accepted step, `after_step(t, x)` may inspect or change the state (a caller's
// projection or event) before the next Step.
Outcome Integrate(Stepper& stepper, OdeSystem& system, double t0, std::span<const double> x0,
              double t_end, int max_steps = 100000,
              const std::function<void(double, std::span<double>)>& after_step = {}) {
  Outcome run;
  run.t = t0;
  run.x.assign(x0.begin(), x0.end());
  stepper.Resize(x0.size());
  while (run.t < t_end && run.steps < max_steps) {
    const double h = t_end - run.t;
    const StepResult r = stepper.Step(system, run.t, run.x, h, run.x);
    run.rejections += r.rejections;
    run.evaluations += r.evaluations;
    run.jacobians += r.jacobians;
    run.factorizations += r.factorizations;
    run.newton_iterations += r.newton_iterations;
    if (r.status != StepStatus::kAccepted) {
      run.status = r.status;
      run.message = r.message;
      break;
    }
    run.t = r.h_taken == h ? t_end : run.t + r.h_taken;
    ++run.steps;
    if (after_step) after_step(run.t, run.x);
  }
  return run;
}

StepperOptions Tolerances(double rtol, double atol) {
  StepperOptions options;
  options.rtol = rtol;
  options.atol = atol;
  options.step = 0.0;  // SUNDIALS' own initial step estimate
  return options;
}

TEST(Bdf, IsAnAdaptiveImplicitMethodThatProjectsAndHasNoFixedStepMode) {
  const std::unique_ptr<Stepper> bdf = MakeBdf({});
  EXPECT_EQ(bdf->name(), "bdf");
  EXPECT_EQ(bdf->order(), 5);
  EXPECT_TRUE(bdf->adaptive());
  EXPECT_TRUE(bdf->implicit());
  EXPECT_TRUE(bdf->projects_internally());
  EXPECT_FALSE(bdf->supports_fixed_step());
}

// Robertson to t = 4e10 through CVODE (M = I). Tolerances: y1 ends near 5e-8 and y2 near
// 2e-13, in quasi-equilibrium y2 ≈ 4e-6·y1, so y2's relative error is y1's; the absolute
// tolerances sit 1e-10 below both (1e-18, 1e-23; 1e-12 for y3 ≈ 1) so that the relative
// one rules to the end. CVODE's global error here is ≈ 7·rtol at every rtol from 1e-6 to
// 1e-9 (tolerance proportionality), so rtol = 5e-8 aims at ≈ 3.5e-7, inside the 1e-6 required;
// the step count grows like rtol^(−1/(q+1)) and is ≈ 1800 there.
// Conservation: Σ f = 0 and the Jacobian's columns sum to 0, so BDF with Newton keeps
// y1 + y2 + y3 = 1 up to rounding — a few ε per step for the prediction, ≤ 3 Newton
// corrections and the Nordsieck update of ≤ 6 columns; 16 ε per step bounds it.
StepperOptions RobertsonTolerances() {
  StepperOptions options = Tolerances(5e-8, 1e-18);
  options.atol_per_component = {1e-18, 1e-23, 1e-12};
  return options;
}

TEST(Bdf, RobertsonOdeTo4e10ThroughCvode) {
  Robertson system;
  const StepperOptions options = RobertsonTolerances();
  const std::unique_ptr<Stepper> bdf = MakeBdf(options);
  double worst_sum = 0.0;
  int checked = 0;
  const Outcome run = Integrate(*bdf, system, 0.0, Robertson::kInitial, Robertson::kEnd, 2000,
                            [&](double, std::span<double> y) {
                              worst_sum = std::max(worst_sum, std::abs(y[0] + y[1] + y[2] - 1.0));
                              ++checked;
                            });
  ASSERT_EQ(run.status, StepStatus::kAccepted) << run.message;
  ASSERT_EQ(run.t, Robertson::kEnd);
  EXPECT_LT(run.steps, 2000);
  EXPECT_EQ(checked, run.steps);
  EXPECT_LE(worst_sum, 16.0 * kEps * run.steps);
  EXPECT_NEAR(run.x[1] / Robertson::kReference[1], 1.0, 1e-6);
  EXPECT_NEAR(run.x[0] / Robertson::kReference[0], 1.0, 1e-6);
  // The statistics are SUNDIALS' counters: they match the calls the system saw.
  EXPECT_EQ(run.evaluations, system.evaluations);
  EXPECT_EQ(run.jacobians, system.jacobians);
  EXPECT_GT(run.factorizations, 0);
  EXPECT_GE(run.newton_iterations, run.steps);
  RecordProperty("steps", run.steps);
  RecordProperty("conservation", std::to_string(worst_sum));
}

// The DAE form through IDA (M = diag(1, 1, 0)), same tolerances and reference. The
// conservation law is now the algebraic equation: it is linear with exact Newton-matrix row
// (1, 1, 1), so every Newton iterate satisfies it up to the rounding of the solve — the
// same per-step bound.
TEST(Bdf, RobertsonDaeTo4e10ThroughIda) {
  RobertsonDae system;
  const StepperOptions options = RobertsonTolerances();
  const std::unique_ptr<Stepper> bdf = MakeBdf(options);
  double worst_sum = 0.0;
  const Outcome run = Integrate(*bdf, system, 0.0, Robertson::kInitial, Robertson::kEnd, 2000,
                            [&](double, std::span<double> y) {
                              worst_sum = std::max(worst_sum, std::abs(y[0] + y[1] + y[2] - 1.0));
                            });
  ASSERT_EQ(run.status, StepStatus::kAccepted) << run.message;
  ASSERT_EQ(run.t, Robertson::kEnd);
  EXPECT_LT(run.steps, 2000);
  EXPECT_LE(worst_sum, 16.0 * kEps * run.steps);
  EXPECT_NEAR(run.x[1] / Robertson::kReference[1], 1.0, 1e-6);
  EXPECT_NEAR(run.x[0] / Robertson::kReference[0], 1.0, 1e-6);
  RecordProperty("steps", run.steps);
}

// Van der Pol with μ = 1e6 over two periods (four jumps of y1 by ≈ 4 within ≈ 1e-5 each).
// The jumps amplify timing errors, so the global error is a multiple of rtol larger than on
// a dissipative problem; 1e3·rtol still separates a right run from a wrong one (a jump
// misplaced by δt would leave an error ≈ |y'|·δt in the slow phase, y' ≈ 0.4 there, and
// the reference is good to 1e-12).
TEST(Bdf, VanDerPolMu1e6OverTwoPeriods) {
  VanDerPol system;
  const double rtol = 1e-8;
  const std::unique_ptr<Stepper> bdf = MakeBdf(Tolerances(rtol, rtol));
  const Outcome run = Integrate(*bdf, system, 0.0, VanDerPol::kInitial, VanDerPol::kEnd);
  ASSERT_EQ(run.status, StepStatus::kAccepted) << run.message;
  EXPECT_NEAR(run.x[0], VanDerPol::kReference[0], 1e3 * rtol * std::abs(VanDerPol::kReference[0]));
  EXPECT_NEAR(run.x[1], VanDerPol::kReference[1], 1e3 * rtol * std::abs(VanDerPol::kReference[1]));
  // Stiffness: an explicit method would need h < 2/|∂f2/∂y2| ≈ 2/(3μ) in the slow phases,
  // 5e6 steps over [0, 3.5]; BDF's steps follow the solution.
  EXPECT_LT(run.steps, 20000);
  RecordProperty("steps", run.steps);
}

// The mass-matrix form ε y2' = … of the same oscillator (M = diag(1, 1e-6), regular but not
// the identity) runs through IDA and reaches the same reference within the same bound.
TEST(Bdf, VanDerPolWithARegularMassMatrixThroughIda) {
  testing::VanDerPolMass system;
  const double rtol = 1e-8;
  const std::unique_ptr<Stepper> bdf = MakeBdf(Tolerances(rtol, rtol));
  const Outcome run = Integrate(*bdf, system, 0.0, VanDerPol::kInitial, VanDerPol::kEnd);
  ASSERT_EQ(run.status, StepStatus::kAccepted) << run.message;
  EXPECT_NEAR(run.x[0], VanDerPol::kReference[0], 1e3 * rtol * std::abs(VanDerPol::kReference[0]));
  EXPECT_NEAR(run.x[1], VanDerPol::kReference[1], 1e3 * rtol * std::abs(VanDerPol::kReference[1]));
  RecordProperty("steps", run.steps);
}

// "Order" of a variable-order code, by tolerance proportionality on a smooth stiff problem:
// CVODE bounds the local error per step, C h^(q+1) ≤ tol, so h ∝ tol^(1/(q+1)) and the
// global error ≈ (number of steps)·tol ∝ tol^(q/(q+1)) — a slope of log(error) over log(tol)
// of 1/2 at order 1, 2/3, 3/4, 4/5 and 5/6 at orders 2–5, and 1 for the ideal of tolerance
// proportionality the code's constants are tuned towards. The slope must exceed 3/4 (orders
// above 3 carry the run) and stay below 1.15 (the error follows the tolerance, not faster).
// Tolerances 1e-5 … 1e-9 keep the errors (≈ 5–10·tol) far above rounding.
TEST(Bdf, ErrorIsProportionalToTheToleranceAtHighOrder) {
  const double t_end = 10.0;
  std::vector<double> log_tol, log_err;
  for (int k = 5; k <= 9; ++k) {
    const double tol = std::pow(10.0, -k);
    StiffLinear system;
    const std::unique_ptr<Stepper> bdf = MakeBdf(Tolerances(tol, tol));
    const Outcome run = Integrate(*bdf, system, 0.0, StiffLinear::kInitial, t_end);
    ASSERT_EQ(run.status, StepStatus::kAccepted) << run.message;
    const std::array<double, 2> exact = StiffLinear::Exact(t_end);
    const double error = std::hypot(run.x[0] - exact[0], run.x[1] - exact[1]);
    ASSERT_GT(error, 1e3 * kEps) << "tol = " << tol << ": at rounding level";
    log_tol.push_back(std::log10(tol));
    log_err.push_back(std::log10(error));
  }
  // Least-squares slope.
  const double n = static_cast<double>(log_tol.size());
  double st = 0, se = 0, stt = 0, ste = 0;
  for (std::size_t i = 0; i < log_tol.size(); ++i) {
    st += log_tol[i];
    se += log_err[i];
    stt += log_tol[i] * log_tol[i];
    ste += log_tol[i] * log_err[i];
  }
  const double slope = (n * ste - st * se) / (n * stt - st * st);
  EXPECT_GT(slope, 0.75);
  EXPECT_LT(slope, 1.15);
  // Each decade of tolerance buys accuracy: the errors decrease monotonically.
  for (std::size_t i = 1; i < log_err.size(); ++i) EXPECT_LT(log_err[i], log_err[i - 1]);
  RecordProperty("slope", std::to_string(slope));
}

// Dense output over each step is CVODE's Nordsieck polynomial, accurate to the step's local
// error: at the midpoints, within 100·tol of the exact solution (the global error there is
// ≤ 10·tol, see the test above, plus the interpolation error of the same order).
TEST(Bdf, DenseOutputFollowsTheSolution) {
  StiffLinear system;
  const double tol = 1e-8;
  const std::unique_ptr<Stepper> bdf = MakeBdf(Tolerances(tol, tol));
  double worst = 0.0;
  double t_prev = 0.0;
  const Outcome run = Integrate(*bdf, system, 0.0, StiffLinear::kInitial, 5.0, 100000,
                            [&](double t, std::span<double>) {
                              const double mid = 0.5 * (t_prev + t);
                              std::array<double, 2> x = {};
                              bdf->Interpolate(mid, x);
                              const std::array<double, 2> exact = StiffLinear::Exact(mid);
                              worst = std::max(worst, std::hypot(x[0] - exact[0], x[1] - exact[1]));
                              t_prev = t;
                            });
  ASSERT_EQ(run.status, StepStatus::kAccepted) << run.message;
  EXPECT_LE(worst, 100.0 * tol);
  EXPECT_GT(worst, 0.0);
}

// The pendulum over 20 s at rtol = atol = 1e-6, with or without its projection hook: the
// run, and the largest |Φ|, |h| over its steps.
template <typename System, std::size_t N>
Outcome RunPendulum(bool projecting, const std::array<double, N>& z0, double* drift) {
  System system(projecting);
  const std::unique_ptr<Stepper> bdf = MakeBdf(Tolerances(1e-6, 1e-6));
  const double t_end = 20.0;
  const Outcome run = Integrate(*bdf, system, 0.0, z0, t_end, 100000,
                                [&](double, std::span<double> z) {
                                  *drift = std::max({*drift, std::abs(Pendulum::Phi(z)),
                                                     std::abs(Pendulum::H(z))});
                                });
  EXPECT_EQ(run.status, StepStatus::kAccepted) << run.message;
  EXPECT_EQ(run.t, t_end);
  if (projecting) {
    EXPECT_GE(system.projections, run.steps);
  }
  return run;
}

// A pendulum written as an ODE drifts off its invariants Φ = 0, h = 0; the projection hook,
// plugged into CVodeSetProjFn, keeps every step on them. The closed-form projection is
// exact up to rounding (|Φ| ≲ ε l², |h| ≲ ε l |v|), far inside 1e-10. Unprojected, the
// drift after 20 s at rtol = atol = 1e-6 is a multiple of the tolerance: > 1e-8 is the
// least a drifting run shows. Projection inside the step keeps the history: the projected
// run needs about as many steps as the unprojected one (a restart at order 1 after each
// step would need several times more).
TEST(Bdf, ProjectionHookKeepsCvodeOnTheManifold) {
  double projected_drift = 0.0, free_drift = 0.0;
  const std::array<double, 4> z0 = Pendulum::Initial(1.0);
  const Outcome projected = RunPendulum<Pendulum>(true, z0, &projected_drift);
  const Outcome free = RunPendulum<Pendulum>(false, z0, &free_drift);
  EXPECT_LE(projected_drift, 1e-10);
  EXPECT_GT(free_drift, 1e-8);
  EXPECT_LT(projected.steps, 2 * free.steps);
  RecordProperty("drift_unprojected", std::to_string(free_drift));
}

// IDA has no projection hook: the stepper projects IDA's result after each step, so every
// returned state is on the manifold, and continues IDA's own history while the projection
// moves the state by less than Bdf::kIdaResumeDistance local error tolerances. Restarting
// from the projected state after each step would cost ≥ 3 times the steps of the
// unprojected run (measured with a distance of 1, bdf.h); the resumption rule must stay
// below 2 times.
TEST(Bdf, ProjectionHookKeepsIdaOutputOnTheManifold) {
  double projected_drift = 0.0, free_drift = 0.0;
  const std::array<double, 5> z0 = PendulumDae::Initial(1.0);
  const Outcome projected = RunPendulum<PendulumDae>(true, z0, &projected_drift);
  const Outcome free = RunPendulum<PendulumDae>(false, z0, &free_drift);
  EXPECT_LE(projected_drift, 1e-10);
  EXPECT_GT(free_drift, 1e-8);
  EXPECT_LT(projected.steps, 2 * free.steps);
  RecordProperty("steps_projected", projected.steps);
  RecordProperty("steps_free", free.steps);
}

// Continuing from a moved state must not continue the old history: after the caller changes
// the state, the next steps are exactly those of a fresh stepper started there (bitwise —
// a re-initialization is a true restart).
TEST(Bdf, StepFromAMovedStateRestartsLikeAFreshStepper) {
  for (const bool dae : {false, true}) {
    SCOPED_TRACE(dae ? "IDA" : "CVODE");
    Robertson ode;
    RobertsonDae dae_system;
    OdeSystem& system = dae ? static_cast<OdeSystem&>(dae_system) : ode;
    const StepperOptions options = Tolerances(1e-6, 1e-10);
    const std::unique_ptr<Stepper> a = MakeBdf(options);
    const std::unique_ptr<Stepper> b = MakeBdf(options);
    a->Resize(3);
    b->Resize(3);
    std::array<double, 3> x = Robertson::kInitial;
    double t = 0.0;
    for (int i = 0; i < 15; ++i) {
      const StepResult r = a->Step(system, t, x, 1.0 - t, x);
      ASSERT_EQ(r.status, StepStatus::kAccepted) << r.message;
      t += r.h_taken;
    }
    x[0] *= 1.0 - 1e-4;  // the caller moves the state (and keeps y1 + y2 + y3 = 1)
    x[2] = 1.0 - x[0] - x[1];
    std::array<double, 3> y = x;
    double s = t;
    for (int i = 0; i < 10; ++i) {
      const StepResult ra = a->Step(system, t, x, 1.0 - t, x);
      const StepResult rb = b->Step(system, s, y, 1.0 - s, y);
      ASSERT_EQ(ra.status, StepStatus::kAccepted) << ra.message;
      ASSERT_EQ(rb.status, StepStatus::kAccepted) << rb.message;
      EXPECT_EQ(ra.h_taken, rb.h_taken) << "step " << i;
      EXPECT_EQ(x, y) << "step " << i;
      t += ra.h_taken;
      s += rb.h_taken;
    }
  }
}

// Switch detection retakes a step from its start with a shorter h: the retaken step is that
// of a fresh stepper from the same (t, x), although the integrator had moved past it.
TEST(Bdf, RetakenStepFromAnEarlierTimeRestartsLikeAFreshStepper) {
  Robertson system;
  const StepperOptions options = Tolerances(1e-6, 1e-10);
  const std::unique_ptr<Stepper> a = MakeBdf(options);
  const std::unique_ptr<Stepper> b = MakeBdf(options);
  a->Resize(3);
  b->Resize(3);
  std::array<double, 3> x = Robertson::kInitial;
  double t = 0.0;
  std::array<double, 3> x_before{};
  double t_before = 0.0;
  double h_last = 0.0;
  for (int i = 0; i < 12; ++i) {
    x_before = x;
    t_before = t;
    const StepResult r = a->Step(system, t, x, 1.0 - t, x);
    ASSERT_EQ(r.status, StepStatus::kAccepted) << r.message;
    t += r.h_taken;
    h_last = r.h_taken;
  }
  std::array<double, 3> from_a{}, from_b{};
  const StepResult ra = a->Step(system, t_before, x_before, 0.5 * h_last, from_a);
  const StepResult rb = b->Step(system, t_before, x_before, 0.5 * h_last, from_b);
  ASSERT_EQ(ra.status, StepStatus::kAccepted) << ra.message;
  EXPECT_EQ(ra.h_taken, rb.h_taken);
  EXPECT_EQ(ra.evaluations, rb.evaluations);
  EXPECT_EQ(from_a, from_b);
}

// The other side of the same rule: a state handed back unchanged continues the history.
// Moving it by one ulp after every step forces a restart at order 1 each time, which costs
// many times the steps (order 1 with steps ∝ tol^(1/2) instead of order ≤ 5); the restarting
// run is cut off at 10 times the continuing one's steps.
TEST(Bdf, UnchangedStateContinuesTheHistory) {
  const double t_end = 2.0;
  auto steps_with = [&](bool nudge, int max_steps) {
    StiffLinear system;
    const std::unique_ptr<Stepper> bdf = MakeBdf(Tolerances(1e-6, 1e-6));
    const Outcome run = Integrate(*bdf, system, 0.0, StiffLinear::kInitial, t_end, max_steps,
                                  [&](double, std::span<double> x) {
                                    if (nudge) x[1] = std::nextafter(x[1], 10.0);
                                  });
    EXPECT_EQ(run.status, StepStatus::kAccepted) << run.message;
    return run.steps;
  };
  const int continuing = steps_with(false, 100000);
  const int restarting = steps_with(true, 10 * continuing);
  EXPECT_GT(restarting, 5 * continuing);
  RecordProperty("steps_continuing", continuing);
  RecordProperty("steps_restarting", restarting);
}

// Above BdfLinearSolver::kSparseFromSize unknowns the Newton matrix is KLU's on the
// tridiagonal pattern; without a symbolic Jacobian it is SUNDIALS' dense difference-quotient
// one. Both runs are within ≈ 10·tol of the solution, so they agree to 100·tol; the
// mass-matrix form (2 x' = 2 F, IDA with c_j M − ∂F/∂x in KLU) too.
TEST(Bdf, SparseAndDenseNewtonMatricesAgree) {
  const std::size_t n = 60;
  const double tol = 1e-8;
  std::vector<double> x0(n, 0.0);
  const double t_end = 0.1;
  StiffChain sparse(n, true), dense(n, false), mass_form(n, true, 2.0);
  Outcome runs[3];
  OdeSystem* systems[3] = {&sparse, &dense, &mass_form};
  for (int i = 0; i < 3; ++i) {
    const std::unique_ptr<Stepper> bdf = MakeBdf(Tolerances(tol, tol));
    runs[i] = Integrate(*bdf, *systems[i], 0.0, x0, t_end);
    ASSERT_EQ(runs[i].status, StepStatus::kAccepted) << i << ": " << runs[i].message;
  }
  for (std::size_t k = 0; k < n; ++k) {
    EXPECT_NEAR(runs[0].x[k], runs[1].x[k], 100 * tol) << k;
    EXPECT_NEAR(runs[0].x[k], runs[2].x[k], 100 * tol) << k;
  }
  // The difference quotients cost n evaluations of F per Jacobian; the symbolic Jacobian none.
  EXPECT_GT(runs[1].evaluations, runs[0].evaluations + static_cast<long>(n));
}

// A right-hand side that fails on the way — like an inner Newton that does not converge, or a
// square root of a negative concentration, when a step is too large — makes SUNDIALS retry
// with smaller steps, and the run reaches its end. Here the first three evaluations past
// t = 1 fail, whatever the step.
TEST(Bdf, FailingRightHandSideIsRetriedWithSmallerSteps) {
  class FailsOnceAcrossOne final : public StiffLinear {
   public:
    bool Evaluate(double t, std::span<const double> x, std::span<double> f) override {
      if (t > 1.0 && failures < 3) {
        ++failures;
        return false;
      }
      return StiffLinear::Evaluate(t, x, f);
    }
    int failures = 0;
  } system;
  const StepperOptions options = Tolerances(1e-6, 1e-6);
  const std::unique_ptr<Stepper> bdf = MakeBdf(options);
  const Outcome run = Integrate(*bdf, system, 0.0, StiffLinear::kInitial, 2.0);
  ASSERT_EQ(run.status, StepStatus::kAccepted) << run.message;
  EXPECT_EQ(run.t, 2.0);
  EXPECT_GT(system.failures, 0);
  EXPECT_GT(run.rejections, 0);
}

// A clone has no SUNDIALS memory of its own: it interpolates the original's last step from
// the copied Taylor polynomial (equal to the original's interpolant up to rounding, relative
// 1e-12 for this order-≤5 polynomial of O(1) values), and its next step restarts at order 1,
// exactly as a fresh stepper's would.
TEST(Bdf, CloneInterpolatesTheLastStepAndRestartsAtItsNextStep) {
  StiffLinear system;
  const StepperOptions options = Tolerances(1e-8, 1e-8);
  const std::unique_ptr<Stepper> original = MakeBdf(options);
  original->Resize(2);
  std::array<double, 2> x = StiffLinear::kInitial;
  double t = 0.0;
  StepResult last;
  for (int i = 0; i < 40; ++i) {
    last = original->Step(system, t, x, 10.0 - t, x);
    ASSERT_EQ(last.status, StepStatus::kAccepted) << last.message;
    t += last.h_taken;
  }
  const std::unique_ptr<Stepper> clone = original->Clone();
  for (const double theta : {0.1, 0.5, 0.9}) {
    const double t_out = t - (1.0 - theta) * last.h_taken;
    std::array<double, 2> a{}, b{};
    original->Interpolate(t_out, a);
    clone->Interpolate(t_out, b);
    EXPECT_NEAR(a[0], b[0], 1e-12) << theta;
    EXPECT_NEAR(a[1], b[1], 1e-12) << theta;
  }
  const std::unique_ptr<Stepper> fresh = MakeBdf(options);
  fresh->Resize(2);
  std::array<double, 2> from_clone{}, from_fresh{};
  const StepResult rc = clone->Step(system, t, x, 10.0 - t, from_clone);
  const StepResult rf = fresh->Step(system, t, x, 10.0 - t, from_fresh);
  ASSERT_EQ(rc.status, StepStatus::kAccepted) << rc.message;
  EXPECT_EQ(rc.h_taken, rf.h_taken);
  EXPECT_EQ(from_clone, from_fresh);
  EXPECT_LT(rc.h_taken, last.h_next);  // order 1 from scratch: far below the original's proposal
}

// Components declared of index ≥ 2 leave IDA's error test (IDASetSuppressAlg); the others
// keep it, and the algebraic equation is still solved.
TEST(Bdf, HigherIndexComponentsLeaveIdasErrorTest) {
  class Index2Third final : public RobertsonDae {
   public:
    [[nodiscard]] std::span<const std::uint8_t> variable_index() const override { return index; }
    std::array<std::uint8_t, 3> index = {0, 0, 2};
  } system;
  const std::unique_ptr<Stepper> bdf = MakeBdf(Tolerances(1e-6, 1e-10));
  const Outcome run = Integrate(*bdf, system, 0.0, Robertson::kInitial, 100.0);
  ASSERT_EQ(run.status, StepStatus::kAccepted) << run.message;
  EXPECT_NEAR(run.x[0] + run.x[1] + run.x[2], 1.0, 1e-12);
}

// Error paths, each with its message.

// One Step of a fresh bdf stepper from (t, x) with h.
template <std::size_t N>
StepResult FirstStep(OdeSystem& system, const StepperOptions& options, std::array<double, N> x,
                     double t = 0.0, double h = 0.1) {
  const std::unique_ptr<Stepper> bdf = MakeBdf(options);
  bdf->Resize(N);
  return bdf->Step(system, t, x, h, x);
}

TEST(Bdf, FixedStepUseIsUnsupported) {
  Robertson system;
  StepperOptions options;
  options.error_control = false;
  const StepResult r = FirstStep(system, options, Robertson::kInitial);
  EXPECT_EQ(r.status, StepStatus::kUnsupported);
  EXPECT_THAT(r.message, HasSubstr("bdf has no fixed-step mode"));
  EXPECT_THAT(r.message, HasSubstr("error_control = false"));
}

TEST(Bdf, PerComponentToleranceOfAnotherSizeIsUnsupported) {
  Robertson system;
  StepperOptions options;
  options.atol_per_component = {1e-8, 1e-8};
  const StepResult r = FirstStep(system, options, Robertson::kInitial);
  EXPECT_EQ(r.status, StepStatus::kUnsupported);
  EXPECT_EQ(r.message,
            "StepperOptions::atol_per_component has 2 elements; must have one per component (3)");
}

// M x' = F with M's non-zero part not a square regular block: IDA cannot be started from
// M x' = F alone.
TEST(Bdf, MassMatrixWithoutARegularBlockIsUnsupported) {
  class WithMass final : public OdeSystem {
   public:
    WithMass(std::vector<MatrixEntry> pattern, std::vector<double> values)
        : pattern_(std::move(pattern)), values_(std::move(values)) {}
    [[nodiscard]] std::size_t size() const override { return 2; }
    bool Evaluate(double, std::span<const double> x, std::span<double> f) override {
      f[0] = -x[0];
      f[1] = x[0] - x[1];
      return true;
    }
    [[nodiscard]] std::span<const MatrixEntry> mass_pattern() const override { return pattern_; }
    [[nodiscard]] std::span<const double> mass_values() const override { return values_; }

   private:
    std::vector<MatrixEntry> pattern_;
    std::vector<double> values_;
  };
  WithMass one_row({{0, 0}, {0, 1}}, {1.0, 1.0});                        // 1 row, 2 columns
  WithMass singular({{0, 0}, {0, 1}, {1, 0}, {1, 1}}, {1.0, 1.0, 1.0, 1.0});  // rank 1
  const std::array<double, 2> x = {1.0, 0.0};
  StepResult r = FirstStep(one_row, {}, x);
  EXPECT_EQ(r.status, StepStatus::kUnsupported);
  EXPECT_THAT(r.message, HasSubstr("square regular block"));
  EXPECT_THAT(r.message, HasSubstr("M has 1 non-zero rows and 2 non-zero columns"));
  r = FirstStep(singular, {}, x);
  EXPECT_EQ(r.status, StepStatus::kUnsupported);
  EXPECT_THAT(r.message, HasSubstr("non-zero block (2 × 2) to be regular"));
}

TEST(Bdf, NonFiniteRightHandSideNamesTheCallbackAndTime) {
  class NanAt final : public OdeSystem {
   public:
    [[nodiscard]] std::size_t size() const override { return 1; }
    bool Evaluate(double, std::span<const double>, std::span<double> f) override {
      f[0] = std::numeric_limits<double>::quiet_NaN();
      return true;
    }
  } system;
  const StepResult r = FirstStep(system, {}, std::array<double, 1>{1.0}, 0.25);
  EXPECT_EQ(r.status, StepStatus::kNonFinite);
  EXPECT_THAT(r.message, HasSubstr("bdf (CVODE): the step from t = 0.25 failed with "
                                   "CV_FIRST_RHSFUNC_ERR"));
  EXPECT_THAT(r.message, HasSubstr("OdeSystem::Evaluate gave non-finite values at t = 0.25"));
}

TEST(Bdf, FailingJacobianEndsWithRhsFailedNamingIt) {
  class NoJacobian final : public StiffLinear {
   public:
    bool Jacobian(double, std::span<const double>, std::span<double>) override { return false; }
  } system;
  const StepResult r = FirstStep(system, {}, StiffLinear::kInitial, 0.0, 1.0);
  EXPECT_EQ(r.status, StepStatus::kRhsFailed);
  EXPECT_THAT(r.message, HasSubstr("bdf (CVODE): the step from t = 0 failed with "));
  EXPECT_THAT(r.message, HasSubstr("OdeSystem::Jacobian returned false at t = "));
}

// A projection that always fails: CVODE retries with h/4 until it gives up
// (CV_REPTD_PROJFUNC_ERR); the IDA path retakes the step from its start likewise.
TEST(Bdf, FailingProjectionEndsWithRhsFailedNamingIt) {
  class Unprojectable final : public Pendulum {
   public:
    Unprojectable() : Pendulum(true) {}
    bool Project(double, std::span<double>, std::span<double>) override { return false; }
  } ode;
  class UnprojectableDae final : public PendulumDae {
   public:
    UnprojectableDae() : PendulumDae(true) {}
    bool Project(double, std::span<double>, std::span<double>) override { return false; }
  } dae;
  {
    const std::unique_ptr<Stepper> bdf = MakeBdf(Tolerances(1e-6, 1e-6));
    const Outcome run = Integrate(*bdf, ode, 0.0, Pendulum::Initial(1.0), 1.0);
    EXPECT_EQ(run.status, StepStatus::kRhsFailed);
    EXPECT_THAT(run.message, HasSubstr("CV_REPTD_PROJFUNC_ERR"));
    EXPECT_THAT(run.message, HasSubstr("OdeSystem::Project returned false"));
  }
  {
    const std::unique_ptr<Stepper> bdf = MakeBdf(Tolerances(1e-6, 1e-6));
    const Outcome run = Integrate(*bdf, dae, 0.0, PendulumDae::Initial(1.0), 1.0);
    EXPECT_EQ(run.status, StepStatus::kRhsFailed);
    EXPECT_THAT(run.message, HasSubstr("bdf (IDA)"));
    EXPECT_THAT(run.message, HasSubstr("OdeSystem::Project returned false"));
    // Each retry quarters the step, from IDA's first step down to the 1e-14 floor.
    EXPECT_GT(run.rejections, 10) << run.message;
  }
}

}  // namespace
}  // namespace tether::integrate
