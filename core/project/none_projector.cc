#include "project/none_projector.h"

namespace tether::project {

bool MeasureOnly(reduce::ReducedModel& model, double t, std::span<const double> z,
                 ProjectionReport* report) {
  report->status = ProjectionStatus::kConverged;
  report->iterations = 0;
  report->scaled_residual = 0.0;
  report->message.clear();
  if (!model.Residuals(t, z, &report->residual_position, &report->residual_velocity)) {
    report->status = ProjectionStatus::kNonFinite;
    report->message = model.failure().message;
    return false;
  }
  return true;
}

std::unique_ptr<Projector> NoneProjector::Clone() const {
  return std::make_unique<NoneProjector>(*this);
}

void NoneProjector::Resize(const reduce::ReducedModel&) {}

bool NoneProjector::Project(reduce::ReducedModel& model, double t, std::span<double> z,
                            ProjectionReport* report) {
  return MeasureOnly(model, t, z, report);
}

}  // namespace tether::project
