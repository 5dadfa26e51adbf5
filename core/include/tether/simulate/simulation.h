// A simulation run: model + parameters + initial values + options, advanced sample by sample.
// Every emitted sample lies on the constraint manifold to the projection tolerance.
//
// Data flow inside (shared/DESIGN.md §1): reduce (hidden constraints, reduced ODE, compiled
// Jacobians) → stepper → projector → sampler. This is the only header server/ needs.
//
// Lifecycle: Create (validates everything, runs consistent initialization, emits nothing) →
// Advance (repeatedly; each call emits at most `max_samples` samples and returns; the next call
// continues exactly after the last emitted sample) → a terminal status. A Simulation is a value:
// copying it forks the run at its current state (ForkSession). A fork continues bitwise as the
// original would, with two exceptions. Where a stepper or the reduced model factors by sparse
// LU (radau5 on large sparse systems, auto's radau5 on them, a large sparse G_w), a copied KLU
// factorization chooses its pivots afresh (tether/linalg/klu_factorization.h): the fork agrees
// to rounding. A fork of bdf restarts SUNDIALS' integrator at order 1 (integrate/bdf.h): it
// agrees to the tolerances.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tether/model/model.h"
#include "tether/project/method.h"

namespace tether::simulate {

// The projection's options are the projector's own vocabulary (tether/project/method.h).
using Projection = project::Method;
using project::Metric;
using project::NewtonVariant;
using project::MetricName;
using project::ProjectionName;

// How index-1, index-2 and implicit models obtain y (DESIGN.md §3).
enum class AlgebraicMode {
  // y from g = 0 (index 1), h = 0 (index 2) or G = 0 (implicit) in every stage (default).
  // Explicit methods solve it by an inner Newton per stage evaluation. radau5 (and bdf on
  // models without invariants: index1, implicit of index 1) takes the index-1 system whole,
  // M (x, y)' = (f, c) with M = diag(I, 0), and solves c = 0 inside its own stage system (no
  // inner Newton; y is re-solved from c = 0 at each projected step end and sample, so samples
  // are the same (x, y(x)) either way; tether/reduce/reduced_model.h, kStage). "auto" solves
  // by the inner Newton, except that where the algebraic part is large and sparse (c_y
  // factored by sparse LU) its radau5 takes the system whole as radau5 alone does.
  kSolve,
  kOde,    // y' ODE of §20.1/§20.2, with projection onto the invariants
};

// The names Options::method accepts: every stepper of integrate::StepperNames() ("euler",
// "rk4", "dp5", "dop853", "bdf", "radau5") and kAutoMethod.
std::span<const std::string_view> MethodNames();
// "auto": dp5 while the problem is not stiff, radau5 while it is. dp5's stiffness test
// (integrate::Stepper::seems_stiff) switches to radau5; every 10 radau5 steps, a step h with
// h·‖∂F/∂z‖∞ ≤ ½·3.25 (half dp5's stability boundary, ‖·‖∞ bounding the spectral radius)
// switches back. Each switch is a RunNotice.
inline constexpr std::string_view kAutoMethod = "auto";

struct Options {
  // One of MethodNames().
  std::string method = "dp5";
  // Fixed-step methods: the step [s], > 0. Adaptive ones: first step tried [s], 0 = automatic.
  double step = 1e-3;
  // Adaptive methods: local error per step accepted iff its WRMS norm with these tolerances is
  // ≤ 1. rtol [1] in [1e-15, 1); atol [state units] > 0.
  double rtol = 1e-8;
  double atol = 1e-10;
  // Per-variable absolute tolerances [the variable's unit], > 0, replacing `atol` for the state
  // variables named (those the stepper advances: not the algebraic variables of algebraic mode
  // kSolve, which are solved to the Newton tolerance inside every stage).
  std::map<std::string, double> atol_by_variable;
  // Largest step [s]; 0 = unbounded.
  double max_step = 0.0;
  // Adaptive methods only: false runs them at the fixed step `step` with no error estimate
  // (convergence studies by step halving). Fixed-step runs land exactly on t_end and on every
  // output grid point that lies within 1e-9·step of a step end.
  bool error_control = true;

