#include "ida_pendulum/tether_chain.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "common/cpu_timer.h"
#include "tether/simulate/simulation.h"

namespace tether::bench {

std::shared_ptr<const model::Model> ParseChainModel(const std::string& spec, std::string* why) {
  model::ModelResult parsed = model::ParseModel(spec);
  if (!parsed.ok() && why != nullptr) *why = parsed.ErrorText();
  return parsed.model;
}

TetherRun RunTether(const std::shared_ptr<const model::Model>& model,
                    const TetherRunOptions& options) {
  TetherRun run;
  simulate::Setup setup;
  setup.model = model;
  setup.options.method = options.method;
  setup.options.rtol = options.tolerance;
  setup.options.atol = options.tolerance;
  setup.options.step = options.step;
  setup.options.projection = simulate::Projection::kCoupled;
  setup.options.projection_tolerance = options.projection_tolerance;
  setup.options.t_end = options.t_end;
  setup.options.output_interval = options.t_end / options.outputs;

  const double create_start = ProcessCpuSeconds();
  simulate::CreateResult created = simulate::Simulation::Create(setup);
  run.create_cpu_seconds = ProcessCpuSeconds() - create_start;
  if (created.simulation == nullptr) {
    run.message = created.status.message;
    for (const simulate::SetupProblem& p : created.problems) run.message += p.path + ": " + p.message + "; ";
    return run;
  }
  simulate::Simulation& simulation = *created.simulation;
  const auto n2 = static_cast<Eigen::Index>(model->coordinates.size());
  // Where each state (q then v, model::Model::states()) sits among the streamed columns.
  std::vector<std::size_t> where;
  for (const model::Variable* state : model->states()) {
    for (std::size_t c = 0; c < simulation.columns().size(); ++c) {
      if (simulation.columns()[c].name == state->name) where.push_back(c);
    }
  }
  if (where.size() != static_cast<std::size_t>(2 * n2)) {
    run.message = "the simulation does not stream every state as a column";
    return run;
  }
  Eigen::VectorXd last(2 * n2);
  const simulate::Status status = simulation.Advance(
      std::numeric_limits<std::size_t>::max(), [&](const simulate::Sample& sample) {
        for (Eigen::Index i = 0; i < 2 * n2; ++i) {
          last(i) = sample.values[where[static_cast<std::size_t>(i)]];
        }
        run.max_residual = std::max(run.max_residual, sample.residual_position);
      });
  run.steps = static_cast<long>(simulation.statistics().steps);
  if (status.reason != simulate::Termination::kReachedEnd) {
    run.message = std::string(simulate::TerminationName(status.reason)) + ": " + status.message;
    return run;
  }
  run.ok = true;
  run.q_end = last.head(n2);
  run.v_end = last.tail(n2);
  return run;
}

}  // namespace tether::bench
