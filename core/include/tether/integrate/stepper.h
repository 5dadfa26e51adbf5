// One interface for every scheme that advances the reduced system M x' = F(t, x) (an ODE when
// M = I, an index-1 DAE when M is singular).
// The projection method (shared/seeds, chapter 19) keeps stepping and projection apart: a
// stepper knows nothing of constraints; core/simulate projects after each accepted step.
//
// Adding a method means one file pair beside this one and one line in stepper_registry.cc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tether::integrate {

// One structurally non-zero entry of a sparse matrix (0-based row and column).
struct MatrixEntry {
  std::uint32_t row = 0;
  std::uint32_t col = 0;
};

// The system a stepper advances:
//     M x' = F(t, x),   x ∈ ℝⁿ,   M constant.
// Explicit methods need M = I (the default) and only call Evaluate. Implicit methods (radau5,
// bdf) also use the Jacobian ∂F/∂x and M, which may be singular: a zero row of M makes its
// component an algebraic equation 0 = F_i(t, x) solved inside the stage system (an index-1
// DAE, Hairer–Wanner II, VI.1). Matrices are given as a fixed sparsity pattern plus values,
// so a method can assemble them dense or sparse as the size warrants.
//
// Evaluation may legitimately fail (an inner Newton solve of an index-1 model that does not
// converge, a singular constraint Jacobian, an argument outside a function's domain): it then
// returns false, and the stepper rejects the step and retries it with a smaller one.
class OdeSystem {
 public:
  virtual ~OdeSystem() = default;
  [[nodiscard]] virtual std::size_t size() const = 0;
  // dxdt ← F(t, x). `x` and `dxdt` have size() elements and do not alias.
  virtual bool Evaluate(double t, std::span<const double> x, std::span<double> dxdt) = 0;

  // The structurally non-zero entries of M, each listed once; empty means M = I.
  [[nodiscard]] virtual std::span<const MatrixEntry> mass_pattern() const { return {}; }
  // M's values, one per mass_pattern() entry.
  [[nodiscard]] virtual std::span<const double> mass_values() const { return {}; }

  // The structurally non-zero entries of ∂F/∂x, each listed once and fixed for the system's
  // lifetime; empty when the system has no symbolic Jacobian (implicit methods then
  // approximate it by forward differences of F).
  [[nodiscard]] virtual std::span<const MatrixEntry> jacobian_pattern() const { return {}; }
  // values[k] ← ∂F_row/∂x_col at (t, x) for entry k of jacobian_pattern(). False on failure,
  // as Evaluate.
  virtual bool Jacobian(double /*t*/, std::span<const double> /*x*/,
                        std::span<double> /*values*/) {
    return false;
  }

  // Invariants the solution keeps (the hidden constraints of the projection method, chapter
  // 19): a stepper that projects_internally() calls Project after each step (inside the step,
  // so that a multistep method's history stays on the manifold) instead of the caller
  // projecting the step's end.
  [[nodiscard]] virtual bool has_projection() const { return false; }
  // x ← the nearest point of the invariant manifold {H(t, z) = 0} in the system's metric W
  // (min ½‖z − x‖²_W s.t. H(t, z) = 0), in place, to the system's own tolerance. If `error`
  // is non-empty (size() elements, a local error estimate), also error ← its projection onto
  // the tangent space at the projected x: e ← e − W⁻¹H_zᵀ(H_z W⁻¹ H_zᵀ)⁻¹ H_z e (SUNDIALS'
  // CVProjFn convention). False on failure (no convergence, singular H_z), as Evaluate: the
  // stepper retries with a smaller step.
  virtual bool Project(double /*t*/, std::span<double> /*x*/, std::span<double> /*error*/) {
    return false;
  }

  // Per component, the differentiation index of its variable for error control (Hairer's
  // RADAU5, NIND1/2/3): 0 or 1 for differential and index-1 algebraic components, 2 or 3 for
  // index-2 and index-3 algebraic ones, whose error estimate is scaled by h^(index − 1).
  // Empty means every component has index ≤ 1.
  [[nodiscard]] virtual std::span<const std::uint8_t> variable_index() const { return {}; }

