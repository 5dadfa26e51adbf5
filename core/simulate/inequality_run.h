// The inequality part of a run: a first-order projected dynamical system (shared/seeds 003)
//   x' ∈ f(x, t) − N_C(x),   C = {x : c(x) ≥ 0},
// where f is the model's reduced ODE (index1: y solved from g = 0 in every stage, so the
// equalities hold exactly and c constrains the differential state x).
//
// With switch detection (Options::switch_detection, FESD-style) the stepper integrates the
// smooth sliding dynamics of the current active set A (sliding_flow.h). After each step the
// indicators — c_i for i ∉ A, μ_i for i ∈ A — are searched for a sign change on the dense
// output (switch_detection.h); the loop retakes the step to end exactly at the earliest switch,
// A is updated and made consistent, and the state is projected onto {c_A = 0}. No step
// straddles a switch, so the stepper keeps its order; each switch becomes a SwitchEvent and a
// sample of its own.
//
// Without it, every step integrates the free flow and is projected onto C by the active-set
// Newton method of project/inequality_projection.h: x_{k+1} = P_C(Φ_h(x_k)), Moreau's
// catching-up scheme with "euler", first order at switches whatever the method. The reported
// μ is the projection's impulse over the step divided by h.
//
// A value type: copying it forks the run's inequality state (the Simulation copy).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "project/inequality_projection.h"
#include "simulate/sliding_flow.h"
#include "simulate/switch_detection.h"
#include "tether/integrate/stepper.h"
#include "tether/simulate/simulation.h"

namespace tether::simulate {

class InequalityRun {
 public:
  // Appends a SetupProblem (path "model.inequalities", "options.algebraic") and returns nullptr
  // when the model's inequalities cannot run: another form than index1, algebraic mode 'ode',
  // or a c_i that depends on something other than the differential state and parameters.
  static std::unique_ptr<InequalityRun> Create(const model::Model& model,
                                               const std::map<std::string, double>& parameters,
                                               const Options& options,
                                               std::vector<SetupProblem>* problems);
  InequalityRun(const InequalityRun& other);
  InequalityRun& operator=(const InequalityRun&) = delete;

  [[nodiscard]] std::size_t size() const { return m_; }
  [[nodiscard]] bool detecting() const { return options_.switch_detection; }
  // Why the last call returned false; reason kRunning means the free flow (the reduced model)
  // failed and its own failure() holds the diagnosis.
  [[nodiscard]] const Status& failure() const { return failure_; }
  [[nodiscard]] std::uint64_t switches() const { return switches_; }
  // Free-flow evaluations made through the sliding dynamics since the last call: the stepper's
  // stages when detecting, the switch search's indicators, sample multipliers, consistency.
  std::uint64_t TakeEvaluations() {
    const std::uint64_t total = flow_.free_evaluations();
    const std::uint64_t delta = total - evaluations_taken_;
    evaluations_taken_ = total;
    return delta;
  }

  // Rebinds the parameters (Update); false with `why` if the set cannot be compiled.
  bool SetParameters(const std::map<std::string, double>& parameters, std::string* why);

  // x ← P_C(x) when x violates C; report->changes gain the moved values (a moved `fixed` value
  // is an error). False: failure().
  bool ProjectInitial(double t, std::span<double> x, const std::vector<bool>& fixed,
                      const std::vector<std::string>& names, InitializationReport* report);
  // The initial A at the consistent (t, x). False: failure().
  bool StartActiveSet(integrate::OdeSystem& free, double t, std::span<const double> x);
  // Why the sliding dynamics failed in the last step ("" when they did not).
  [[nodiscard]] const std::string& sliding_failure() const { return flow_.failure(); }

  // The ODE of the next step: the sliding dynamics on A (detecting) or the free flow.
  SlidingOde Ode(integrate::OdeSystem& free);

  // The earliest switch inside the stepper's last step [t0, t1], from its dense output.
  std::optional<SwitchEvent> FindSwitch(const integrate::Stepper& stepper,
                                        integrate::OdeSystem& free, double t0, double t1);

  // Completes a step of length h that ended at (t, x): applies `located` (a switch the step was
  // cut at, or null), projects x, makes A consistent and appends the switches at t to `events`.
  // Sets *changed when A changed (the stepper must restart: its last stage is stale). False:
  // failure() (projection failed, LICQ, chattering).
  bool FinishStep(integrate::OdeSystem& free, double t, double h, std::span<double> x,
                  const SwitchEvent* located, std::vector<SwitchEvent>* events, bool* changed);

  // Projects an interpolated sample at t inside the last step (onto {c_A = 0} for that step's
  // A, or onto C). False: failure().
  bool ProjectSample(double t, std::span<double> x);

  // μ (size()), the active flags as 0/1 (size()) and max(0, −min c) at a sample (t, x);
  // `at_step_end` selects A after the last step (else the A the step was integrated with).
  bool SampleValues(integrate::OdeSystem& free, double t, std::span<const double> x,
                    bool at_step_end, std::span<double> mu, std::span<double> active,
                    double* residual);

 private:
  InequalityRun(const model::Model& model, const Options& options,
                std::unique_ptr<project::InequalityProjection> set);
  bool Fail(Termination reason, double t, std::string message);
  bool FlowFailure(double t, const std::string& where);
  // Fails with kProjectionFailed: "<where> t = <t>: " and the projection's message.
  bool ProjectionFailure(double t, const char* where);
  [[nodiscard]] project::InequalityProjectionOptions ProjectionOptions() const;
  [[nodiscard]] SwitchOptions LocationOptions(double t0, double t1) const;
  bool RecordSwitches(double t, const std::vector<bool>& before, std::vector<SwitchEvent>* events);
  [[nodiscard]] std::string ConstraintName(std::size_t i) const;
  // "inequalities[0] (x - 1 >= 0) (c = -0.5), …": the constraints flagged in `which`, the
  // first four by name (with their c_i if `c` is given), then how many more.
  [[nodiscard]] std::string ConstraintList(const std::vector<bool>& which,
                                           std::span<const double> c) const;

  const model::Model* model_;
  Options options_;
  std::unique_ptr<project::InequalityProjection> set_;
  std::size_t n_ = 0;
  std::size_t m_ = 0;
  SlidingFlow flow_;
  std::vector<bool> step_active_;   // A the last step was integrated with
  std::vector<bool> before_;        // A before FinishStep, to find the switches
  std::vector<bool> candidate_;     // A being assembled by FinishStep
  std::vector<double> mu_, c_, x_probe_, mu_probe_, work_, projected_;
  std::vector<double> step_mu_;     // projected steps: impulse / h of the last step
  std::vector<bool> step_set_;      // projected steps: the projection's active set
  std::vector<SwitchDirection> directions_;
  // The projections' result, its vectors sized once (m) so that projecting allocates nothing.
  project::InequalityProjectionResult projection_;
  ChatteringGuard guard_;
  std::uint64_t switches_ = 0;
  std::uint64_t evaluations_taken_ = 0;
  Status failure_;
  // Set only during FindSwitch, for the indicator callback: it then captures `this` and one
  // bool, small enough for std::function's in-place buffer (no allocation per step).
  const integrate::Stepper* stepper_ = nullptr;
  integrate::OdeSystem* free_ = nullptr;
};

}  // namespace tether::simulate