  Projection projection = Projection::kSequential;
  Metric metric = Metric::kEuclidean;
  NewtonVariant newton = NewtonVariant::kFull;
  AlgebraicMode algebraic = AlgebraicMode::kSolve;
  // Newton stops when the residual of the invariants H(z) (position and velocity level), in
  // the ∞-norm scaled by the invariant's natural scale (documented in the projector header),
  // is ≤ projection_tolerance. > 0.
  double projection_tolerance = 1e-12;
  // Newton gives up after this many iterations, or as soon as the residual grows. ≥ 1.
  int max_newton_iterations = 10;
  // Consistent (re-)initialization's globalized Newton (line search, Levenberg–Marquardt; see
  // tether/project/newton_projection.h) fails after this many accepted steps on one level.
  // From far off the manifold a step may only halve the distance (the pendulum from radius
  // 0.01 to 10 takes 16 at the position level), so the limit leaves room for ~2⁵⁰ in scale. ≥ 1.
  int max_initialization_iterations = 50;
  // Baumgarte parameters [1/s], ≥ 0: the acceleration constraint becomes
  // Φ_q v' = −a − 2α h − β² Φ (only with Projection::kBaumgarte).
  double baumgarte_alpha = 5.0;
  double baumgarte_beta = 5.0;

  // Samples on the grid t0 + k·output_interval [s]; 0 = one sample per accepted step. ≥ 0.
  // Grid points inside a step come from the stepper's dense output, except with radau5
  // (integrate::Stepper::samples_at_step_ends), whose steps end at every grid point.
  double output_interval = 0.01;
  // End of the run [s], > t0; +∞ runs until cancelled.
  double t_end = 10.0;
  // The run ends with kStepLimit after this many accepted steps, or as soon as its pace over
  // the last 2e5 steps shows that reaching t_end would take more than the steps left
  // (simulation.cc, kPaceWindow). ≥ 1.
  std::uint64_t max_steps = 100'000'000;

  // Models with inequalities c(x) ≥ 0 (projected dynamical systems, shared/seeds 003).
  // true: every switch (c_i reaching 0, or the multiplier μ_i of an active c_i reaching 0) is
  // located on the dense output and the step retaken to end there, so no step straddles a
  // switch and the stepper keeps its order. false: each step integrates the free flow and is
  // projected onto C (Moreau's catching-up scheme with "euler"): first order at switches.
  bool switch_detection = true;
  // Switch times are located to within this [s]; 0 = automatic: rtol · (the step's length),
  // at least 64 ε max(1, |t|). ≥ 0.
  double switch_tolerance = 0.0;
  // Chattering guard: more than max_switches switching instants within chattering_window [s] end
  // the run with kChattering; constraints switching together at one instant count once.
  // max_switches ≥ 1, chattering_window > 0.
  int max_switches = 20;
  double chattering_window = 1e-6;

