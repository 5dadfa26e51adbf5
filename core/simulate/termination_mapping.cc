#include "simulate/termination_mapping.h"

namespace tether::simulate {

Termination FromEval(reduce::EvalStatus status) {
  switch (status) {
    case reduce::EvalStatus::kSingular:
      return Termination::kSingularConstraints;
    case reduce::EvalStatus::kNotConverged:
      return Termination::kProjectionFailed;
    default:
      return Termination::kNonFinite;
  }
}

Termination FromProjection(project::ProjectionStatus status) {
  switch (status) {
    case project::ProjectionStatus::kSingular:
      return Termination::kSingularConstraints;
    case project::ProjectionStatus::kNonFinite:
      return Termination::kNonFinite;
    default:
      return Termination::kProjectionFailed;
  }
}

}  // namespace tether::simulate
