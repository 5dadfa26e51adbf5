#include "simulate/pds_driver.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "tether/integrate/stepper.h"

namespace tether::simulate {

bool PdsOptions::IsValid(std::string* why) const {
  std::string reason;
  const auto& names = integrate::StepperNames();
  if (std::find(names.begin(), names.end(), method) == names.end()) {
    reason = "PdsOptions::method = '" + method + "'; not a known stepper";
  } else if (!(step > 0.0)) {
    reason = "PdsOptions::step = " + std::to_string(step) + "; must be > 0";
  } else if (!(t_end > 0.0)) {
    reason = "PdsOptions::t_end = " + std::to_string(t_end) + "; must be > 0";
  } else if (!(chattering_window > 0.0)) {
    reason = "PdsOptions::chattering_window = " + std::to_string(chattering_window) +
             "; must be > 0";
  } else if (max_switches < 1) {
    reason = "PdsOptions::max_switches = " + std::to_string(max_switches) + "; must be >= 1";
  }
  // The nested option structs name their own fields.
  if (reason.empty() && switches.IsValid(&reason)) projection.IsValid(&reason);
  if (why != nullptr) *why = reason;
  return reason.empty();
}

std::unique_ptr<PdsProblem> CreatePdsProblem(const model::Model& model, std::string* why) {
  const auto fail = [&](std::string reason) {
    if (why != nullptr) *why = "model '" + model.name + "': " + std::move(reason);
    return nullptr;
  };
  if (model.form != model::Form::kIndex1 || !model.algebraic.empty() ||
      !model.constraints.empty()) {
    return fail("a first-order PDS needs form 'index1' without algebraic variables or "
                "equality constraints");
  }
  if (model.inequalities.empty()) return fail("has no inequalities");
  std::vector<expr::Expr> states;
  for (const model::Variable& v : model.differential) states.push_back(v.symbol);
  std::vector<std::pair<std::string, double>> bindings;
  for (const model::Parameter& p : model.parameters) bindings.emplace_back(p.name, p.value);
  // C is time-independent (shared/seeds 003): t is not bound, so an inequality using t is
  // refused by InequalityProjection::Create.
  auto problem = std::make_unique<PdsProblem>();
  std::string reason;
  problem->feasible_set = project::InequalityProjection::Create(
      *model.context, model.inequalities, states, bindings, &reason);
  if (!problem->feasible_set) return fail(reason);
  expr::Context context;
  std::vector<expr::Expr> inputs;
  for (expr::Expr s : states) inputs.push_back(context.Symbol(model.context->symbol_name(s)));
  inputs.push_back(context.Symbol(model.context->symbol_name(model.time)));
  std::vector<std::pair<expr::Expr, expr::Expr>> fixed;
  for (const auto& [name, value] : bindings) {
    fixed.emplace_back(context.Symbol(name), context.Constant(value));
  }
  std::vector<expr::Expr> f;
  for (expr::Expr e : model.rhs) {
    f.push_back(context.Substitute(context.Import(*model.context, e), fixed));
  }
  problem->n = states.size();
  problem->rhs = expr::Compile(context, f, inputs);
  return problem;
}

namespace {

// x' = f + J_Aᵀ μ_A with μ_A = −(J_A J_Aᵀ)⁻¹ J_A f; the free flow when A is empty.
class SlidingFlow : public integrate::OdeSystem {
 public:
  explicit SlidingFlow(PdsProblem& problem)
      : problem_(problem),
        m_(problem.feasible_set->num_constraints()),
        in_(problem.n + 1),
        f_(problem.n),
        jacobian_(m_ * problem.n),
        mu_(m_),
        active_(m_, false) {}

  [[nodiscard]] std::size_t size() const override { return problem_.n; }
  void set_active(const std::vector<bool>& active) { active_ = active; }
  [[nodiscard]] const std::vector<bool>& active() const { return active_; }

  bool Evaluate(double t, std::span<const double> x, std::span<double> dxdt) override {
    if (!Multipliers(t, x, mu_)) return false;
    const std::size_t n = problem_.n;
    for (std::size_t k = 0; k < n; ++k) {
      double sum = f_[k];
      for (std::size_t i = 0; i < m_; ++i) sum += jacobian_[i * n + k] * mu_[i];
      dxdt[k] = sum;
    }
    return true;
  }

