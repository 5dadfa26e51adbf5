// BDF ("bdf"): the variable-order (1–5), variable-step backward differentiation formulas of
// SUNDIALS 6.4 (Debian libsundials-dev) — CVODE for M x' = F(t, x) with M = I, IDA where M is
// given (singular or not) — behind the Stepper interface, so that the caller's projection,
// sampling and streaming work around the anchor's own integrator.
//
// The method (Hindmarsh et al., "SUNDIALS: Suite of nonlinear and differential/algebraic
// equation solvers", ACM TOMS 31 (2005) 363–396; Hairer–Wanner, Solving ODE II, III.1, V.5):
// at order q the step from t_{n−1} to t_n = t_{n−1} + h solves
//     Σ_{j=0…q} α_{n,j} x_{n−j} = h β_{n,0} F(t_n, x_n)          (CVODE, fixed-leading-coefficient
//                                                                 form, Nordsieck history)
//     G(t_n, x_n, x'_n) = M x'_n − F(t_n, x_n) = 0,  x'_n = Σ_j α_{n,j} x_{n−j} / h   (IDA)
// by Newton's method with the matrix I − γ ∂F/∂x (CVODE, γ = h β_{n,0}) or
// c_j M − ∂F/∂x (IDA: ∂G/∂x + c_j ∂G/∂x', c_j = α_{n,0}/h), then accepts the step iff the
// weighted RMS norm of the local error estimate (from the predictor–corrector difference) is
// ≤ 1, with the weights w_i = 1/(rtol·|x_i| + atol_i) of the state at the step's start. The
// controller picks the next h and q ∈ {q−1, q, q+1} that maximize the step (SUNDIALS'
// documentation, "Mathematical considerations"). Order 1 after every (re)start.
//
// Which integrator: CVODE iff mass_pattern() is empty or lists exactly the identity (every
// diagonal entry once, value 1); otherwise IDA, with the residual G above. IDA is started
// with x' from M x' = F(t, x): x'_D = M_RD⁻¹ F_R(t, x) on the non-zero rows R and columns D
// of M (a square regular block — the semi-explicit and mass-matrix forms of index-1 DAEs),
// x'_A = 0 on the algebraic columns. The caller gives consistent states (0 = F_i(t, x) on
// the zero rows of M); IDACalcIC is not used, because it would move the caller's algebraic
// components by up to its Newton tolerance. A different structure (non-square block) ends
// the Step with kUnsupported. Components with variable_index() ≥ 2 are excluded from IDA's
// error test (IDASetId + IDASetSuppressAlg), the standard treatment of higher-index
// variables in IDA, and so are derivatives kept as unknowns (derivative_of(): an error δ in
// x_k' moves x_k by h·δ, which x_k's test sees, and a jump in x_k' would fail every step);
// all other components are error-controlled.
//
// Jacobians: the system's symbolic ∂F/∂x when jacobian_pattern() is non-empty, scattered
// into SUNDIALS' matrix; otherwise SUNDIALS' internal difference quotients (n evaluations of
// F per Jacobian, dense only). Matrix and linear solver (bdf_linear_solver.h): dense LU
// (SUNMATRIX_DENSE, SUNLINSOL_DENSE) below BdfLinearSolver::kSparseFromSize unknowns or
// without a symbolic Jacobian; from there, CSC (SUNMATRIX_SPARSE on the pattern ∪ diagonal ∪
// M's pattern) with KLU (SuiteSparse), whose symbolic analysis is done once per pattern.
//
// SUNDIALS options set, and why (everything else keeps SUNDIALS' defaults):
//   CV_BDF, maximum order 5 (CVodeSetMaxOrd / IDASetMaxOrd): BDF is zero-stable up to 6 and
//     A(α)-stable up to 5 only (α = 51.8° at order 5); 5 is SUNDIALS' own default for BDF.
//   rtol, atol — StepperOptions::rtol and ::atol, or ::atol_per_component as an N_Vector
//     (CVodeSStolerances / CVodeSVtolerances, IDA likewise). SUNDIALS' weights use |x| at
//     the step's start, tether's WrmsNorm max(|x|, |x_new|): the same tolerance means nearly
//     the same accuracy, not bitwise the same norm.
//   Initial step (CVodeSetInitStep / IDASetInitStep) after every (re)start: StepperOptions::
//     step, for CVODE at most cvHin's estimate (StartingStep); 0 lets SUNDIALS estimate it
//     (CVODE's cvHin, IDA's 0.001·|t_stop − t| limited by ‖x'‖).
//   Maximum step — StepperOptions::max_step (0 = unbounded, as for SUNDIALS).
//   Minimum step — MinStep(options, t) = min_step_relative·max(1, |t|), set before every
//     Step, so that "give up" means the same as for the other adaptive methods.
//   Failures per step — StepperOptions::max_rejections for error-test failures
//     (CVodeSetMaxErrTestFails, default 7 in SUNDIALS), Newton convergence failures
//     (CVodeSetMaxConvFails, default 10) and projection failures (CVodeSetMaxNumProjFails,
//     default 10): tether's convention is to shrink until the minimum step, not to give up
//     after a fixed count (from a step's third failure on SUNDIALS shrinks h by ≥ 4 each
//     time, so 60 failures pass any floor).
//   Steps per call: CV_ONE_STEP / IDA_ONE_STEP mode takes exactly one internal step per
//     Step, so SUNDIALS' mxstep (500) never binds; the caller's step limit counts Steps.
//   Stop time t + h (CVodeSetStopTime / IDASetStopTime) before every call: SUNDIALS
//     otherwise steps past the output time and interpolates back; with it, the last step is
//     shortened to end exactly at t + h (SUNDIALS 6.4 resets tn to tstop within 100 ulp and
//     deactivates the stop time after reaching it, so it is set anew each call).
//   Newton iteration limit, Jacobian reuse and step/order controller: SUNDIALS' defaults
//     (CVODE: 3 Newton iterations per attempt, convergence coefficient 0.1, Jacobian
//     re-evaluated every 51 steps or after a convergence failure with a stale one, Newton
//     matrix re-formed when γ changed by > 30 % or every 20 steps; growth ≤ 10 per step, 10⁴
//     on the first; IDA: 4 iterations, coefficient 0.33, growth ≤ 2). They are tuned
//     together with the BDF error constants; StepperOptions::safety, min_factor and
//     max_factor configure the explicit pairs' controller and are not used here.
//   IDA's linear solution scaling off (IDASetLinearSolutionScaling): by default IDA scales
//     each Newton correction by 2/(1 + c_j/c_j,old) to make up for a Newton matrix formed
//     with an older c_j, so an iterate satisfies a linear algebraic equation (Robertson's
//     conservation law) only to the Newton tolerance; unscaled, to rounding. Measured: the
//     same steps on Robertson, −3 … +15 % Newton iterations on the pendulum and a stiff chain.
//   Error and warning messages go to a handler (CVodeSetErrHandlerFn) that keeps the last
//     error for StepResult::message instead of printing to stderr.
//
// Step(system, t, x, h, x_new): one internal step of SUNDIALS, ending at t + h_taken ≤ t + h.
//   - Continuation: if (t, x) is where the previous accepted Step ended — x bitwise equal to
//     the returned x_new, t equal to its end up to 2 ulp (the caller may compute t + h_taken
//     or land on an output time; both round to the same end) — the integrator continues with
//     its history (order, step, Jacobian). Otherwise (the caller moved the state, retakes a
//     step from an earlier t, or this is the first Step after Resize) it re-initializes at
//     (t, x) (CVodeReInit / IDAReInit): order 1, the initial step of StepperOptions::step,
//     history lost. The explicit pairs make the same bitwise test for their FSAL stage.
//   - Projection: if system.has_projection(), CVODE calls OdeSystem::Project on every step
//     inside the step (CVodeSetProjFn: after the Newton solve, before the error test; the
//     error estimate is projected too and the Nordsieck history corrected, so the order is
//     kept) — x_new lies on the invariants and projects_internally() is true, so the caller
//     must not project x_new again. CVODE's own projection tolerance (epsProj) is not
//     passed: the system projects to its own tolerance. IDA has no projection hook: the
//     stepper projects IDA's result into x_new after the step and continues the next Step
//     from IDA's own (unprojected) history as long as the projection moved the state by at
//     most kIdaResumeDistance local error tolerances (SUNDIALS' error norm); beyond that it
//     re-initializes from the projected state (order 1). A failed projection
//     (Project returns false) makes CVODE retry with h/4; the IDA path retries likewise from
//     the step's start.
//   - Failures: OdeSystem::Evaluate, Jacobian or Project returning false, or F or ∂F/∂x
//     non-finite, are recoverable failures for SUNDIALS (return value +1): it retries with a
//     smaller step (×0.25). When SUNDIALS gives up (repeated failures down to the minimum
//     step, or at the very first evaluation) the Step ends with kNonFinite or kRhsFailed
//     after the callback that failed, kStepSizeUnderflow for error-test and Newton failures
//     at the minimum step (CV_ERR_FAILURE, CV_CONV_FAILURE, CV_TOO_MUCH_ACC, CV_TOO_CLOSE and
//     their IDA twins), kUnsupported for a system or options bdf cannot integrate
//     (error_control = false: bdf has no fixed-step mode; atol_per_component of another
//     size; an M as above). StepResult::message names the integrator, t, SUNDIALS' flag and
//     message and the failing callback.
//   - Statistics are the differences of SUNDIALS' counters over the call: rejections =
//     error-test + Newton-convergence + projection failures (and the IDA path's retaken
//     steps after a failed projection), evaluations = F calls (including
//     the difference-quotient Jacobian's and IDA's start), jacobians, factorizations (Newton
//     matrix set-ups, each one LU factorization), newton_iterations. error_norm is the WRMS
//     norm of SUNDIALS' estimated local error vector with its weights; h_next is SUNDIALS'
//     step for the next attempt.
//
// Interpolate(t_out): over the last accepted step, SUNDIALS' interpolant (CVodeGetDky /
// IDAGetDky: the Nordsieck polynomial of degree q, or IDA's divided-difference polynomial
// of degree k), order q of the step; the step's two ends are returned exactly. On the IDA
// path with projection, interior points are IDA's unprojected interpolant (the caller
// projects samples as for every method).
//
// Clone(): SUNDIALS' memory cannot be copied. The clone keeps the last step's interpolant as
// a Taylor polynomial (its derivatives at the step's end, from CVodeGetDky / IDAGetDky), so
// Interpolate over that step works at once, and creates its own integrator at its first
// Step, which re-initializes there: the fork's first step starts at order 1 with the initial
// step of StepperOptions::step, so it differs from the original's next step.
//
// Allocation: Resize allocates the stepper's own arrays. The first Step after construction
// (or after the system's structure — sizes, patterns, M, projection — changed) creates the
// SUNDIALS integrator, its vectors, matrices and linear solver (SUNDIALS' own first-call
// set-up). After that, Step and Interpolate allocate nothing except on failure (the message)
// and inside SUNDIALS (KLU's first factorization after a new pattern).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "integrate/bdf_engine.h"
#include "tether/integrate/stepper.h"

