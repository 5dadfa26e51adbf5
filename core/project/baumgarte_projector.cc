#include "project/baumgarte_projector.h"

#include "project/none_projector.h"

namespace tether::project {

std::unique_ptr<Projector> BaumgarteProjector::Clone() const {
  return std::make_unique<BaumgarteProjector>(*this);
}

void BaumgarteProjector::Resize(const reduce::ReducedModel&) {}

bool BaumgarteProjector::Project(reduce::ReducedModel& model, double t, std::span<double> z,
                                 ProjectionReport* report) {
  return MeasureOnly(model, t, z, report);
}

}  // namespace tether::project
