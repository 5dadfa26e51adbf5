#include "project/coupled_projector.h"

namespace tether::project {

std::unique_ptr<Projector> CoupledProjector::Clone() const {
  return std::make_unique<CoupledProjector>(*this);
}

void CoupledProjector::Resize(const reduce::ReducedModel& model) {
  newton_.Resize(model, Block{0, model.ode_size(), 0, model.num_invariants()}, options_);
}

bool CoupledProjector::Project(reduce::ReducedModel& model, double t, std::span<double> z,
                               ProjectionReport* report) {
  return newton_.Project(model, t, z, report);
}

}  // namespace tether::project