  // μ ← the sliding multipliers at (t, x) for the current A (0 off A); also leaves f and J.
  bool Multipliers(double t, std::span<const double> x, std::span<double> mu) {
    const std::size_t n = problem_.n;
    std::copy(x.begin(), x.end(), in_.begin());
    in_[n] = t;
    problem_.rhs.Evaluate(in_, f_);
    problem_.feasible_set->EvaluateJacobian(x, jacobian_);
    std::fill(mu.begin(), mu.end(), 0.0);
    std::vector<std::size_t> a;
    for (std::size_t i = 0; i < m_; ++i) {
      if (active_[i]) a.push_back(i);
    }
    if (a.empty()) return true;
    const auto k = static_cast<Eigen::Index>(a.size());
    Eigen::MatrixXd g(k, k);
    Eigen::VectorXd rhs(k);
    for (Eigen::Index r = 0; r < k; ++r) {
      const std::size_t ir = a[static_cast<std::size_t>(r)];
      double jf = 0.0;
      for (std::size_t col = 0; col < n; ++col) jf += jacobian_[ir * n + col] * f_[col];
      rhs(r) = -jf;
      for (Eigen::Index s = 0; s < k; ++s) {
        const std::size_t is = a[static_cast<std::size_t>(s)];
        double sum = 0.0;
        for (std::size_t col = 0; col < n; ++col) {
          sum += jacobian_[ir * n + col] * jacobian_[is * n + col];
        }
        g(r, s) = sum;
      }
    }
    const Eigen::LDLT<Eigen::MatrixXd> ldlt(g);
    if (ldlt.info() != Eigen::Success || !(ldlt.vectorD().minCoeff() > 0.0)) return false;
    const Eigen::VectorXd solution = ldlt.solve(rhs);
    for (Eigen::Index r = 0; r < k; ++r) {
      mu[a[static_cast<std::size_t>(r)]] = solution(r);
    }
    return solution.allFinite();
  }

 private:
  PdsProblem& problem_;
  std::size_t m_;
  std::vector<double> in_;
  std::vector<double> f_;
  std::vector<double> jacobian_;
  std::vector<double> mu_;
  std::vector<bool> active_;
};

// The runner's state, so each phase of a step is a short method.
class PdsRunner {
 public:
  PdsRunner(PdsProblem& problem, const PdsOptions& options)
      : problem_(problem),
        options_(options),
        m_(problem.feasible_set->num_constraints()),
        flow_(problem),
        guard_(options.chattering_window, options.max_switches),
        c_(m_),
        mu_(m_, 0.0) {}

  PdsRun Run(const std::vector<double>& x0) {
    integrate::StepperOptions stepper_options;
    stepper_options.step = options_.step;
    stepper_options.error_control = false;
    stepper_ = integrate::MakeStepper(options_.method, stepper_options);
    stepper_->Resize(problem_.n);
    x_ = x0;
    x_new_.assign(problem_.n, 0.0);
    x_projected_.assign(problem_.n, 0.0);
    if (!Initialize()) return std::move(run_);
    double t = 0.0;
    Sample(t);
    while (t < options_.t_end) {
      // The last step lands exactly on t_end, whatever rounding left for it.
      const bool last = options_.t_end - t <= options_.step * (1.0 + 1e-12);
      const double h = last ? options_.t_end - t : options_.step;
      if (!Advance(t, h)) return std::move(run_);
      t = last && !event_in_step_ ? options_.t_end : t_next_;
      Sample(t);
    }
    return std::move(run_);
  }

 private:
  // A from x0: constraints at zero whose sliding multiplier is positive.
  bool Initialize() {
    problem_.feasible_set->EvaluateConstraints(x_, c_);
    std::vector<bool> active(m_, false);
    for (std::size_t i = 0; i < m_; ++i) {
      if (c_[i] < -options_.projection.tolerance) {
        return Fail(PdsTermination::kInvalidOptions,
                    "x0 violates inequalities[" + std::to_string(i) + "]: c = " +
                        std::to_string(c_[i]));
      }
      active[i] = options_.mode == PdsMode::kSwitchDetection &&
                  c_[i] <= options_.projection.tolerance;
    }
    for (std::size_t round = 0; round <= m_; ++round) {
      flow_.set_active(active);
      if (!flow_.Multipliers(0.0, x_, mu_)) {
        return Fail(PdsTermination::kStepFailed, "x0: active constraint gradients are "
                                                 "linearly dependent (LICQ violated)");
      }
      const auto worst = std::min_element(mu_.begin(), mu_.end());
      if (worst == mu_.end() || *worst >= 0.0) break;
      active[static_cast<std::size_t>(worst - mu_.begin())] = false;
    }
    return true;
  }

  bool Advance(double t, double h) {
    event_in_step_ = false;
    const bool detect = options_.mode == PdsMode::kSwitchDetection;
    if (!Step(t, h)) return false;
    if (detect) {
      std::optional<SwitchEvent> event = FindSwitch(t, t + h);
      if (event) {
        event_in_step_ = true;
        if (event->t < t + h && !Step(t, event->t - t)) return false;
        if (!ApplySwitch(*event)) return false;
      }
    }
    return Project(t_next_ - t);
  }

