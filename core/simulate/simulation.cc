// The simulation loop: stepper → projector → sampler (DESIGN.md §1).
//
// State between Advance calls: the last accepted, projected step (t_, z_) and the stepper's
// dense output over [t_prev_, t_]; the last emitted sample time. Output times in (last emitted,
// t_] are interpolated and then projected, so every emitted sample satisfies the invariants.
// Advance stops before stepping once its sample budget is spent, so the sequence of
// computations, and therefore every bit of every sample, is the same however the run is split
// into Advance calls.
#include "tether/simulate/simulation.h"

#include <time.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string_view>
#include <utility>

#include "simulate/number_text.h"
#include "simulate/inequality_run.h"
#include "simulate/initialization.h"
#include "simulate/setup_validation.h"
#include "simulate/termination_mapping.h"
#include "tether/integrate/stepper.h"
#include "tether/project/projector.h"
#include "tether/reduce/build_cache.h"
#include "tether/reduce/reduced_model.h"

namespace tether::simulate {
namespace {

// Relative distance under which a step end is taken to be an output point or t_end (fixed-
// step runs): far above the rounding of t + h (≈1e-16 relative), far below any step's error.
constexpr double kTimeSnap = 1e-9;
// An adaptive step that ends this close (relative) to its landing point lands on it: radau5
// keeps its last h to reuse its factors, and that h can be an ulp shorter than the distance
// to the next grid point, which would leave a step below the floor.
constexpr double kLandingRounding = 8.0 * std::numeric_limits<double>::epsilon();

// A switch located closer than this (relative to max(1, |t|)) after a step's start is reached
// by interpolation instead of a retaken step: 100 times the stepper's smallest step.
constexpr double kShortestCut = 1e-12;

// The step limit's pace check: every kPaceWindow accepted steps, t's advance over them tells
// how many steps reaching t_end would take at that pace. Beyond what Options::max_steps still
// allows, the run ends at once with kStepLimit instead of after max_steps: a right-hand side
// that switches with the state (x' = −sign(x)) makes an adaptive step chatter at 1e-11 to 1e-8
// s, and an explicit method on a stiff problem creeps at its stability limit, both for
// minutes before the default limit of 1e8 steps ends them. A pace that would quicken after
// the window (a fast transient longer than 2e5 steps, then slow dynamics) is misjudged: the
// message says to raise max_steps, which moves the limit the pace is measured against.
// Only finite horizons are checked.
constexpr std::uint64_t kPaceWindow = 200'000;

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Options::atol for every entry of z, replaced where Options::atol_by_variable names z's
// variable (z is the leading part of Model::states(); algebraic variables solved inside the
// stages are not in it). Empty when no variable has its own tolerance.
std::vector<double> AtolPerComponent(const Options& o, const reduce::ReducedModel& reduced) {
  std::vector<double> atol;
  if (o.atol_by_variable.empty()) return atol;
  const std::vector<const model::Variable*> states = reduced.model().states();
  for (std::size_t i = 0; i < reduced.ode_size(); ++i) {
    const auto it = o.atol_by_variable.find(states[i]->name);
    atol.push_back(it == o.atol_by_variable.end() ? o.atol : it->second);
  }
  return atol;
}

project::ProjectorOptions ToProjectorOptions(const Options& o, const reduce::ReducedModel& reduced) {
  project::ProjectorOptions p;
  p.metric = o.metric;
  p.newton = o.newton;
  p.tolerance = o.projection_tolerance;
  p.max_iterations = o.max_newton_iterations;
  p.weight_rtol = o.rtol;
  p.weight_atol = AtolPerComponent(o, reduced);
  if (p.weight_atol.empty()) p.weight_atol = {o.atol};
  return p;
}

// The stepper's options for a state z of the reduced model.
integrate::StepperOptions ToStepperOptions(const Options& o, const reduce::ReducedModel& reduced) {
  integrate::StepperOptions s;
  s.step = o.step;
  s.rtol = o.rtol;
  s.atol = o.atol;
  s.max_step = o.max_step;
  s.error_control = o.error_control;
  s.min_step_relative = MinStepRelative(o);
  s.atol_per_component = AtolPerComponent(o, reduced);
  return s;
}

// The reduced model seen as the stepper's ODE: M z' = F(t, z) with F = Rhs and M = I, or
// M = diag(I, 0) in algebraic mode kStage (reduced_model.h); ∂F/∂z from the compiled
// Jacobian when the model was reduced with one, and the invariants' projection for steppers
// that project inside their steps (bdf: a multistep history that stays on the manifold).
class ReducedOde : public integrate::OdeSystem {
 public:
  ReducedOde(reduce::ReducedModel* model, std::span<const integrate::MatrixEntry> pattern,
             std::span<const integrate::MatrixEntry> mass_pattern,
             std::span<const double> mass_values, project::Projector* projector)
      : model_(model),
        pattern_(pattern),
        mass_pattern_(mass_pattern),
        mass_values_(mass_values),
        projector_(projector) {}
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
  [[nodiscard]] std::span<const std::uint32_t> derivative_of() const override {
    return model_->stage_derivative_of();
  }
  // kStage projects too: its algebraic part is re-solved at the projected x, as every step
  // end is (Impl::ProjectState), so a method that projects inside its steps returns a step
  // end the caller leaves bitwise as it is.
  [[nodiscard]] bool has_projection() const override {
    return projector_ != nullptr &&
           (model_->num_invariants() > 0 || model_->stage_differential_size() < size());
  }
  // x onto the invariants by the session's projector (and kStage's y re-solved); the error
  // estimate onto the tangent space at the projected x in the Euclidean metric:
  // e ← e − H_zᵀ(H_z H_zᵀ)⁻¹ H_z e.
  bool Project(double t, std::span<double> x, std::span<double> error) override {
    project::ProjectionReport report;
    if (!projector_->Project(*model_, t, x, &report)) return false;
    if (!model_->SolveAlgebraicPart(t, x)) return false;
    if (error.empty() || model_->num_invariants() == 0) return true;
    const std::size_t p = model_->num_invariants();
    const std::size_t n = x.size();
    std::vector<double> h(p);
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> h_z(
        static_cast<Eigen::Index>(p), static_cast<Eigen::Index>(n));
    if (!model_->Invariants(t, x, h, std::span<double>(h_z.data(), p * n))) return false;
    Eigen::Map<Eigen::VectorXd> e(error.data(), static_cast<Eigen::Index>(n));
    const Eigen::MatrixXd gram = h_z * h_z.transpose();
    const Eigen::VectorXd coefficients = gram.ldlt().solve(h_z * e);
    e -= h_z.transpose() * coefficients;
    return e.allFinite();
  }