namespace tether::integrate {


class Bdf final : public Stepper {
 public:
  // IDA path with projection: the largest distance ‖x_projected − x_IDA‖ (SUNDIALS' WRMS
  // error norm, 1 = one local error tolerance) from which IDA continues its own history;
  // beyond it, IDA restarts from the projected state. A trade-off measured on the pendulum
  // as an index-1 DAE (tests/core/integrate/stiff_problems.h, 20 s, rtol = atol = 1e-6;
  // the run without projection: 1292 steps, end error 1.7e-3): 1 → 3897 steps (restarts
  // nearly every step), error 4.0e-5; 10 → 1694 steps, 2.2e-6; 100 → no restart, 1292
  // steps, 1.7e-3. At 1e-8 and 1e-4 likewise 10 is the most accurate of the three.
  static constexpr double kIdaResumeDistance = 10.0;

  explicit Bdf(const StepperOptions& options);
  ~Bdf() override;
  Bdf(const Bdf&) = delete;
  Bdf& operator=(const Bdf&) = delete;

  [[nodiscard]] std::string_view name() const override { return "bdf"; }
  [[nodiscard]] int order() const override { return 5; }  // the maximum order
  [[nodiscard]] bool adaptive() const override { return true; }
  [[nodiscard]] bool implicit() const override { return true; }
  [[nodiscard]] bool supports_fixed_step() const override { return false; }
  [[nodiscard]] bool projects_internally() const override { return true; }
  [[nodiscard]] std::unique_ptr<Stepper> Clone() const override;
  [[nodiscard]] const StepperOptions& options() const override { return options_; }

