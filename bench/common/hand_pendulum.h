// One step of classical RK4 plus the coupled Newton projection for the seed pendulum, written
// by hand with every formula expanded into scalars: the lower bound for tether's generic path.
//
// State z = (x, y, u, w) (position q and velocity v). Reduced ODE (chapter 11, eq. 11.4 with
// qᵀq kept instead of ℓ², so it also holds off the manifold):
//   λ = −m (vᵀv − g y) / (2 qᵀq),   q' = v,   v' = −g e₂ + 2 q λ / m.
// Projection onto H = (qᵀq − ℓ², 2 qᵀv) with W = I: Newton on the KKT system,
//   H_z = [2x 2y 0 0; 2u 2w 2x 2y],   (H_z H_zᵀ) μ = −H − H_z (z̃ − z),
// written as δz = (z̃ − z) + H_zᵀ μ, the 2×2 system solved by Cramer's rule.
#pragma once

#include <array>

namespace tether::bench {

struct HandPendulum {
  double mass = 2.0;      // m [kg]
  double length = 2.5;    // ℓ [m]
  double gravity = 9.81;  // g [m/s²]
  double tolerance = 1e-12;  // Newton stops when max(|Φ|, |h|) ≤ tolerance
  int max_iterations = 10;

  using State = std::array<double, 4>;

  void Rhs(const State& z, State* dz) const;
  // One RK4 step of size h then the projection; returns the Newton iterations used (−1 if it
  // did not converge).
  int Step(double h, State* z) const;
  int Project(State* z) const;
};

}  // namespace tether::bench