 private:
  reduce::ReducedModel* model_;
  std::span<const integrate::MatrixEntry> pattern_;
  std::span<const integrate::MatrixEntry> mass_pattern_;
  std::span<const double> mass_values_;
  project::Projector* projector_;
};

// How the reduced model obtains y (simulation.h, AlgebraicMode): kSolve becomes kStage for an
// implicit method on a model with algebraic variables, which the method then solves inside its
// stage system. Not for a model without differential variables (M would be 0: nothing to integrate,
// y is solved at each t; IDA's steps shrank to 1e-10 on x = sin t, y = x²), nor for "auto" (`kind`
// is then dp5, and its explicit half needs M = I) nor with inequalities (their sliding dynamics act
// on x alone, inequality_run.h). Nor for bdf on a model with invariants: bdf takes a mass matrix
// through IDA, which has no projection hook, and restarts at order 1 whenever the projection after
// its step moves the state by more than Bdf::kIdaResumeDistance (bdf.h), as the drift off g (index
// 2) or off H (implicit, index ≥ 2) does at most steps; CVODE with its projection hook and the
// inner Newton is then far cheaper. Measured at rtol 1e-8: the index-2 spiral (catalog
// index2_spiral) to t = 3 took 20999 steps through IDA and 171 through CVODE (3.9 and 4.9 digits);
// the implicit pendulum to t = 10, 3086 and 895 steps.
reduce::AlgebraicMode ReduceMode(const model::Model& model, const Options& o,
                                 const integrate::Stepper& kind) {
  if (o.algebraic == AlgebraicMode::kOde) return reduce::AlgebraicMode::kOde;
  const reduce::Formulation& formulation = reduce::FormulationOf(model.form);
  if (kind.implicit() && formulation.HasStageUnknowns(model) && !model.differential.empty() &&
      model.inequalities.empty() &&
      !(kind.projects_internally() && formulation.HasInvariantsBesideStage(model))) {
    return reduce::AlgebraicMode::kStage;
  }
  return reduce::AlgebraicMode::kSolve;
}

// The reduced model in the algebraic mode one stepper needs (ReduceMode), with what the
// stepper reads from it and the projector sized for its z.
struct ReducedSystem {
  std::unique_ptr<reduce::ReducedModel> reduced;
  std::vector<integrate::MatrixEntry> jacobian_pattern;  // the reduced model's, for the stepper
  // M = diag(I, 0) in algebraic mode kStage: the differential diagonal, each 1; empty (M = I)
  // otherwise.
  std::vector<integrate::MatrixEntry> mass_pattern;
  std::vector<double> mass_values;
  std::unique_ptr<project::Projector> projector;
};

// The reduced system of `setup` for steppers of `kind`'s algebraic mode, with the Jacobian if
// `jacobian`; null with the reduction's error in `why`.
std::unique_ptr<ReducedSystem> ReduceFor(const Setup& setup, const integrate::Stepper& kind,
                                         bool jacobian, std::string* why) {
  const Options& o = setup.options;
  reduce::ReduceOptions reduce_options;
  reduce_options.algebraic = ReduceMode(*setup.model, o, kind);
  reduce_options.newton_tolerance = o.projection_tolerance;
  reduce_options.max_newton_iterations = std::max(o.max_newton_iterations, 20);
  reduce_options.jacobian = jacobian;
  reduce::ReduceResult reduced = reduce::BuildCache::Shared().Build(setup.model, reduce_options);
  if (!reduced.reduced) {
    *why = reduced.error;
    return nullptr;
  }
  auto system = std::make_unique<ReducedSystem>();
  system->reduced = std::move(reduced.reduced);
  for (const auto& e : system->reduced->jacobian_pattern()) {
    system->jacobian_pattern.push_back({e.row, e.col});
  }
  for (std::uint32_t i = 0; i < system->reduced->stage_differential_size(); ++i) {
    system->mass_pattern.push_back({i, i});
    system->mass_values.push_back(1.0);
  }
  system->projector =
      project::MakeProjector(o.projection, ToProjectorOptions(o, *system->reduced));
  system->projector->Resize(*system->reduced);
  if (o.projection == Projection::kBaumgarte) {
    system->reduced->SetBaumgarte(o.baumgarte_alpha, o.baumgarte_beta);
  }
  return system;
}

}  // namespace

// Method "auto" (simulation.h): its explicit and its implicit method; radau5 steps between
// checks for a return to dp5, and the bound on h·‖∂F/∂z‖∞ below which it returns (half dp5's
// stability boundary).
constexpr std::string_view kAutoExplicit = "dp5";
constexpr std::string_view kAutoImplicit = "radau5";
constexpr std::uint64_t kAutoCheckInterval = 10;
constexpr double kAutoReturnBound = 0.5 * 3.25;

struct Simulation::Impl {
  Setup setup;
  std::map<std::string, double> parameters;
  // The running stepper's reduced system (ReducedSystem's members, by name: they are read
  // everywhere).
  std::unique_ptr<reduce::ReducedModel> reduced;
  std::unique_ptr<integrate::Stepper> stepper;
  std::unique_ptr<project::Projector> projector;
  std::unique_ptr<InequalityRun> inequalities;  // null without model inequalities
  std::vector<integrate::MatrixEntry> jacobian_pattern;
  std::vector<integrate::MatrixEntry> mass_pattern;
  std::vector<double> mass_values;
  // Method "auto" on a model whose algebraic part is large and sparse (the kSolve system
  // factors c_y by SparseAlgebraic): dp5 takes y from an inner Newton per stage (algebraic
  // mode kSolve, z = x), radau5 takes it into its stage system (kStage, z = (x, y)) as a run
  // of radau5 alone does. In kSolve, ∂F/∂x = f_x − f_y c_y⁻¹ c_x is dense, and radau5 would
  // factor dense complex matrices of x's size where kStage's stay sparse (bench/auto_method: on
  // an RC ladder of 256 stages auto took 52 times radau5's CPU in kSolve, 2 times with this).
  // The reduced system of the method not running, exchanged with the running one at each
  // switch (SwapSystem); null otherwise. Not for small algebraic parts, where kSolve's dense
  // system costs no more: radau5 in kStage also controls y's local error, and where y
  // amplifies x's error (y = λ (x − x*), λ = 1e5) its steps fall below dp5's stable step, and
  // the two methods would hand over to each other every few steps.
  std::unique_ptr<ReducedSystem> idle;
  std::vector<Column> columns;
  // Columns after the states that stream the reduced model's first auxiliary values (λ).
  std::size_t multiplier_columns = 0;
  InitializationReport initialization;
  Status status;
  Statistics statistics;