  // Checks every field; on failure writes "Options::rtol = -1; must be in [1e-15, 1)".
  bool IsValid(std::string* why) const;
};

enum class ColumnKind {
  kState,
  kMultiplier,            // λ_i of an equality constraint (mechanical)
  kAlgebraic,
  kOutput,
  kInequalityMultiplier,  // μ_i ≥ 0 of inequality c_i ≥ 0; 0 while inactive
  kActive,                // 1 while inequality i is in the active set, else 0
};

// One streamed column (residuals travel beside the values, not as columns).
struct Column {
  std::string name;  // spec name; "lambda_1" … "lambda_m", "mu_1" … "mu_p", "active_1" …
  std::string unit;  // may be empty
  ColumnKind kind = ColumnKind::kState;
};

// The columns a run of `model` streams, in order: states (q, v or x, y), λ_1 … λ_m
// (mechanical), μ_1 … μ_p and active_1 … active_p (models with p inequalities), outputs.
std::vector<Column> DefaultColumns(const model::Model& model);

// A switch of a projected dynamical system, located on the dense output.
struct SwitchEvent {
  double t = 0.0;              // located switch time [s] (the sample's t)
  std::size_t constraint = 0;  // 0-based index into model.inequalities
  bool activated = true;       // true: c_i reached 0; false: μ_i reached 0 (flow turns inward)
};

// Something a run noticed that does not end it, reported once, with the sample where it
// was first seen.
struct Warning {
  std::string path;     // spec path of what it is about: "outputs.energy"
  std::string message;  // "output 'energy' became NaN at t = 0.25"
};

// Something a run noticed about itself, streamed as an event with the next sample.
struct RunNotice {
  enum class Kind {
    kStiffnessDetected,  // an explicit method found the problem stiff (said once per run)
    kMethodSwitched,     // method "auto" changed its stepper
  };
  Kind kind = Kind::kStiffnessDetected;
  double t = 0.0;  // when [s]
  std::string message;
};

// One emitted sample. `values`, `events`, `warnings` and `notices` view internal buffers valid
// only during the sink call.
struct Sample {
  std::uint64_t index = 0;  // 0 is the initial (consistent) state; consecutive, no gaps
  double t = 0.0;
  std::span<const double> values;  // over columns()
  double residual_position = 0.0;  // ‖Φ‖∞ (mechanical), ‖g‖∞ (index 1 and 2)
  double residual_velocity = 0.0;  // ‖h‖∞ (mechanical, index 2); 0 for index 1
  double residual_inequality = 0.0;  // max(0, −min_i c_i(x)); 0 without inequalities
  // Switches at this sample. A sample is emitted at every located switch, besides the grid.
  std::span<const SwitchEvent> events;
  // First seen at this sample: an output that became NaN or ±inf (once per output and run).
  std::span<const Warning> warnings;
  // Notices since the previous sample.
  std::span<const RunNotice> notices;
};

enum class Termination {
  kRunning,              // not ended: Advance stopped at max_samples; call it again
  kReachedEnd,           // t_end reached
  kProjectionFailed,     // Newton projection did not converge
  kSingularConstraints,  // rank-deficient constraint Jacobian / singular g_y or Φ_q M⁻¹ Φ_qᵀ
  kStepSizeUnderflow,
  kNonFinite,            // NaN or ±∞ in the state or the right-hand side
  kStepLimit,            // Options::max_steps accepted steps, or a pace that cannot reach t_end
  kCancelled,            // the cancel flag was raised
  kChattering,           // more than Options::max_switches instants within chattering_window
};

std::string_view TerminationName(Termination t);  // "reached_end", "projection_failed", …

struct Status {
  Termination reason = Termination::kRunning;
  double t = 0.0;       // time of the last good state
  std::string message;  // diagnosis: t, cause, residual, iterations, likely remedy

  [[nodiscard]] bool ended() const { return reason != Termination::kRunning; }
  [[nodiscard]] bool failed() const {
    return ended() && reason != Termination::kReachedEnd && reason != Termination::kCancelled;
  }
};

struct Statistics {
  std::uint64_t steps = 0;             // accepted steps
  std::uint64_t rejected_steps = 0;
  std::uint64_t rhs_evaluations = 0;
  std::uint64_t projections = 0;
  std::uint64_t projection_iterations = 0;
  std::uint64_t samples = 0;           // emitted samples
  double max_residual_position = 0.0;  // over emitted samples
  double max_residual_velocity = 0.0;
  double max_residual_inequality = 0.0;
  std::uint64_t switches = 0;          // located switches (SwitchEvent)
  std::uint64_t non_finite_outputs = 0;  // outputs that became NaN or ±inf (one Warning each)
  // Implicit methods (radau5, bdf); 0 for explicit ones.
  std::uint64_t jacobian_evaluations = 0;  // ∂F/∂z, symbolic (or by differences)
  std::uint64_t lu_factorizations = 0;     // of the Newton matrices
  std::uint64_t newton_iterations = 0;     // of the stage solves
  double cpu_seconds = 0.0;            // thread CPU time spent in Advance
};

// What consistent initialization changed.
struct InitializationReport {
  struct Change {
    std::string name;
    double given = 0.0;
    double corrected = 0.0;
  };
  std::vector<Change> changes;  // only values that moved
  double residual_position_before = 0.0;
  double residual_velocity_before = 0.0;
  double residual_position_after = 0.0;
  double residual_velocity_after = 0.0;
  int iterations = 0;