  void Resize(std::size_t n) override;
  StepResult Step(OdeSystem& system, double t, std::span<const double> x, double h,
                  std::span<double> x_new) override;
  void Interpolate(double t_out, std::span<double> x_out) const override;

 private:
  // The interpolant of the last accepted step as a Taylor polynomial about its end, for a
  // clone whose integrator has not stepped yet: x(t) = Σ_k d_k (t − center)^k / k!.
  struct Taylor {
    double center = 0.0;
    int degree = -1;                  // −1: none
    std::vector<double> derivatives;  // d_0 … d_degree, n each
  };

  bool EnsureEngine(OdeSystem& system, std::string* why);
  // The step of a system with no components (a model whose variables are all algebraic and
  // solved at each t): SUNDIALS takes no vectors of length 0, and there is nothing to advance.
  StepResult EmptyStep(double t, double h);
  [[nodiscard]] bool Continues(double t, std::span<const double> x) const;
  // The first step after a (re)start from (t, x) toward t + h: 0 for IDA (the engine then
  // uses StepperOptions::step); for CVODE min(step, h, max_step, cvHin's estimate) — BDF's
  // first step has no history, and one that ends where F(t, x) equals its start value passes
  // the error test however wrong it is (x' = sin²(2000πt) over a first step of 1e-3 gave
  // x = 0 instead of 5e-4). cvHin (SUNDIALS, cvode.c): the order-1 local error ½h²‖x''‖ meets
  // the tolerance at h = √(2/‖x''‖), taken with the bias ½; ‖x''‖ from one difference
  // quotient of F along (1, F) over Hairer's trial step. The same from the same state after
  // any history: a restart is a true restart.
  double StartingStep(OdeSystem& system, double t, std::span<const double> x, double h,
                      int* evaluations);
  // Ends the Step: no accepted step, the engine's history gone.
  StepResult Fail(StepResult result, StepStatus status, std::string message);
  // Ends the Step after the SUNDIALS flag `flag` (of a step from t), with its status and
  // message.
  StepResult Failure(StepResult result, int flag, double t);
  [[nodiscard]] Taylor LastStepAsTaylor() const;

  StepperOptions options_;
  std::size_t n_ = 0;
  std::unique_ptr<BdfEngine> engine_;
  bool engine_live_ = false;        // the engine holds the history of the last accepted step
  std::vector<double> x_start_;     // state at the start of the last accepted step
  std::vector<double> x_end_;       // state returned at its end
  std::vector<double> start_work_;  // StartingStep's F(t, x), trial state and F there (3n)
  double t_start_ = 0.0;
  double t_end_ = 0.0;
  bool has_step_ = false;           // an accepted step exists (since Resize)
  BdfCounters counters_;            // the engine's counters after the last Step
  Taylor taylor_;                   // a clone's copy of the original's last step
};

}  // namespace tether::integrate