  double t = 0.0;       // time of z
  double t_prev = 0.0;  // start of the last step (dense output valid on [t_prev, t])
  bool has_step = false;
  std::vector<double> z, z_new, z_sample, zdot, state;
  std::vector<double> values, last_values;

  double grid_origin = 0.0;
  std::uint64_t grid_k = 1;  // next grid point grid_origin + grid_k·dt
  double last_emitted = 0.0;
  bool emitted_initial = false;
  std::uint64_t next_index = 0;
  project::ProjectionReport report;
  // Switches located at t, emitted with the sample at t (a sample of its own off the grid).
  std::vector<SwitchEvent> pending_events;
  bool restart_stepper = false;  // the active set changed: the stepper's last stage is stale
  Status deferred;               // a failure at t reported once the samples up to t are out
  std::vector<char> output_warned;  // per output: its non-finite value was reported
  std::vector<Warning> warnings;    // of the sample being emitted
  // Notices since the last sample, streamed with the next one.
  std::vector<RunNotice> pending_notices;
  bool stiffness_reported = false;
  // Method "auto": the stepper to change to before the next step (after the samples of the
  // last step are out, since they need its dense output), and radau5 steps since the switch.
  std::string switch_to;
  std::uint64_t implicit_steps = 0;
  std::vector<double> jacobian_values;  // ‖∂F/∂z‖∞ of auto's check
  std::vector<double> z_explicit;       // z of the idle kSolve system, for that check
  // The pace check's window (kPaceWindow): t and the step count where it began.
  double pace_window_t = 0.0;
  std::uint64_t pace_window_steps = 0;

  Impl() = default;
  Impl(const Impl& o)
      : setup(o.setup),
        parameters(o.parameters),
        reduced(std::make_unique<reduce::ReducedModel>(*o.reduced)),
        stepper(o.stepper->Clone()),
        projector(o.projector->Clone()),
        inequalities(o.inequalities ? std::make_unique<InequalityRun>(*o.inequalities) : nullptr),
        jacobian_pattern(o.jacobian_pattern),
        mass_pattern(o.mass_pattern),
        mass_values(o.mass_values),
        columns(o.columns),
        multiplier_columns(o.multiplier_columns),
        initialization(o.initialization),
        status(o.status),
        statistics(o.statistics),
        t(o.t),
        t_prev(o.t_prev),
        has_step(o.has_step),
        z(o.z),
        z_new(o.z_new),
        z_sample(o.z_sample),
        zdot(o.zdot),
        state(o.state),
        values(o.values),
        last_values(o.last_values),
        grid_origin(o.grid_origin),
        grid_k(o.grid_k),
        last_emitted(o.last_emitted),
        emitted_initial(o.emitted_initial),
        next_index(o.next_index),
        report(o.report),
        pending_events(o.pending_events),
        restart_stepper(o.restart_stepper),
        deferred(o.deferred),
        output_warned(o.output_warned),
        pending_notices(o.pending_notices),
        stiffness_reported(o.stiffness_reported),
        switch_to(o.switch_to),
        implicit_steps(o.implicit_steps),
        jacobian_values(o.jacobian_values),
        z_explicit(o.z_explicit),
        pace_window_t(o.pace_window_t),
        pace_window_steps(o.pace_window_steps) {
    if (o.idle) {
      idle = std::make_unique<ReducedSystem>(ReducedSystem{
          std::make_unique<reduce::ReducedModel>(*o.idle->reduced), o.idle->jacobian_pattern,
          o.idle->mass_pattern, o.idle->mass_values, o.idle->projector->Clone()});
    }
  }

  [[nodiscard]] const Options& options() const { return setup.options; }

  // Ends the run. Notices wait for the next sample, which a failed run never emits: the
  // message carries them instead (dp5 that detected stiffness, then met the step limit).
  bool Fail(Termination reason, std::string message) {
    status.reason = reason;
    status.t = t;
    status.message = std::move(message);
    for (const RunNotice& notice : pending_notices) {
      const bool sentence = !status.message.empty() && status.message.back() == '.';
      status.message += (sentence ? " Noticed before: " : ". Noticed before: ") + notice.message;
    }
    pending_notices.clear();
    return false;
  }

  void BuildColumns() {
    columns = DefaultColumns(reduced->model());
    multiplier_columns = static_cast<std::size_t>(
        std::count_if(columns.begin(), columns.end(),
                      [](const Column& c) { return c.kind == ColumnKind::kMultiplier; }));
  }

  ReducedOde Ode() {
    return ReducedOde(reduced.get(), jacobian_pattern, mass_pattern, mass_values,
                      stepper->projects_internally() ? projector.get() : nullptr);
  }

  // z onto the invariants, and in algebraic mode kStage its y re-solved from c = 0 at the
  // projected x (reduced_model.h); false after setting the failure status.
  bool ProjectState(double ts, std::span<double> zs) {
    ++statistics.projections;
    if (!projector->Project(*reduced, ts, zs, &report)) {
      return Fail(FromProjection(report.status), report.message);
    }
    statistics.projection_iterations += static_cast<std::uint64_t>(report.iterations);
    if (!reduced->SolveAlgebraicPart(ts, zs)) {
      return Fail(FromEval(reduced->failure().status), reduced->failure().message);
    }
    return true;
  }

  void Allocate() {
    const std::size_t n = reduced->ode_size();
    z.assign(n, 0.0);
    z_new.assign(n, 0.0);
    z_sample.assign(n, 0.0);
    zdot.assign(n, 0.0);
    state.assign(reduced->num_states(), 0.0);
    values.assign(columns.size(), 0.0);
    stepper->Resize(n);
    projector->Resize(*reduced);
  }

  // A failure of the inequality part; kRunning there defers to the reduced model's diagnosis.
  bool FailInequality() {
    const Status& f = inequalities->failure();
    if (f.reason == Termination::kRunning) {
      return Fail(FromEval(reduced->failure().status), reduced->failure().message);
    }
    return Fail(f.reason, f.message);
  }