  // "initial state corrected: x 0.86 → 0.8570…, y 2.35 → 2.3419… (‖Φ‖∞ 1.2e-2 → 3e-16)"
  [[nodiscard]] std::string ToString() const;
};

// Everything a run is created from.
struct Setup {
  std::shared_ptr<const model::Model> model;
  std::map<std::string, double> parameters;  // overrides of the model's defaults
  std::map<std::string, double> initial;     // overrides of the spec's initial values
  std::vector<std::string> fixed;            // initial values initialization must not move
  Options options;
};

// An input problem found by Create/Update: a path such as "options.rtol", "parameters.mass",
// "initial.x" and what is wrong with it.
struct SetupProblem {
  std::string path;
  std::string message;
};

class Simulation;

struct CreateResult {
  std::unique_ptr<Simulation> simulation;  // set iff problems is empty and status is OK
  std::vector<SetupProblem> problems;      // bad input (→ INVALID_ARGUMENT)
  Status status;  // numerical failure of the initialization (singular, not converged, …)
  // With a failed status: the input to blame, "parameters.<name>" when that override broke a
  // model that initializes with the parameter's default, else "initial".
  std::string failure_path;
};

class Simulation {
 public:
  static CreateResult Create(const Setup& setup);

  Simulation(const Simulation& other);  // forks the run at its current state (header comment)
  Simulation& operator=(const Simulation&) = delete;
  ~Simulation();

  [[nodiscard]] const model::Model& model() const;
  [[nodiscard]] const std::vector<Column>& columns() const;
  [[nodiscard]] const InitializationReport& initialization() const;
  [[nodiscard]] const Options& options() const;
  [[nodiscard]] const std::map<std::string, double>& parameters() const;  // effective values

  // Emits at most `max_samples` samples to `sink` in order, advancing as far as needed, and
  // returns kRunning if the budget ran out first, or the terminal status. The first call
  // emits sample 0 (the initial state). `cancel`, if given, is polled once per step; a raised
  // flag makes Advance return kCancelled at once, but the run itself stays resumable (status()
  // remains kRunning and the next call continues exactly there), so the server can pause a
  // session by cancelling its stream. After any other terminal status, further calls return it
  // again. Once `return_by` has passed (the clock is read every kStepsPerClockRead steps),
  // Advance returns kRunning too, with the samples it has, perhaps none: a slow run's samples
  // need not wait for the budget to fill, and a server's worker is not held until a distant
  // sample comes.
  Status Advance(std::size_t max_samples, const std::function<void(const Sample&)>& sink,
                 const std::atomic<bool>* cancel = nullptr,
                 std::chrono::steady_clock::time_point return_by =
                     std::chrono::steady_clock::time_point::max());
  static constexpr std::uint64_t kStepsPerClockRead = 16;

  // Changes the horizon or the output grid between Advance calls; the grid restarts at the
  // last emitted sample. A run that had reached its end continues if t_end grows. Changes
  // nothing and returns HorizonProblems' problems if there are any.
  std::vector<SetupProblem> SetHorizon(double t_end, double output_interval);
  // Why SetHorizon(t_end, output_interval) would refuse, without changing the run (a server
  // checks a request before it commits to answering it).
  [[nodiscard]] std::vector<SetupProblem> HorizonProblems(double t_end,
                                                          double output_interval) const;

  // Changes parameters and/or state values between Advance calls and re-runs consistent
  // initialization at the current time. The next sample continues the index sequence.
  CreateResult Update(const std::map<std::string, double>& parameters,
                      const std::map<std::string, double>& values);

  [[nodiscard]] double time() const;  // t of the last emitted sample (t0 before any)
  [[nodiscard]] std::uint64_t next_sample_index() const;
  [[nodiscard]] const Status& status() const;
  [[nodiscard]] const Statistics& statistics() const;
  // The current state over columns(), as the last emitted sample (or the initial state).
  [[nodiscard]] std::vector<double> CurrentValues() const;

 private:
  struct Impl;
  explicit Simulation(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tether::simulate
