#include "simulate/inequality_run.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include "simulate/number_text.h"

namespace tether::simulate {
namespace {

// Pieces a step is cut into when searching a sign change: a switch pair that opens and closes
// inside one quarter step is missed (the post-step check below then projects onto C).
constexpr int kSubintervals = 4;

std::unique_ptr<project::InequalityProjection> CompileSet(
    const model::Model& model, const std::map<std::string, double>& parameters,
    std::string* why) {
  std::vector<expr::Expr> states;
  for (const model::Variable& v : model.differential) states.push_back(v.symbol);
  // C is time-independent (shared/seeds 003): t stays unbound, so a c_i using t is refused.
  std::vector<std::pair<std::string, double>> bindings(parameters.begin(), parameters.end());
  return project::InequalityProjection::Create(*model.context, model.inequalities, states,
                                               bindings, why);
}

}  // namespace

std::unique_ptr<InequalityRun> InequalityRun::Create(
    const model::Model& model, const std::map<std::string, double>& parameters,
    const Options& options, std::vector<SetupProblem>* problems) {
  if (model::SpecOf(model.form).inequalities() != model::InequalitySupport::kRun) {
    problems->push_back(
        {"model.inequalities",
         "model '" + model.name + "' has inequalities but form '" +
             std::string(model::FormName(model.form)) +
             "'; inequality constraints (projected dynamical systems) need " +
             model::InequalityFormsText()});
    return nullptr;
  }
  if (options.algebraic == AlgebraicMode::kOde) {
    problems->push_back({"options.algebraic",
                         "algebraic mode 'ode' cannot be combined with the inequalities of "
                         "model '" + model.name + "'; use 'solve'"});
    return nullptr;
  }
  std::string why;
  auto set = CompileSet(model, parameters, &why);
  if (!set) {
    problems->push_back({"model.inequalities",
                         "model '" + model.name + "': " + why +
                             " (c may use differential variables and parameters only)"});
    return nullptr;
  }
  return std::unique_ptr<InequalityRun>(new InequalityRun(model, options, std::move(set)));
}

InequalityRun::InequalityRun(const model::Model& model, const Options& options,
                             std::unique_ptr<project::InequalityProjection> set)
    : model_(&model),
      options_(options),
      set_(std::move(set)),
      n_(set_->num_states()),
      m_(set_->num_constraints()),
      flow_(n_, m_),
      step_active_(m_, false),
      before_(m_, false),
      candidate_(m_, false),
      mu_(m_, 0.0),
      c_(m_, 0.0),
      x_probe_(n_, 0.0),
      mu_probe_(m_, 0.0),
      work_(3 * m_, 0.0),
      projected_(n_, 0.0),
      step_mu_(m_, 0.0),
      step_set_(m_, false),
      directions_(m_, SwitchDirection::kActivated),
      guard_(options.chattering_window, options.max_switches) {
  projection_.active.assign(m_, false);
  projection_.mu.assign(m_, 0.0);
}

InequalityRun::InequalityRun(const InequalityRun& o)
    : model_(o.model_),
      options_(o.options_),
      set_(std::make_unique<project::InequalityProjection>(*o.set_)),
      n_(o.n_),
      m_(o.m_),
      flow_(o.flow_),
      step_active_(o.step_active_),
      before_(o.before_),
      candidate_(o.candidate_),
      mu_(o.mu_),
      c_(o.c_),
      x_probe_(o.x_probe_),
      mu_probe_(o.mu_probe_),
      work_(o.work_),
      projected_(o.projected_),
      step_mu_(o.step_mu_),
      step_set_(o.step_set_),
      directions_(o.directions_),
      projection_(o.projection_),
      guard_(o.guard_),
      switches_(o.switches_),
      evaluations_taken_(o.evaluations_taken_),
      failure_(o.failure_) {}

bool InequalityRun::SetParameters(const std::map<std::string, double>& parameters,
                                  std::string* why) {
  auto set = CompileSet(*model_, parameters, why);
  if (!set) return false;
  set_ = std::move(set);
  return true;
}

bool InequalityRun::FlowFailure(double t, const std::string& where) {
  // An empty failure() means the free flow (the reduced model) failed: the caller reports the
  // reduced model's own diagnosis, signalled by reason kRunning.
  if (flow_.failure().empty()) return Fail(Termination::kRunning, t, "");
  return Fail(Termination::kSingularConstraints, t, where + ": " + flow_.failure());
}

bool InequalityRun::ProjectionFailure(double t, const char* where) {
  return Fail(Termination::kProjectionFailed, t,
              std::string(where) + " t = " + Num(t) + ": " + projection_.message);
}

bool InequalityRun::Fail(Termination reason, double t, std::string message) {
  failure_.reason = reason;
  failure_.t = t;
  failure_.message = std::move(message);
  return false;
}

project::InequalityProjectionOptions InequalityRun::ProjectionOptions() const {
  project::InequalityProjectionOptions p;
  p.tolerance = options_.projection_tolerance;
  p.max_newton_iterations = std::max(options_.max_newton_iterations, 20);
  return p;
}

// The location tolerance is tied to the step tolerance: a switch located δt late costs
// O(δt)·|x'| of state error, so δt = rtol·h keeps it below the step's own relative accuracy;
// 64 ε |t| is the finest spacing of times the bracket can still resolve.
SwitchOptions InequalityRun::LocationOptions(double t0, double t1) const {
  SwitchOptions s;
  const double floor = 64.0 * std::numeric_limits<double>::epsilon() *
                       std::max(1.0, std::abs(t1));
  s.time_tolerance = options_.switch_tolerance > 0.0
                         ? std::max(options_.switch_tolerance, floor)
                         : std::max(options_.rtol * (t1 - t0), floor);
  s.subintervals = kSubintervals;
  return s;
}

std::string InequalityRun::ConstraintName(std::size_t i) const {
  return "inequalities[" + std::to_string(i) + "] (" +
         model_->context->ToString(model_->inequalities[i], 60) + " >= 0)";
}

std::string InequalityRun::ConstraintList(const std::vector<bool>& which,
                                          std::span<const double> c) const {
  constexpr std::size_t kMaxNamed = 4;
  std::string list;
  std::size_t named = 0;
  std::size_t count = 0;
  for (std::size_t i = 0; i < which.size(); ++i) {
    if (!which[i]) continue;
    ++count;
    if (named == kMaxNamed) continue;
    list += (named++ == 0 ? "" : ", ") + ConstraintName(i);
    if (!c.empty()) list += " (c = " + Num(c[i]) + ")";
  }
  if (count == 0) return "no inequality";
  if (count > named) list += " and " + std::to_string(count - named) + " more";
  return list;
}

bool InequalityRun::ProjectInitial(double t, std::span<double> x, const std::vector<bool>& fixed,
                                   const std::vector<std::string>& names,
                                   InitializationReport* report) {
  failure_ = Status{};
  set_->EvaluateConstraints(x, c_);
  const bool feasible = std::all_of(c_.begin(), c_.end(), [&](double ci) {
    return ci >= -options_.projection_tolerance;
  });
  if (feasible) return true;
  if (!set_->Project(x, {}, projected_, ProjectionOptions(), &projection_)) {
    std::vector<bool> violated(m_);
    for (std::size_t i = 0; i < m_; ++i) violated[i] = c_[i] < -options_.projection_tolerance;
    return Fail(Termination::kProjectionFailed, t,
                "the initial state violates " + ConstraintList(violated, c_) +
                    ", and no projection onto the inequalities was found (" +
                    projection_.message + " with " + ConstraintList(projection_.active, {}) +
                    " active): they may not hold together (an empty feasible set), or their "
                    "gradients are dependent where they meet");
  }
  const auto worst = static_cast<std::size_t>(std::min_element(c_.begin(), c_.end()) - c_.begin());
  for (std::size_t k = 0; k < n_; ++k) {
    if (projected_[k] == x[k]) continue;
    if (k < fixed.size() && fixed[k]) {
      return Fail(Termination::kProjectionFailed, t,
                  "'" + names[k] + "' = " + Num(x[k]) + " is held fixed, but the state violates " +
                      ConstraintName(worst) + " (c = " + Num(c_[worst]) +
                      ") and its projection onto c >= 0 moves '" + names[k] + "' to " +
                      Num(projected_[k]));
    }
    report->changes.push_back({names[k], x[k], projected_[k]});
  }
  std::copy(projected_.begin(), projected_.end(), x.begin());
  return true;
}

bool InequalityRun::StartActiveSet(integrate::OdeSystem& free, double t,
                                   std::span<const double> x) {
  failure_ = Status{};
  std::fill(step_mu_.begin(), step_mu_.end(), 0.0);
  // Every constraint at zero is a candidate; MakeConsistent keeps those pushed against.
  flow_.set_active(std::vector<bool>(m_, detecting()));
  if (detecting() &&
      !flow_.MakeConsistent(free, *set_, t, x, options_.projection_tolerance, mu_, true)) {
    return FlowFailure(t, "initial state");
  }
  step_active_ = flow_.active();
  step_set_ = flow_.active();
  return true;
}

SlidingOde InequalityRun::Ode(integrate::OdeSystem& free) {
  return SlidingOde(free, *set_, flow_, mu_, ProjectionOptions());
}

std::optional<SwitchEvent> InequalityRun::FindSwitch(const integrate::Stepper& stepper,
                                                     integrate::OdeSystem& free, double t0,
                                                     double t1) {
  const bool any_active = flow_.any_active();
  for (std::size_t i = 0; i < m_; ++i) {
    directions_[i] =
        flow_.active()[i] ? SwitchDirection::kDeactivated : SwitchDirection::kActivated;
  }
  stepper_ = &stepper;
  free_ = &free;
  const Indicators indicators = [this, any_active](double t, std::span<double> g) {
    stepper_->Interpolate(t, x_probe_);
    set_->EvaluateConstraints(x_probe_, c_);
    // A failed evaluation leaves μ > 0: no deactivation is inferred from a state we cannot
    // evaluate (the next step then fails with the cause).
    if (any_active && !flow_.Evaluate(*free_, *set_, t, x_probe_, mu_probe_, {})) {
      std::fill(mu_probe_.begin(), mu_probe_.end(), 1.0);
    }
    for (std::size_t i = 0; i < m_; ++i) g[i] = flow_.active()[i] ? mu_probe_[i] : c_[i];
  };
  std::optional<SwitchEvent> event = FindEarliestSwitch(
      indicators, m_, directions_, t0, t1, LocationOptions(t0, t1), work_);
  stepper_ = nullptr;
  free_ = nullptr;
  return event;
}

bool InequalityRun::FinishStep(integrate::OdeSystem& free, double t, double h,
                               std::span<double> x, const SwitchEvent* located,
                               std::vector<SwitchEvent>* events, bool* changed) {
  *changed = false;
  step_active_ = flow_.active();
  const project::InequalityProjectionOptions po = ProjectionOptions();
  if (!detecting()) {
    if (!set_->Project(x, {}, projected_, po, &projection_)) return ProjectionFailure(t, "at");
    std::copy(projected_.begin(), projected_.end(), x.begin());
    for (std::size_t i = 0; i < m_; ++i) step_mu_[i] = projection_.mu[i] / h;
    step_set_ = projection_.active;
    return true;
  }
  before_ = flow_.active();
  std::vector<bool>& active = candidate_;
  active = flow_.active();
  if (located != nullptr) active[located->constraint] = located->activated;
  if (std::find(active.begin(), active.end(), true) != active.end()) {
    if (!set_->ProjectOntoActive(x, {}, active, projected_, po, &projection_)) {
      return ProjectionFailure(t, "at");
    }
    std::copy(projected_.begin(), projected_.end(), x.begin());
  }
  // A crossing the search missed (it opened and closed within a quarter step, or started at
  // c_i ≈ 0): project onto C and let the set's active constraints join A.
  set_->EvaluateConstraints(x, c_);
  for (std::size_t i = 0; i < m_; ++i) {
    if (active[i] || c_[i] >= -po.tolerance) continue;
    if (!set_->Project(x, {}, projected_, po, &projection_)) return ProjectionFailure(t, "at");
    std::copy(projected_.begin(), projected_.end(), x.begin());
    for (std::size_t j = 0; j < m_; ++j) active[j] = active[j] || projection_.active[j];
    break;
  }
  flow_.set_active(active);
  if (!flow_.MakeConsistent(free, *set_, t, x, po.tolerance, mu_)) {
    return FlowFailure(t, "at t = " + Num(t));
  }
  *changed = flow_.active() != before_;
  return RecordSwitches(t, before_, events);
}

bool InequalityRun::RecordSwitches(double t, const std::vector<bool>& before,
                                   std::vector<SwitchEvent>* events) {
  std::size_t last = m_;
  for (std::size_t i = 0; i < m_; ++i) {
    if (flow_.active()[i] == before[i]) continue;
    events->push_back(SwitchEvent{t, i, flow_.active()[i]});
    ++switches_;
    last = i;
  }
  // Constraints switching together (contacts closing at one instant) are one switch for the
  // guard: chattering is switching again and again, not many at once.
  if (last == m_ || guard_.Record(t)) return true;
  return Fail(Termination::kChattering, t,
              "chattering at t = " + Num(t) + ": more than " +
                  std::to_string(options_.max_switches) + " switching instants within " +
                  Num(options_.chattering_window) + " s (last: " + ConstraintName(last) + " " +
                  (flow_.active()[last] ? "activated" : "deactivated") +
                  "); raise max_switches or chattering_window, or run with "
                  "switch_detection off (projected steps)");
}

bool InequalityRun::ProjectSample(double t, std::span<double> x) {
  const project::InequalityProjectionOptions po = ProjectionOptions();
  bool ok = true;
  if (!detecting()) {
    ok = set_->Project(x, {}, projected_, po, &projection_);
  } else if (std::find(step_active_.begin(), step_active_.end(), true) != step_active_.end()) {
    ok = set_->ProjectOntoActive(x, {}, step_active_, projected_, po, &projection_);
  } else {
    return true;
  }
  if (!ok) return ProjectionFailure(t, "sample at");
  std::copy(projected_.begin(), projected_.end(), x.begin());
  return true;
}

bool InequalityRun::SampleValues(integrate::OdeSystem& free, double t,
                                 std::span<const double> x, bool at_step_end,
                                 std::span<double> mu, std::span<double> active,
                                 double* residual) {
  set_->EvaluateConstraints(x, c_);
  *residual = 0.0;
  for (double ci : c_) *residual = std::max(*residual, -ci);
  if (!detecting()) {
    std::copy(step_mu_.begin(), step_mu_.end(), mu.begin());
    for (std::size_t i = 0; i < m_; ++i) active[i] = step_set_[i] ? 1.0 : 0.0;
    return true;
  }
  // Inside the last step the state slid along the A it was integrated with.
  const bool use_step_set = !at_step_end && step_active_ != flow_.active();
  if (use_step_set) {
    before_ = flow_.active();
    flow_.set_active(step_active_);
  }
  const bool ok = flow_.Evaluate(free, *set_, t, x, mu, {});
  for (std::size_t i = 0; i < m_; ++i) active[i] = flow_.active()[i] ? 1.0 : 0.0;
  if (use_step_set) flow_.set_active(before_);
  return ok || FlowFailure(t, "sample at t = " + Num(t));
}

}  // namespace tether::simulate