  // Fills `values` at (ts, zs) and emits it; a sample at the step end (ts == t) carries the
  // switches located there.
  bool Emit(double ts, std::span<const double> zs,
            const std::function<void(const Sample&)>& sink) {
    ReducedOde ode = Ode();
    if (!ode.Evaluate(ts, zs, zdot)) {  // λ or y at the sample
      return Fail(FromEval(reduced->failure().status), reduced->failure().message);
    }
    ++statistics.rhs_evaluations;
    const std::size_t ns = reduced->num_states();
    reduced->FullState(zs, std::span<double>(values).first(ns));
    std::size_t k = ns;
    for (std::size_t i = 0; i < multiplier_columns; ++i) values[k++] = reduced->auxiliary()[i];
    double residual_inequality = 0.0;
    const bool at_step_end = ts == t;
    if (inequalities) {
      const std::size_t m = inequalities->size();
      if (!inequalities->SampleValues(ode, ts, zs, at_step_end,
                                      std::span<double>(values).subspan(k, m),
                                      std::span<double>(values).subspan(k + m, m),
                                      &residual_inequality)) {
        return FailInequality();
      }
      k += 2 * m;
      CountSlidingEvaluations();
    }
    reduced->Outputs(ts, std::span<const double>(values).first(ns),
                     std::span<double>(values).subspan(k));
    WarnNonFiniteOutputs(ts, std::span<const double>(values).subspan(k));
    Sample sample;
    sample.index = next_index;
    sample.t = ts;
    sample.values = values;
    sample.residual_inequality = residual_inequality;
    if (at_step_end) sample.events = pending_events;
    sample.warnings = warnings;
    sample.notices = pending_notices;
    if (!reduced->Residuals(ts, zs, &sample.residual_position, &sample.residual_velocity)) {
      return Fail(FromEval(reduced->failure().status), reduced->failure().message);
    }
    statistics.max_residual_position =
        std::max(statistics.max_residual_position, sample.residual_position);
    statistics.max_residual_velocity =
        std::max(statistics.max_residual_velocity, sample.residual_velocity);
    statistics.max_residual_inequality =
        std::max(statistics.max_residual_inequality, residual_inequality);
    ++statistics.samples;
    ++next_index;
    last_emitted = ts;
    last_values = values;
    sink(sample);
    if (at_step_end) pending_events.clear();
    pending_notices.clear();
    return true;
  }

  // An output is not part of the state, so a NaN or ±inf in it does not end the run: it is
  // reported once per output, at the first sample that has it, and counted.
  void WarnNonFiniteOutputs(double ts, std::span<const double> outputs) {
    warnings.clear();
    const std::vector<model::Output>& specs = reduced->model().outputs;
    output_warned.resize(outputs.size(), 0);
    for (std::size_t i = 0; i < outputs.size() && i < specs.size(); ++i) {
      if (std::isfinite(outputs[i]) || output_warned[i]) continue;
      output_warned[i] = 1;
      ++statistics.non_finite_outputs;
      const std::string value = std::isnan(outputs[i]) ? "NaN" : outputs[i] > 0 ? "inf" : "-inf";
      warnings.push_back({"outputs." + specs[i].name,
                          "output '" + specs[i].name + "' became " + value + " at t = " + Num(ts)});
    }
  }

  // The next output time if it lies within the current step.
  bool Pending(double* next) const {
    const double t_end = options().t_end;
    const double dt = options().output_interval;
    double te = t;
    if (dt > 0.0) {
      te = grid_origin + static_cast<double>(grid_k) * dt;
      if (te >= t_end - kTimeSnap * dt) te = t_end;
    }
    if (te <= t && te > last_emitted) {
      *next = te;
      return true;
    }
    if (!pending_events.empty() && t > last_emitted) {  // the sample of a switch
      *next = t;
      return true;
    }
    return false;
  }

  [[nodiscard]] bool IsGridPoint(double te) const {
    const double dt = options().output_interval;
    return dt > 0.0 && te != options().t_end &&
           te == grid_origin + static_cast<double>(grid_k) * dt;
  }

  bool EmitPending(double te, const std::function<void(const Sample&)>& sink) {
    if (IsGridPoint(te)) ++grid_k;
    if (te == t) return Emit(te, z, sink);
    stepper->Interpolate(te, z_sample);
    if (!ProjectState(te, z_sample)) return false;
    if (inequalities && !inequalities->ProjectSample(te, z_sample)) return FailInequality();
    return Emit(te, z_sample, sink);
  }

  // The step to try: fixed-step runs snap onto t_end and onto a grid point within kTimeSnap·h;
  // adaptive ones end at t_end, and at the next grid point when the stepper's dense output
  // does not hold the tolerance (Stepper::samples_at_step_ends).
  double ProposedStep(bool* lands_on, double* landing) const {
    const Options& o = options();
    const double remaining = o.t_end - t;
    *lands_on = false;
    const bool fixed = !stepper->adaptive() || !o.error_control;
    if (!fixed) {
      double h = std::numeric_limits<double>::max();
      if (std::isfinite(remaining)) {
        *lands_on = true;
        *landing = o.t_end;
        h = remaining;
      }
      if (stepper->samples_at_step_ends() && o.output_interval > 0.0) {
        const double grid = grid_origin + static_cast<double>(grid_k) * o.output_interval;
        // Within kTimeSnap·dt of t_end the grid point is t_end itself (Pending).
        if (grid > t && grid < o.t_end - kTimeSnap * o.output_interval) {
          *lands_on = true;
          *landing = grid;
          h = grid - t;
        }
      }
      return h;
    }
    double h = o.step;
    if (remaining <= h * (1.0 + kTimeSnap)) {
      *lands_on = true;
      *landing = o.t_end;
      return remaining;
    }
    if (o.output_interval > 0.0) {
      const double grid = grid_origin + static_cast<double>(grid_k) * o.output_interval;
      if (std::abs(t + h - grid) <= kTimeSnap * h) {
        *lands_on = true;
        *landing = grid;
        h = grid - t;
      }
    }
    return h;
  }

  // One attempt of the stepper from (t, z) into z_new: the sliding dynamics of the current
  // active set when switches are detected, else the reduced ODE itself.
  integrate::StepResult StepOnce(double h) {
    ReducedOde free = Ode();
    integrate::StepResult r;
    if (inequalities && inequalities->detecting()) {
      SlidingOde ode = inequalities->Ode(free);
      r = stepper->Step(ode, t, z, h, z_new);  // counted by CountSlidingEvaluations
    } else {
      r = stepper->Step(free, t, z, h, z_new);
      statistics.rhs_evaluations += static_cast<std::uint64_t>(r.evaluations);
    }
    statistics.rejected_steps += static_cast<std::uint64_t>(r.rejections);
    statistics.jacobian_evaluations += static_cast<std::uint64_t>(r.jacobians);
    statistics.lu_factorizations += static_cast<std::uint64_t>(r.factorizations);
    statistics.newton_iterations += static_cast<std::uint64_t>(r.newton_iterations);
    return r;
  }