  bool Step(double t, double h) {
    const integrate::StepResult result = stepper_->Step(flow_, t, x_, h, x_new_);
    if (result.status != integrate::StepStatus::kAccepted) {
      return Fail(PdsTermination::kStepFailed,
                  "step from t = " + std::to_string(t) + " failed (non-finite state or "
                                                         "linearly dependent active gradients)");
    }
    t_next_ = t + result.h_taken;
    return true;
  }

  std::optional<SwitchEvent> FindSwitch(double t0, double t1) {
    std::vector<SwitchDirection> directions(m_);
    for (std::size_t i = 0; i < m_; ++i) {
      directions[i] = flow_.active()[i] ? SwitchDirection::kDeactivated
                                        : SwitchDirection::kActivated;
    }
    std::vector<double> x(problem_.n);
    std::vector<double> mu(m_);
    std::vector<double> c(m_);
    const Indicators indicators = [&](double t, std::span<double> g) {
      stepper_->Interpolate(t, x);
      problem_.feasible_set->EvaluateConstraints(x, c);
      if (!flow_.Multipliers(t, x, mu)) std::fill(mu.begin(), mu.end(), 0.0);
      for (std::size_t i = 0; i < m_; ++i) g[i] = flow_.active()[i] ? mu[i] : c[i];
    };
    return FindEarliestSwitch(indicators, m_, directions, t0, t1, options_.switches);
  }

  bool ApplySwitch(const SwitchEvent& event) {
    std::vector<bool> active = flow_.active();
    active[event.constraint] = event.direction == SwitchDirection::kActivated;
    flow_.set_active(active);
    run_.events.push_back(event);
    if (!guard_.Record(event.t)) {
      return Fail(PdsTermination::kChattering,
                  "chattering: more than " + std::to_string(options_.max_switches) +
                      " switches within " + std::to_string(options_.chattering_window) +
                      " s before t = " + std::to_string(event.t));
    }
    return true;
  }

  bool Project(double h) {
    project::InequalityProjectionResult result;
    if (options_.mode == PdsMode::kProjectedSteps) {
      result = problem_.feasible_set->Project(x_new_, {}, x_projected_, options_.projection);
    } else if (std::find(flow_.active().begin(), flow_.active().end(), true) !=
               flow_.active().end()) {
      result = problem_.feasible_set->ProjectOntoActive(x_new_, {}, flow_.active(), x_projected_,
                                                        options_.projection);
    } else {
      x_projected_ = x_new_;
    }
    if (!result.ok()) {
      return Fail(PdsTermination::kProjectionFailed,
                  "at t = " + std::to_string(t_next_) + ": " + result.message);
    }
    x_.swap(x_projected_);
    if (options_.mode == PdsMode::kProjectedSteps) {
      // The projection's impulse μ over the step is the force μ/h.
      // The next step integrates the free flow again: A is only reported.
      for (std::size_t i = 0; i < m_; ++i) mu_[i] = result.mu[i] / h;
      projected_active_ = result.active;
    }
    return true;
  }

  void Sample(double t) {
    PdsSample sample;
    sample.t = t;
    sample.x = x_;
    if (options_.mode == PdsMode::kSwitchDetection && !flow_.Multipliers(t, x_, mu_)) {
      std::fill(mu_.begin(), mu_.end(), 0.0);
    }
    sample.mu = mu_;
    sample.active =
        options_.mode == PdsMode::kProjectedSteps ? projected_active_ : flow_.active();
    problem_.feasible_set->EvaluateConstraints(x_, c_);
    for (double ci : c_) sample.residual_inequality = std::max(sample.residual_inequality, -ci);
    run_.samples.push_back(std::move(sample));
  }

  bool Fail(PdsTermination termination, std::string message) {
    run_.termination = termination;
    run_.message = std::move(message);
    return false;
  }

  PdsProblem& problem_;
  const PdsOptions& options_;
  std::size_t m_;
  SlidingFlow flow_;
  ChatteringGuard guard_;
  std::unique_ptr<integrate::Stepper> stepper_;
  std::vector<double> x_;
  std::vector<double> x_new_;
  std::vector<double> x_projected_;
  std::vector<double> c_;
  std::vector<double> mu_;
  double t_next_ = 0.0;
  bool event_in_step_ = false;
  std::vector<bool> projected_active_ = std::vector<bool>(m_, false);
  PdsRun run_;
};

}  // namespace

PdsRun RunPds(PdsProblem& problem, const std::vector<double>& x0, const PdsOptions& options) {
  std::string why;
  if (!options.IsValid(&why)) return PdsRun{PdsTermination::kInvalidOptions, why, {}, {}};
  if (x0.size() != problem.n) {
    return PdsRun{PdsTermination::kInvalidOptions,
                  "x0 has " + std::to_string(x0.size()) + " entries; the model has " +
                      std::to_string(problem.n) + " states",
                  {}, {}};
  }
  PdsRunner runner(problem, options);
  return runner.Run(x0);
}

}  // namespace tether::simulate
