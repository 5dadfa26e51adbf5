// Projection::kBaumgarte (chapter 11's remedy, for comparison): no projection; the drift is
// damped on the acceleration level instead, Φ_q v' = −a − 2α h − β² Φ, which the reduced model
// applies (ReducedModel::SetBaumgarte, set by core/simulate from Options). The residuals stay
// bounded but are not driven to the projection tolerance.
#pragma once

#include "tether/project/projector.h"

namespace tether::project {

class BaumgarteProjector : public Projector {
 public:
  [[nodiscard]] std::string_view name() const override {
    return ProjectionName(Method::kBaumgarte);
  }
  [[nodiscard]] std::unique_ptr<Projector> Clone() const override;
  void Resize(const reduce::ReducedModel& model) override;
  bool Project(reduce::ReducedModel& model, double t, std::span<double> z,
               ProjectionReport* report) override;
};

}  // namespace tether::project