  // The reduced model's own diagnosis of a failed evaluation, if it has one.
  [[nodiscard]] std::string EvaluationCause() const {
    if (inequalities && !inequalities->sliding_failure().empty()) {
      return inequalities->sliding_failure();
    }
    return reduced->failure().message;
  }

  bool Accepted(const integrate::StepResult& r) {
    const bool fixed = !stepper->adaptive() || !options().error_control;
    switch (r.status) {
      case integrate::StepStatus::kAccepted:
        return true;
      case integrate::StepStatus::kStepSizeUnderflow: {
        std::string message = "step size underflow at t = " + Num(t) + " (last step tried " +
                              Num(r.h_failed) + "): ";
        if (fixed && r.failure == integrate::AttemptFailure::kNone) {
          // No error control ran: the step itself is below the floor.
          message += "the fixed step is below the smallest step " +
                     Num(MinStepRelative(options()) * std::max(1.0, std::abs(t))) +
                     " at this t; take a larger step";
        } else if (r.failure == integrate::AttemptFailure::kErrorTooLarge ||
                   r.failure == integrate::AttemptFailure::kNone) {
          message += "the error control needed a step below the minimum";
          message += stepper->implicit() ? "; the solution may be singular here"
                                         : "; the problem may be stiff (try method radau5 or "
                                           "bdf) or singular here";
        } else {
          message += "every smaller step failed too: " +
                     std::string(integrate::Describe(r.failure));
          const std::string cause = EvaluationCause();
          if (!cause.empty() && (r.failure == integrate::AttemptFailure::kRhsFailed ||
                                 r.failure == integrate::AttemptFailure::kNonFinite)) {
            message += " (" + cause + ")";
          }
        }
        if (!r.message.empty()) message += "; " + r.message;
        return Fail(Termination::kStepSizeUnderflow, std::move(message));
      }
      case integrate::StepStatus::kNonFinite:
        return Fail(Termination::kNonFinite,
                    "non-finite state after a step from t = " + Num(t) +
                        "; a parameter or the state makes the right-hand side overflow" +
                        (fixed ? "; a fixed step cannot retry: use an adaptive method "
                                 "(error control on)"
                               : ""));
      case integrate::StepStatus::kUnsupported:
        return Fail(Termination::kSingularConstraints,
                    "method " + std::string(stepper->name()) + " cannot integrate this model: " +
                        r.message);
      case integrate::StepStatus::kNewtonFailed:
        return Fail(Termination::kStepSizeUnderflow,
                    "the stage Newton iteration failed at t = " + Num(t) + " with the fixed step " +
                        Num(r.h_failed) + ": " + std::string(integrate::Describe(r.failure)) +
                        "; a fixed step cannot retry: turn error control on or take a smaller "
                        "step");
      case integrate::StepStatus::kRhsFailed:
        break;
    }
    if (inequalities && !inequalities->sliding_failure().empty()) {
      return Fail(Termination::kSingularConstraints,
                  "step from t = " + Num(t) + ": " + inequalities->sliding_failure());
    }
    std::string message = reduced->failure().message;
    if (fixed) message += "; a fixed step cannot retry: use an adaptive method (error control on)";
    return Fail(FromEval(reduced->failure().status), std::move(message));
  }

  // Switch detection: if a switch lies inside the step just taken to t_new, retakes it to end
  // there. Returns false on failure; *located is the switch the step now ends at.
  bool CutAtSwitch(double* t_new, std::optional<SwitchEvent>* located) {
    ReducedOde free = Ode();
    *located = inequalities->FindSwitch(*stepper, free, t, *t_new);
    if (!*located || !((*located)->t < *t_new)) return true;
    const double h = (*located)->t - t;
    if (h <= kShortestCut * std::max(1.0, std::abs(t))) {
      // Too short to retake (adaptive steppers refuse steps below 1e-14·|t|): over so short a
      // piece the dense output equals the step to within δ·(the step's own error).
      stepper->Interpolate((*located)->t, z_new);
      *t_new = (*located)->t;
      return true;
    }
    const integrate::StepResult r = StepOnce(h);
    if (!Accepted(r)) return false;
    if (r.h_taken == h) {
      *t_new = (*located)->t;
    } else {  // the error control shortened even this step: the switch lies beyond it
      *t_new = t + r.h_taken;
      located->reset();
    }
    return true;
  }

  // Projects the step end z_new onto the invariants and, with inequalities, onto C (or
  // {c_A = 0}), updating the active set.
  bool ProjectStepEnd(double t_new, const std::optional<SwitchEvent>& located) {
    if (!ProjectState(t_new, z_new)) return false;
    if (!inequalities) return true;
    ReducedOde free = Ode();
    bool changed = false;
    const bool ok = inequalities->FinishStep(free, t_new, t_new - t, z_new,
                                             located ? &*located : nullptr, &pending_events,
                                             &changed);
    restart_stepper = restart_stepper || changed;
    statistics.switches = inequalities->switches();
    if (!ok && inequalities->failure().reason == Termination::kChattering) {
      deferred = inequalities->failure();  // the step itself is good: its samples go out first
      return true;
    }
    return ok || FailInequality();
  }

  void CountSlidingEvaluations() {
    if (inequalities) statistics.rhs_evaluations += inequalities->TakeEvaluations();
  }

  bool TakeStep() {
    const bool ok = TryStep();
    CountSlidingEvaluations();
    return ok;
  }

  bool TryStep() {
    if (deferred.ended()) {
      status = deferred;
      return false;
    }
    if (statistics.steps >= options().max_steps) {
      return Fail(Termination::kStepLimit, "step limit of " + std::to_string(options().max_steps) +
                                               " accepted steps reached at t = " + Num(t));
    }
    if (statistics.steps - pace_window_steps >= kPaceWindow && !KeepsPace()) return false;
    if (!switch_to.empty() && !SwitchStepper()) return false;
    if (restart_stepper) {
      stepper->Resize(z.size());
      restart_stepper = false;
    }
    bool lands_on = false;
    double landing = 0.0;
    const double h = ProposedStep(&lands_on, &landing);
    const integrate::StepResult r = StepOnce(h);
    if (!Accepted(r)) return false;
    double t_new = t + r.h_taken;
    const bool reached =
        r.h_taken == h ||
        std::abs(landing - t_new) <= kLandingRounding * std::max(std::abs(landing), h);
    if (lands_on && reached) t_new = landing;
    std::optional<SwitchEvent> located;
    if (inequalities && inequalities->detecting() && !CutAtSwitch(&t_new, &located)) return false;
    if (!ProjectStepEnd(t_new, located)) return false;
    t_prev = t;
    t = t_new;
    std::swap(z, z_new);
    has_step = true;
    ++statistics.steps;
    WatchStiffness(r.h_taken);
    return true;
  }

