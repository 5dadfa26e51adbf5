// Consistent initialization: move the user's initial values onto every invariant,
// position level first and velocity level second, then solve λ (mechanical) or y (index1/2).
//
//   mechanical: q ← argmin ½‖q − q₀‖²_W s.t. Φ(q, t₀) = 0,
//               v ← argmin ½‖v − v₀‖²_W s.t. h(q, v, t₀) = 0 (linear in v: one Newton step),
//               λ from the stage solve at (q, v).
//   index1:     y from g(x₀, y, t₀) = 0 by Newton from y₀ (x is never moved).
//   index2:     x ← argmin ½‖x − x₀‖² s.t. g(x, t₀) = 0, then y from h(x, y, t₀) = 0.
//   implicit:   z like q then v of the mechanical form, on its two blocks of invariant levels
//               (reduce/implicit_formulation.cc), then w from G(z, w, t₀) = 0 by Newton.
// A value named in Setup::fixed gets an infinite weight (W⁻¹ entry 0): it does not move. With
// fixed values the metric is the Euclidean one on the remaining entries; without, the session's
// metric (W = M for the mass metric), except that the error-weighted metric is replaced by the
// Euclidean one (initial values are not a step's result). Each level is solved by the
// globalized Newton (NewtonProjection::ProjectFromAfar: line search, Levenberg–Marquardt where
// the constraint Jacobian is rank-deficient), within options.max_iterations accepted steps.
#pragma once

#include <span>
#include <vector>

#include "tether/project/projector.h"
#include "tether/reduce/reduced_model.h"
#include "tether/simulate/simulation.h"

namespace tether::simulate {

struct InitializationOutcome {
  InitializationReport report;
  Status status;  // kRunning on success, else the failure (singular, not converged, …)
};

// `state` (over Model::states()) is corrected in place; `z` receives the ODE state and the
// model's auxiliary() the consistent λ or y. `fixed[i]` holds state i.
InitializationOutcome InitializeConsistently(reduce::ReducedModel& model, double t,
                                             std::span<double> state,
                                             const std::vector<bool>& fixed,
                                             const project::ProjectorOptions& options,
                                             std::span<double> z);

}  // namespace tether::simulate
