// Projection::kNone: the state is left as the stepper produced it, so the invariants drift
// (chapter 11: ‖q‖² − ℓ² of the pendulum grows with time). Only measures the residuals.
#pragma once

#include "tether/project/projector.h"

namespace tether::project {

class NoneProjector : public Projector {
 public:
  [[nodiscard]] std::string_view name() const override {
    return ProjectionName(Method::kNone);
  }
  [[nodiscard]] std::unique_ptr<Projector> Clone() const override;
  void Resize(const reduce::ReducedModel& model) override;
  bool Project(reduce::ReducedModel& model, double t, std::span<double> z,
               ProjectionReport* report) override;
};

// Fills the report's residuals at z without changing it (shared with BaumgarteProjector).
bool MeasureOnly(reduce::ReducedModel& model, double t, std::span<const double> z,
                 ProjectionReport* report);

}  // namespace tether::project