  // Per component i: k ≠ i if component i is the time derivative of component k (x_k' = x_i
  // is one of the system's equations, as for an implicit model's der(x) kept as an algebraic
  // unknown), i itself otherwise. Empty means no component is. An error δ in x_i moves x_k by
  // about h·δ over a step of h, so implicit methods measure x_i's error and Newton increments
  // in x_k's weight divided by h instead of x_i's own: its own (atol + rtol·|x_k'|) asks for
  // digits of x_k' that cannot reach x_k, and near a steep nonlinearity its Newton iteration
  // stalls at rounding level above them.
  [[nodiscard]] virtual std::span<const std::uint32_t> derivative_of() const { return {}; }
};

struct StepperOptions {
  // Fixed-step methods: the step h [s], > 0. Adaptive methods: the first step tried [s];
  // 0 selects it automatically (explicit pairs: Hairer's starting-step heuristic; radau5:
  // 1e-6 s, as RADAU5 does).
  double step = 1e-3;
  // Adaptive methods: a step is accepted iff WrmsNorm(local error estimate) ≤ 1 with these
  // relative [1] and absolute [state units] tolerances; both > 0 (rtol ≥ 1e-15). radau5
  // uses them as they are, not transformed as RADAU5 does (radau5.h).
  double rtol = 1e-8;
  double atol = 1e-10;
  // Per-component absolute tolerances [state units]; when non-empty (one per component, each
  // > 0) they replace `atol` in the error norm.
  std::vector<double> atol_per_component;
  // The absolute tolerance of component i: atol_per_component[i] if given, else atol.
  [[nodiscard]] double AbsoluteTolerance(std::size_t i) const {
    return atol_per_component.empty() ? atol : atol_per_component[i];
  }
  // Step-size controller h_new = h · clamp(safety · err^(−1/(q+1)), min_factor, max_factor),
  // q the order of the embedded estimate. 0 < safety < 1, 0 < min_factor < 1 < max_factor.
  // radau5 uses the same three bounds in RADAU5's controller (radau5.h; RADAU5's own
  // max_factor is 8).
  double safety = 0.9;
  double min_factor = 0.2;
  double max_factor = 10.0;
  // Largest step [s]; 0 means unbounded.
  double max_step = 0.0;
  // A step below min_step_relative · max(1, |t|) ends the run with kStepSizeUnderflow.
  double min_step_relative = 1e-14;
  // Consecutive rejections of one step before giving up with kStepSizeUnderflow.
  int max_rejections = 60;
  // Adaptive methods only: false takes every step with exactly the h given and no error
  // estimate (fixed-step use of an embedded pair, e.g. for convergence studies by halving h).
  bool error_control = true;
  // Adaptive methods: after an attempt that failed (StepResult::failure other than
  // kErrorTooLarge) the step is retried with h ← h · failure_factor (RADAU5 halves h after
  // an unexpected rejection, Hairer–Wanner II, IV.8). In (0, 1).
  double failure_factor = 0.5;