  // The step limit's pace check (kPaceWindow) at the end of a window: false (and failed) when
  // reaching t_end at the window's pace needs more steps than the limit leaves.
  bool KeepsPace() {
    const std::uint64_t window = statistics.steps - pace_window_steps;
    const double advanced = t - pace_window_t;
    const double span = options().t_end - t;
    const double needed = span / advanced * static_cast<double>(window);
    const double left = static_cast<double>(options().max_steps - statistics.steps);
    pace_window_t = t;
    pace_window_steps = statistics.steps;
    // The 1% and the step of slack keep a fixed-step run whose budget suffices exactly.
    if (!std::isfinite(span) || needed <= 1.01 * left + 1.0) return true;
    std::array<char, 32> about{};
    std::snprintf(about.data(), about.size(), "%.2g", needed);
    return Fail(Termination::kStepLimit,
                "step limit of " + std::to_string(options().max_steps) +
                    " accepted steps out of reach at t = " + Num(t) + ": the last " +
                    std::to_string(window) + " steps advanced t by " + Num(advanced) +
                    ", a pace that needs about " + about.data() + " more to reach t_end = " +
                    Num(options().t_end) + " (raise max_steps to run on). " + SlowPaceHint());
  }

  [[nodiscard]] std::string SlowPaceHint() const {
    if (!stepper->adaptive()) return "Or choose a longer step.";
    return "The error control keeps the step this short: a right-hand side that switches with "
           "the state (sign, abs, min, max, a comparison) makes it chatter where the switch "
           "condition stays near 0, and a stiff problem needs method radau5 or bdf.";
  }

  [[nodiscard]] bool automatic() const { return options().method == kAutoMethod; }

  // After an accepted step to t: the explicit pairs' stiffness test becomes a notice (once per
  // run), or for method "auto" a switch to radau5; under "auto", radau5 hands back to dp5 when
  // a step of its size would be stable for dp5 (simulation.h, kAutoMethod).
  void WatchStiffness(double h) {
    if (!stepper->implicit()) {
      if (!stepper->seems_stiff()) return;
      if (automatic()) {
        switch_to = kAutoImplicit;
      } else if (!stiffness_reported) {
        stiffness_reported = true;
        pending_notices.push_back(
            {RunNotice::Kind::kStiffnessDetected, t,
             "stiffness detected at t = " + Num(t) + " (" + std::string(stepper->name()) +
                 "'s step is limited by stability, not accuracy); method radau5 or bdf will be "
                 "faster"});
      }
      return;
    }
    if (!automatic() || ++implicit_steps % kAutoCheckInterval != 0) return;
    double norm = 0.0;
    if (!ExplicitJacobianNorm(&norm)) return;  // keep radau5; the step will say
    if (h * norm <= kAutoReturnBound) switch_to = kAutoExplicit;
  }

  // ‖∂F/∂z‖∞ at the current state of the ODE dp5 integrates: the running system's, or with
  // an idle one (radau5 running in kStage) the idle kSolve system's at z's x, its Newton for
  // y started from z's y.
  bool ExplicitJacobianNorm(double* norm) {
    reduce::ReducedModel& ode = idle ? *idle->reduced : *reduced;
    std::span<const double> at = z;
    if (idle) {
      CarryState(ode, &z_explicit);
      at = z_explicit;
    }
    jacobian_values.resize(ode.jacobian_pattern().size());
    if (!ode.Jacobian(t, at, jacobian_values)) return false;
    std::vector<double> row_sums(ode.ode_size(), 0.0);
    const auto pattern = ode.jacobian_pattern();
    for (std::size_t k = 0; k < pattern.size(); ++k) {
      row_sums[pattern[k].row] += std::abs(jacobian_values[k]);
    }
    *norm = *std::max_element(row_sums.begin(), row_sums.end());
    return true;
  }

  // The stepper switch_to names, from the current state; false after setting the failure
  // status when the state cannot be carried over.
  bool SwitchStepper() {
    const std::string from(stepper->name());
    if (idle && !SwapSystem()) return false;
    stepper = integrate::MakeStepper(switch_to, ToStepperOptions(options(), *reduced));
    stepper->Resize(z.size());
    implicit_steps = 0;
    pending_notices.push_back(
        {RunNotice::Kind::kMethodSwitched, t,
         "method auto switched from " + from + " to " + switch_to + " at t = " + Num(t) +
             (switch_to == kAutoImplicit ? ": the problem is stiff here"
                                         : ": the problem is no longer stiff")});
    switch_to.clear();
    return true;
  }

  // The current state z as `other`'s z, through the model's full state (x and y); in kSolve
  // this also sets `other`'s y, its Newton's start.
  void CarryState(reduce::ReducedModel& other, std::vector<double>* other_z) const {
    std::vector<double> full(reduced->num_states());
    reduced->FullState(z, full);
    other_z->assign(other.ode_size(), 0.0);
    other.SetFullState(full, *other_z);
  }

  // Makes the idle reduced system the running one. The state goes over as the model's full state
  // (x and y), and y is solved again from c = 0 at x in the new one (kStage; kSolve solves it
  // in every evaluation), since kSolve's last y may be a stage's rather than z's.
  bool SwapSystem() {
    std::vector<double> carried;
    CarryState(*idle->reduced, &carried);
    std::swap(reduced, idle->reduced);
    std::swap(jacobian_pattern, idle->jacobian_pattern);
    std::swap(mass_pattern, idle->mass_pattern);
    std::swap(mass_values, idle->mass_values);
    std::swap(projector, idle->projector);
    z = std::move(carried);
    for (std::vector<double>* v : {&z_new, &z_sample, &zdot}) v->assign(z.size(), 0.0);
    if (!reduced->SolveAlgebraicPart(t, z)) {
      return Fail(FromEval(reduced->failure().status),
                  "method auto could not carry the state over to " + switch_to + ": " +
                      reduced->failure().message);
    }
    return true;
  }

