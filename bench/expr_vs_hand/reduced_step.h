// The same RK4 + coupled-projection step as HandPendulum, with every model quantity from
// tether's compiled programs and the service's own projection: the stages call
// reduce::ReducedModel::Rhs (one program evaluation plus the multiplier solve) in the scalar
// loops of integrate::Rk4, and the step ends in project::NewtonProjection (coupled over all of
// z, Euclidean, its scaled stopping rule at the same tolerance, without the polishing
// correction). The ratio of their times is the price of generality.
#pragma once

#include <span>
#include <vector>

#include "tether/project/newton_projection.h"
#include "tether/reduce/reduced_model.h"

namespace tether::bench {

class ReducedStep {
 public:
  // Keeps a reference to `reduced`, which must outlive this object.
  explicit ReducedStep(reduce::ReducedModel& reduced, double tolerance = 1e-12,
                       int max_iterations = 10);

  // One RK4 step of size h then the projection; the Newton iterations used, −1 on failure.
  int Step(double h, std::span<double> z);
  // The RK4 step alone; false when an evaluation fails.
  bool Advance(double h, std::span<double> z);
  // The projection alone, as Step.
  int Project(std::span<double> z);

 private:
  reduce::ReducedModel& reduced_;
  project::NewtonProjection projection_;
  project::ProjectionReport report_;
  std::vector<double> k_;      // k1 … k4, 4 × n
  std::vector<double> stage_;  // z + c h k, n
};

}  // namespace tether::bench