  // Implicit methods (radau5). Defaults are RADAU5's (Hairer–Wanner II, IV.8, and the
  // comments of radau5.f); radau5.h shows where each enters.
  // At most this many simplified-Newton iterations per stage solve (RADAU5's NIT); an
  // attempt not converged after them is retried with h · failure_factor. ≥ 1.
  int newton_max_iterations = 7;
  // The Newton iteration stops when η·‖ΔW‖ ≤ newton_tolerance, η = θ/(1 − θ), ‖·‖ the error
  // norm (RADAU5's FNEWT, the κ of HW II (8.21)); 0 selects RADAU5's
  // max(10 ε / rtol, min(0.03, √rtol)) (radau5.h). ≥ 0.
  double newton_tolerance = 0.0;
  // The Jacobian is kept for the next step iff the Newton contraction θ of the step just
  // accepted is ≤ this (RADAU5's THET; raise it, to 0.1 say, when Jacobians are expensive).
  // In [0, 1).
  double jacobian_reuse_theta = 0.001;
  // While the Jacobian is kept and the controller's h_new/h lies in [keep_step_lower,
  // keep_step_upper], the next step keeps h, so the LU factors are reused (RADAU5's QUOT1,
  // QUOT2). 0 < keep_step_lower ≤ 1 ≤ keep_step_upper.
  double keep_step_lower = 1.0;
  double keep_step_upper = 1.2;
  // Gustafsson's predictive step-size controller (true) or the classical one (false)
  // (RADAU5's IWORK(8)).
  bool predictive_controller = true;
  // The Newton matrices σM − J are factored by sparse LU (KLU) iff the system has a symbolic
  // Jacobian (non-empty jacobian_pattern()), at least sparse_min_size components, and the
  // union of J's and M's patterns fills at most sparse_max_density of the n² entries; by dense
  // LU otherwise. Defaults measured by bench/radau5_linear_algebra (radau5.h). ≥ 1; in (0, 1].
  std::size_t sparse_min_size = 16;
  double sparse_max_density = 0.5;

  bool IsValid(std::string* why) const;
};

// Weighted root-mean-square norm used by error control (Hairer–Nørsett–Wanner I, II.4):
//   ‖e‖ = sqrt( (1/n) Σ (e_i / (atol_i + rtol·max(|x_i|, |y_i|)))² ),
// atol_i = options.AbsoluteTolerance(i); an error is acceptable iff ‖e‖ ≤ 1.
double WrmsNorm(std::span<const double> error, std::span<const double> x,
                std::span<const double> y, const StepperOptions& options);

enum class StepStatus {
  kAccepted,           // x_new holds the state at t + h_taken
  // Adaptive methods: every attempt failed until the next one would have been below the
  // minimum step (or max_rejections attempts, or repeated singular Newton matrices);
  // StepResult::failure says why the last attempt failed: kErrorTooLarge is an underflow of
  // the error control, anything else repeated failed stages.
  kStepSizeUnderflow,
  // NaN or ±∞ where no smaller step can help: F(t, x) at the step's start (adaptive methods),
  // or a stage or the result of a fixed-step attempt (euler, rk4, error_control = false),
  // which cannot retry.
  kNonFinite,
  // OdeSystem::Evaluate (or Jacobian, Project) returned false where no smaller step can help:
  // at the step's start (t, x) for adaptive methods, or in any stage of a fixed-step attempt.
  kRhsFailed,
  kUnsupported,        // the method cannot integrate this system with these options
                       // (StepResult::message says why); nothing was stepped
  // Implicit methods used with a fixed step (error_control = false): the stage Newton
  // iteration failed (StepResult::failure says how) and a fixed step cannot retry.
  kNewtonFailed,
};

// Why an attempt at a step failed (StepResult::failure). Describe() phrases it for messages.
enum class AttemptFailure {
  kNone,             // no attempt failed
  kErrorTooLarge,    // the local error estimate exceeded the tolerances (WRMS > 1)
  kRhsFailed,        // OdeSystem::Evaluate (or Jacobian) returned false
  kNonFinite,        // a stage, the Jacobian or the result held NaN or ±∞
  kNewtonDiverged,   // implicit: the stage Newton iteration diverged (contraction θ ≥ 0.99)
  kNewtonTooSlow,    // implicit: it did not converge, or would not, within
                     // newton_max_iterations
  kSingularMatrix,   // implicit: an LU factorization of a Newton matrix met a zero pivot
};

// "the local error estimate exceeded the tolerances", … (no trailing period).
std::string_view Describe(AttemptFailure failure);