  Status Advance(std::size_t max_samples, const std::function<void(const Sample&)>& sink,
                 const std::atomic<bool>* cancel,
                 std::chrono::steady_clock::time_point return_by) {
    const bool timed = return_by != std::chrono::steady_clock::time_point::max();
    std::uint64_t steps_unclocked = 0;
    std::size_t emitted = 0;
    if (!emitted_initial) {
      if (max_samples == 0) return status;
      emitted_initial = true;
      if (!Emit(t, z, sink)) return status;
      ++emitted;
    }
    for (;;) {
      if (last_emitted >= options().t_end) {
        status.reason = Termination::kReachedEnd;
        status.t = last_emitted;
        status.message = "reached t_end = " + Num(options().t_end);
        return status;
      }
      if (emitted >= max_samples) return status;
      double te = 0.0;
      if (Pending(&te)) {
        if (!EmitPending(te, sink)) return status;
        ++emitted;
        continue;
      }
      if (cancel && cancel->load(std::memory_order_relaxed)) {
        Status cancelled;
        cancelled.reason = Termination::kCancelled;
        cancelled.t = last_emitted;
        cancelled.message = "cancelled at t = " + Num(last_emitted);
        return cancelled;
      }
      if (timed && ++steps_unclocked >= Simulation::kStepsPerClockRead) {
        steps_unclocked = 0;
        if (std::chrono::steady_clock::now() >= return_by) return status;
      }
      if (!TakeStep()) return status;
    }
  }

  // Consistent initialization of `initial` at time t0; sets z and the output grid.
  // After a failed initialization with parameter overrides: the first override whose default
  // value lets the model initialize is what broke it ("parameters.m", said in `failure` too);
  // "initial" when none does.
  std::string BlameParameter(const std::vector<double>& initial, const std::vector<bool>& fixed,
                             Status* failure) {
    for (const auto& [name, value] : setup.parameters) {
      const double fallback = setup.model->FindParameter(name)->value;
      if (fallback == value) continue;
      parameters[name] = fallback;
      ApplyParameters();
      const bool initializes = !Initialize(0.0, initial, fixed).ended();
      parameters[name] = value;
      ApplyParameters();
      if (!initializes) continue;
      failure->message += " (caused by parameter '" + name + "' = " + Num(value) +
                         ": the model initializes with its default " + Num(fallback) + ")";
      return "parameters." + name;
    }
    return "initial";
  }

  Status Initialize(double t0, std::vector<double> initial, const std::vector<bool>& fixed) {
    InitializationReport onto_c;  // what the projection onto C moved, before the equalities
    if (inequalities) {
      std::vector<std::string> names;
      for (const model::Variable* v : reduced->model().states()) names.push_back(v->name);
      // c constrains the differential state x, the leading entries of the model's states.
      const std::span<double> x = std::span<double>(initial).first(reduced->ode_size());
      if (!inequalities->ProjectInitial(t0, x, fixed, names, &onto_c)) {
        return InequalityStatus(t0);
      }
    }
    project::ProjectorOptions projection = ToProjectorOptions(options(), *reduced);
    projection.max_iterations = options().max_initialization_iterations;
    InitializationOutcome outcome =
        InitializeConsistently(*reduced, t0, initial, fixed, projection, z);
    initialization = outcome.report;
    initialization.changes.insert(initialization.changes.begin(), onto_c.changes.begin(),
                                  onto_c.changes.end());
    if (outcome.status.ended()) return outcome.status;
    pending_events.clear();
    restart_stepper = false;
    deferred = Status{};
    if (inequalities) {
      ReducedOde free = Ode();
      if (!inequalities->StartActiveSet(free, t0, z)) return InequalityStatus(t0);
    }
    t = t0;
    t_prev = t0;
    has_step = false;
    pace_window_t = t0;
    pace_window_steps = statistics.steps;
    grid_origin = t0;
    grid_k = 1;
    last_emitted = t0;
    stepper->Resize(z.size());
    state = initial;
    return outcome.status;
  }

  // The inequality part's failure as a Status (the reduced model's when the free flow failed).
  Status InequalityStatus(double at) const {
    Status failed = inequalities->failure();
    if (failed.reason == Termination::kRunning) {
      failed.reason = FromEval(reduced->failure().status);
      failed.message = reduced->failure().message;
    }
    failed.t = at;
    return failed;
  }

