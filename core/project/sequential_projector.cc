#include "project/sequential_projector.h"

namespace tether::project {

std::unique_ptr<Projector> SequentialProjector::Clone() const {
  return std::make_unique<SequentialProjector>(*this);
}

void SequentialProjector::Resize(const reduce::ReducedModel& model) {
  const std::size_t p = model.position_size();
  const std::size_t m1 = model.num_position_invariants();
  positions_.Resize(model, Block{0, p, 0, m1}, options_);
  velocities_.Resize(model, Block{p, model.ode_size(), m1, model.num_invariants()}, options_);
}

bool SequentialProjector::Project(reduce::ReducedModel& model, double t, std::span<double> z,
                                  ProjectionReport* report) {
  if (!positions_.Project(model, t, z, report)) return false;
  const int position_iterations = report->iterations;
  const bool ok = velocities_.Project(model, t, z, report);
  report->iterations += position_iterations;
  return ok;
}

}  // namespace tether::project