struct StepResult {
  StepStatus status = StepStatus::kAccepted;
  double h_taken = 0.0;     // the accepted step [s]
  double h_next = 0.0;      // the controller's proposal for the next step [s]
  double error_norm = 0.0;  // WRMS norm of the accepted local error estimate (0 if none)
  int rejections = 0;       // rejected attempts before acceptance
  int evaluations = 0;      // calls of OdeSystem::Evaluate during this step
  // Implicit methods: Jacobian evaluations (symbolic or by differences), LU factorizations of
  // the Newton matrices, and Newton iterations of the stage solves during this step.
  int jacobians = 0;
  int factorizations = 0;
  int newton_iterations = 0;
  // On failure, what failed, where and why (e.g. bdf: the integrator, t, SUNDIALS' flag and
  // message, the failing callback); empty on success and where a method has nothing to add.
  std::string message;
  // The last failed attempt of this step: why, and its step size [s] (kNone and 0 when no
  // attempt failed). For a step that did not end kAccepted this is the cause of its end.
  AttemptFailure failure = AttemptFailure::kNone;
  double h_failed = 0.0;
};

class Stepper {
 public:
  virtual ~Stepper() = default;

  [[nodiscard]] virtual std::string_view name() const = 0;  // "euler", "rk4", "dp5", "dop853"
  [[nodiscard]] virtual int order() const = 0;              // order of the propagated solution
  [[nodiscard]] virtual bool adaptive() const = 0;
  // True for methods that solve stage equations with the Jacobian (radau5, bdf): they accept
  // systems with a singular mass matrix. Explicit methods need M = I.
  [[nodiscard]] virtual bool implicit() const { return false; }
  // False for methods without a fixed-step mode (bdf: SUNDIALS always controls the step):
  // with StepperOptions::error_control = false their Step ends with kUnsupported, so callers
  // validate the combination up front.
  [[nodiscard]] virtual bool supports_fixed_step() const { return true; }
  // True for methods that call OdeSystem::Project themselves after every accepted step (bdf,
  // through CVodeSetProjFn): when the system has_projection(), x_new is already projected
  // and the caller must not project it again (a multistep method would have to restart at
  // order 1 from a state changed behind its back). Dense output is not projected.
  [[nodiscard]] virtual bool projects_internally() const { return false; }
  // True while the method finds the problem stiff for itself: the explicit pairs apply Hairer's
  // test of DOPRI5/DOP853 (embedded_runge_kutta.h). False for the other methods.
  [[nodiscard]] virtual bool seems_stiff() const { return false; }
  // True for methods whose dense output is not held to the tolerance where their steps are
  // (radau5: its error estimate damps the stiff components, so on a stiff problem with a
  // smooth solution the steps outgrow what its cubic interpolant represents). Callers that
  // sample end a step at each output time instead of interpolating.
  [[nodiscard]] virtual bool samples_at_step_ends() const { return false; }
  [[nodiscard]] virtual std::unique_ptr<Stepper> Clone() const = 0;
  [[nodiscard]] virtual const StepperOptions& options() const = 0;

  // Allocates all work memory for systems of size n. Step and Interpolate do not allocate.
  // Also forgets the step history (an adaptive method's step proposal and reusable last stage),
  // so call it at the start of every run.
  virtual void Resize(std::size_t n) = 0;

  // One step from (t, x) with the step h (fixed-step methods take h as is; adaptive methods
  // try h and shrink it on rejection, never exceeding it). Writes the new state to x_new.
  virtual StepResult Step(OdeSystem& system, double t, std::span<const double> x, double h,
                          std::span<double> x_new) = 0;

  // Dense output over the last accepted step [t, t + h_taken]: the interpolant (each
  // method's header documents it; of the method's order where it has one) at t_out.
  // t_out equal to either end returns that end's state exactly. Before the first accepted
  // step after Resize, and after a failed Step, x_out is filled with NaN.
  virtual void Interpolate(double t_out, std::span<double> x_out) const = 0;
};

// Creates a stepper by name; nullptr for an unknown name.
std::unique_ptr<Stepper> MakeStepper(std::string_view name, const StepperOptions& options);
// The names MakeStepper accepts, in documentation order.
std::span<const std::string_view> StepperNames();

}  // namespace tether::integrate