  void ApplyParameters() {
    std::vector<double> values_by_index;
    for (const model::Parameter& p : reduced->model().parameters) {
      values_by_index.push_back(parameters.at(p.name));
    }
    reduced->SetParameters(values_by_index);
    if (idle) idle->reduced->SetParameters(values_by_index);
  }
};

Simulation::Simulation(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Simulation::Simulation(const Simulation& other)
    : impl_(std::make_unique<Impl>(*other.impl_)) {}
Simulation::~Simulation() = default;

CreateResult Simulation::Create(const Setup& setup) {
  CreateResult result;
  result.problems = SetupProblems(setup);
  if (!result.problems.empty()) return result;
  const Options& o = setup.options;

  auto impl = std::make_unique<Impl>();
  impl->setup = setup;
  const bool automatic = o.method == kAutoMethod;
  const std::string first_method = automatic ? std::string(kAutoExplicit) : o.method;
  const std::unique_ptr<integrate::Stepper> kind = integrate::MakeStepper(first_method, {});
  if (!kind) {
    result.problems.push_back({"options.method", "unknown method '" + o.method + "'"});
    return result;
  }
  if (!o.error_control && (automatic || !kind->supports_fixed_step())) {
    result.problems.push_back(
        {"options.error_control", "method " + o.method +
                                      " has no fixed-step mode: it needs error control on"});
    return result;
  }
  std::string why;
  std::unique_ptr<ReducedSystem> running =
      ReduceFor(setup, *kind, automatic || kind->implicit(), &why);
  if (automatic && running) {
    const std::unique_ptr<integrate::Stepper> stiff =
        integrate::MakeStepper(kAutoImplicit, {});
    if (running->reduced->sparse_algebraic() &&
        ReduceMode(*setup.model, o, *stiff) != ReduceMode(*setup.model, o, *kind)) {
      impl->idle = ReduceFor(setup, *stiff, true, &why);
      if (!impl->idle) running.reset();
    }
  }
  if (!running) {
    result.problems.push_back({"model", why});
    return result;
  }
  impl->reduced = std::move(running->reduced);
  impl->jacobian_pattern = std::move(running->jacobian_pattern);
  impl->mass_pattern = std::move(running->mass_pattern);
  impl->mass_values = std::move(running->mass_values);
  impl->projector = std::move(running->projector);
  const integrate::StepperOptions stepper_options = ToStepperOptions(o, *impl->reduced);
  if (!stepper_options.IsValid(&why)) {
    result.problems.push_back({"options", why});
    return result;
  }
  impl->stepper = integrate::MakeStepper(first_method, stepper_options);
  for (const model::Parameter& p : setup.model->parameters) impl->parameters[p.name] = p.value;
  for (const auto& [name, value] : setup.parameters) impl->parameters[name] = value;
  impl->ApplyParameters();
  if (!setup.model->inequalities.empty()) {
    impl->inequalities =
        InequalityRun::Create(*setup.model, impl->parameters, o, &result.problems);
    if (!impl->inequalities) return result;
  }
  impl->BuildColumns();
  impl->Allocate();

  std::vector<double> initial;
  std::vector<bool> fixed;
  for (const model::Variable* v : setup.model->states()) {
    double value = 0.0;
    if (auto it = setup.model->initial.find(v->name); it != setup.model->initial.end()) value = it->second;
    if (auto it = setup.initial.find(v->name); it != setup.initial.end()) value = it->second;
    initial.push_back(value);
    fixed.push_back(std::find(setup.fixed.begin(), setup.fixed.end(), v->name) != setup.fixed.end());
  }
  result.status = impl->Initialize(0.0, initial, fixed);
  if (result.status.failed()) {
    result.failure_path = impl->BlameParameter(initial, fixed, &result.status);
  }
  if (result.status.ended()) return result;
  result.simulation.reset(new Simulation(std::move(impl)));
  return result;
}

const model::Model& Simulation::model() const { return *impl_->setup.model; }
const std::vector<Column>& Simulation::columns() const { return impl_->columns; }
const InitializationReport& Simulation::initialization() const { return impl_->initialization; }
const Options& Simulation::options() const { return impl_->setup.options; }
const std::map<std::string, double>& Simulation::parameters() const { return impl_->parameters; }
double Simulation::time() const { return impl_->last_emitted; }
std::uint64_t Simulation::next_sample_index() const { return impl_->next_index; }
const Status& Simulation::status() const { return impl_->status; }
const Statistics& Simulation::statistics() const { return impl_->statistics; }

std::vector<double> Simulation::CurrentValues() const {
  if (!impl_->last_values.empty()) return impl_->last_values;
  // Before the first sample: the initial state, as sample 0 will carry it.
  Impl copy(*impl_);
  std::vector<double> values;
  copy.Emit(copy.t, copy.z, [&](const Sample& s) { values.assign(s.values.begin(), s.values.end()); });
  return values;
}

Status Simulation::Advance(std::size_t max_samples,
                           const std::function<void(const Sample&)>& sink,
                           const std::atomic<bool>* cancel,
                           std::chrono::steady_clock::time_point return_by) {
  if (impl_->status.ended()) return impl_->status;
  const double start = ThreadCpuSeconds();
  Status s = impl_->Advance(max_samples, sink, cancel, return_by);
  impl_->statistics.cpu_seconds += ThreadCpuSeconds() - start;
  return s;
}

std::vector<SetupProblem> Simulation::HorizonProblems(double t_end,
                                                     double output_interval) const {
  Options changed = impl_->setup.options;
  changed.t_end = t_end;
  changed.output_interval = output_interval;
  std::vector<SetupProblem> problems;
  // The other options were valid when the run was created; the horizon can still make a fixed
  // step or max_step too small for the times it reaches.
  for (SetupProblem& p : OptionProblems(changed, impl_->last_emitted)) {
    if (p.path == "options.t_end" || p.path == "options.output_interval" ||
        p.path == "options.step" || p.path == "options.max_step") {
      problems.push_back(p);
    }
  }
  if (problems.empty() && !(t_end > impl_->last_emitted)) {
    problems.push_back({"options.t_end", "t_end = " + Num(t_end) +
                                             "; must be after the last emitted sample at t = " +
                                             Num(impl_->last_emitted)});
  }
  // The running stepper keeps the floor of the horizon it was made for (MinStepRelative): a
  // horizon closer than that floor could not be reached by any step.
  const double floor =
      MinStepRelative(impl_->setup.options) * std::max(1.0, std::abs(t_end));
  if (problems.empty() && std::isfinite(t_end) && t_end - impl_->last_emitted < floor) {
    problems.push_back({"options.t_end", "t_end = " + Num(t_end) + " is " +
                                             Num(t_end - impl_->last_emitted) +
                                             " after the last emitted sample at t = " +
                                             Num(impl_->last_emitted) +
                                             ", closer than the smallest step " + Num(floor) +
                                             " there; choose a later t_end"});
  }
  return problems;
}

std::vector<SetupProblem> Simulation::SetHorizon(double t_end, double output_interval) {
  std::vector<SetupProblem> problems = HorizonProblems(t_end, output_interval);
  if (!problems.empty()) return problems;
  impl_->setup.options.t_end = t_end;
  impl_->setup.options.output_interval = output_interval;
  impl_->grid_origin = impl_->last_emitted;
  impl_->grid_k = 1;
  if (impl_->status.reason == Termination::kReachedEnd) impl_->status = Status{};
  return problems;
}

CreateResult Simulation::Update(const std::map<std::string, double>& parameters,
                                const std::map<std::string, double>& values) {
  CreateResult result;
  CheckOverrides(*impl_->setup.model, parameters, values, &result.problems);
  if (!result.problems.empty()) return result;
  Impl& impl = *impl_;
  for (const auto& [name, value] : parameters) impl.parameters[name] = value;
  impl.ApplyParameters();
  std::string why;
  if (impl.inequalities && !impl.inequalities->SetParameters(impl.parameters, &why)) {
    result.problems.push_back({"parameters", why});
    return result;
  }
  // Start from the state of the last emitted sample (or the initial state).
  std::vector<double> state = CurrentValues();
  state.resize(impl.reduced->num_states());
  std::vector<bool> fixed(state.size(), false);
  const std::vector<const model::Variable*> variables = impl.reduced->model().states();
  for (std::size_t i = 0; i < variables.size(); ++i) {
    if (auto it = values.find(variables[i]->name); it != values.end()) {
      state[i] = it->second;
      fixed[i] = true;  // the values asked for are kept; the others adapt to them
    }
  }
  result.status = impl.Initialize(impl.last_emitted, std::move(state), fixed);
  if (result.status.ended()) {
    impl.status = result.status;
  } else {
    impl.status = Status{};  // a re-initialized run continues, whatever ended it before
    impl.last_values.clear();
  }
  return result;
}

}  // namespace tether::simulate
