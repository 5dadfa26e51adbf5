// Projection::kSequential (§20.3 approximate algorithm): first the position block z[0, P)
// onto the position invariants (Φ, or g) by Newton, then the velocity block z[P, N) onto the
// velocity invariants (h) at the projected positions. For the mechanical form h = Φ_q v + Φ_t
// is linear in v at fixed q, so the second Newton ends after one step (and one check).
// The same scaled tolerance applies to both levels (projector.h).
#pragma once

#include "tether/project/newton_projection.h"
#include "tether/project/projector.h"

namespace tether::project {

class SequentialProjector : public Projector {
 public:
  explicit SequentialProjector(const ProjectorOptions& options) : options_(options) {}
  [[nodiscard]] std::string_view name() const override {
    return ProjectionName(Method::kSequential);
  }
  [[nodiscard]] std::unique_ptr<Projector> Clone() const override;
  void Resize(const reduce::ReducedModel& model) override;
  bool Project(reduce::ReducedModel& model, double t, std::span<double> z,
               ProjectionReport* report) override;

 private:
  ProjectorOptions options_;
  NewtonProjection positions_;
  NewtonProjection velocities_;
};

}  // namespace tether::project
