// Projection onto the invariants of a reduced model (seeds chapters 19 and 20, DESIGN.md §3).
// After a step gives x̃, a projector solves
//     min ½ ‖z − x̃‖²_W   subject to   H(z, t) = 0
// by Newton on the KKT system  [W  −H_zᵀ; −H_z  0] [δz; μ] = [W(x̃ − z); H(z)]  (see
// newton_projection.h). One file pair per method beside this interface; MakeProjector is the
// registry.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tether/project/method.h"
#include "tether/reduce/reduced_model.h"

namespace tether::project {

struct ProjectorOptions {
  Metric metric = Metric::kEuclidean;
  NewtonVariant newton = NewtonVariant::kFull;
  // Newton stops as soon as max_i |H_i(z)| / s_i ≤ tolerance, with the scale of invariant i
  //   s_i = max(1, ½ Σ_j |∂H_i/∂z_j · z_j|)
  // evaluated at the current z. Σ_j |∂H_i/∂z_j z_j| is the change of H_i under a relative
  // perturbation of every coordinate by 1; for the quadratic constraints of mechanisms
  // (distances, rigid links) half of it is exactly the size of the terms that cancel in H_i
  // (Euler's identity for degree 2), so |H_i| ≤ tolerance·s_i means "zero to `tolerance`
  // relative to its terms". The seed pendulum's Φ = x² + y² − ℓ² has s = x² + y² = ℓ² = 6.25,
  // its h = 2(x vx + y vy) has s = max(1, 2(|x vx| + |y vy|)). > 0.
  double tolerance = 1e-12;
  // Newton fails after this many iterations, or as soon as the scaled residual grows. ≥ 1.
  int max_iterations = 10;
  // Once the residual meets `tolerance` (also before any correction) but is above round-off
  // (64 ε scaled), one more correction, not counted against max_iterations: Newton converges
  // quadratically, so a residual r ≤ tolerance becomes O(r²) — round-off — and the per-step
  // distance left to the manifold no longer accumulates into the trajectory's error. If
  // rounding makes that correction worse than the point it started from, the point is kept.
  bool polish = true;
  // kWeighted only: the error control's tolerances. `weight_atol` holds one value per entry
  // of z, or any other number of values of which the first holds for every entry (> 0 each);
  // weight_rtol ≥ 0.
  double weight_rtol = 1e-8;
  std::vector<double> weight_atol = {1e-10};

  // On failure writes e.g. "ProjectorOptions::tolerance = -1; must be > 0".
  bool IsValid(std::string* why) const;
};

enum class ProjectionStatus {
  kConverged,
  kNotConverged,  // max_iterations reached or the residual grew
  kSingular,      // rank-deficient H_z W⁻¹ H_zᵀ (dependent constraints)
  kNonFinite,     // NaN/∞ in H or H_z
};

// What one projection did.
struct ProjectionReport {
  ProjectionStatus status = ProjectionStatus::kConverged;
  int iterations = 0;               // Newton iterations (0: z was already on the manifold)
  double scaled_residual = 0.0;     // final max_i |H_i| / s_i
  double residual_position = 0.0;   // final ‖Φ‖∞ (or ‖g‖∞), unscaled
  double residual_velocity = 0.0;   // final ‖h‖∞, unscaled (0 when there is no velocity level)
  std::string message;              // on failure: t, iterations, residual, likely cause
};

class Projector {
 public:
  virtual ~Projector() = default;

  [[nodiscard]] virtual std::string_view name() const = 0;  // ProjectionName of its method
  [[nodiscard]] virtual std::unique_ptr<Projector> Clone() const = 0;

  // Allocates the work memory for `model`'s sizes; Project does not allocate afterwards.
  virtual void Resize(const reduce::ReducedModel& model) = 0;

  // Projects the state z (at time t, just after a step) onto the invariants in place. On
  // failure z holds the last Newton iterate and `report` says why; the caller keeps its last
  // good state. `report` is always filled (the residuals even for kNone/kBaumgarte).
  virtual bool Project(reduce::ReducedModel& model, double t, std::span<double> z,
                       ProjectionReport* report) = 0;
};

// nullptr if `options` is invalid.
std::unique_ptr<Projector> MakeProjector(Method method, const ProjectorOptions& options);

}  // namespace tether::project
