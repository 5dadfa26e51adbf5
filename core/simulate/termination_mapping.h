// How the lower layers' failure statuses become a run's termination reason: the one place where
// reduce's and project's outcomes are mapped, for initialization and the step loop alike.
#pragma once

#include "tether/project/projector.h"
#include "tether/reduce/reduced_model.h"
#include "tether/simulate/simulation.h"

namespace tether::simulate {

// A failed evaluation of the reduced model (singular constraint matrix, inner Newton for y not
// converged, non-finite values).
Termination FromEval(reduce::EvalStatus status);

// A failed projection (singular Schur complement, non-finite values, Newton not converged).
Termination FromProjection(project::ProjectionStatus status);

}  // namespace tether::simulate
