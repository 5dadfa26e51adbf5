#include "simulate/initialization.h"

#include <algorithm>
#include <string>

#include "tether/project/newton_projection.h"
#include "simulate/termination_mapping.h"

namespace tether::simulate {
namespace {

void SetFailure(InitializationOutcome* outcome, Termination reason, double t,
                const std::string& message) {
  outcome->status.reason = reason;
  outcome->status.t = t;
  outcome->status.message = "consistent initialization failed: " + message;
}

// Projects z[block] onto the block's invariant rows with the fixed entries held.
bool ProjectBlock(reduce::ReducedModel& model, double t, const project::Block& block,
                  const std::vector<bool>& fixed_z, project::ProjectorOptions options,
                  std::span<double> z, InitializationOutcome* outcome) {
  if (block.row_begin == block.row_end) return true;
  std::vector<double> inverse_weights;
  bool any_fixed = false;
  for (std::size_t j = block.col_begin; j < block.col_end; ++j) {
    inverse_weights.push_back(fixed_z[j] ? 0.0 : 1.0);
    any_fixed = any_fixed || fixed_z[j];
  }
  // The error weights measure a step's error; the given initial values are not one, and the
  // corrections are reported in the user's units: initialization stays Euclidean for them.
  if (any_fixed || options.metric == project::Metric::kWeighted) {
    options.metric = project::Metric::kEuclidean;
  }
  project::NewtonProjection newton;
  newton.Resize(model, block, options);
  if (any_fixed) newton.SetInverseWeights(inverse_weights);
  // The local Newton finds the closest point wherever it converges; from far off the manifold
  // (it stopped on a growing residual, a singular Jacobian or the limit) the globalized one
  // starts again from the given values and finds a point on the manifold.
  const std::vector<double> given(z.begin(), z.end());
  project::ProjectionReport report;
  bool ok = newton.Project(model, t, z, &report);
  if (!ok) {
    outcome->report.iterations += report.iterations;
    std::copy(given.begin(), given.end(), z.begin());
    ok = newton.ProjectFromAfar(model, t, z, &report);
  }
  outcome->report.iterations += report.iterations;
  if (!ok) SetFailure(outcome, FromProjection(report.status), t, report.message);
  return ok;
}

}  // namespace

InitializationOutcome InitializeConsistently(reduce::ReducedModel& model, double t,
                                             std::span<double> state,
                                             const std::vector<bool>& fixed,
                                             const project::ProjectorOptions& options,
                                             std::span<double> z) {
  InitializationOutcome outcome;
  const std::vector<double> given(state.begin(), state.end());
  model.SetFullState(state, z);
  InitializationReport& report = outcome.report;
  if (!model.Residuals(t, z, &report.residual_position_before, &report.residual_velocity_before)) {
    SetFailure(&outcome, FromEval(model.failure().status), t, model.failure().message);
    return outcome;
  }
  const std::vector<bool> fixed_z(fixed.begin(), fixed.begin() + static_cast<long>(z.size()));
  const std::size_t p = model.position_size();
  const std::size_t m1 = model.num_position_invariants();
  const reduce::InitializationPlan plan = model.initialization_plan();
  if (plan.position &&
      !ProjectBlock(model, t, project::Block{0, p, 0, m1}, fixed_z, options, z, &outcome)) {
    return outcome;
  }
  const project::Block velocity{p, model.ode_size(), m1, model.num_invariants()};
  if (plan.velocity && !ProjectBlock(model, t, velocity, fixed_z, options, z, &outcome)) {
    return outcome;
  }
  if (!model.InitializeAuxiliary(t, z, state, &report.iterations)) {
    SetFailure(&outcome, FromEval(model.failure().status), t, model.failure().message);
    return outcome;
  }
  model.FullState(z, state);
  if (!model.Residuals(t, z, &report.residual_position_after, &report.residual_velocity_after)) {
    SetFailure(&outcome, FromEval(model.failure().status), t, model.failure().message);
    return outcome;
  }
  const std::vector<const model::Variable*> variables = model.model().states();
  for (std::size_t i = 0; i < state.size(); ++i) {
    if (state[i] != given[i]) report.changes.push_back({variables[i]->name, given[i], state[i]});
  }
  return outcome;
}

}  // namespace tether::simulate
