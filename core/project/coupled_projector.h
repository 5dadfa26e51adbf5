// Projection::kCoupled (§20.2/§20.3 full algorithm): one Newton on the KKT system for all
// invariants H = [Φ; h] (or [g; h]) in all of z,
//     [W  −H_zᵀ; −H_z  0] [δz; μ] = [W(x̃ − z); H(z)],
// through the Schur complement H_z W⁻¹ H_zᵀ (newton_projection.h).
#pragma once

#include "tether/project/newton_projection.h"
#include "tether/project/projector.h"

namespace tether::project {

class CoupledProjector : public Projector {
 public:
  explicit CoupledProjector(const ProjectorOptions& options) : options_(options) {}
  [[nodiscard]] std::string_view name() const override {
    return ProjectionName(Method::kCoupled);
  }
  [[nodiscard]] std::unique_ptr<Projector> Clone() const override;
  void Resize(const reduce::ReducedModel& model) override;
  bool Project(reduce::ReducedModel& model, double t, std::span<double> z,
               ProjectionReport* report) override;

 private:
  ProjectorOptions options_;
  NewtonProjection newton_;
};

}  // namespace tether::project
