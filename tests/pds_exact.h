// The exact piecewise solutions of the catalog's projected dynamical systems, shared by the
// core, server and client tests (models/pds_half_plane.json and models/pds_disc.json derive them).
#pragma once

#include <cmath>
#include <numbers>
#include <vector>

namespace tether::testing::pds {

// pds_half_plane: x' = x, y' = x − 1 in C = {y ≥ 0} from (a, b) = (0.25, 0.5). Free until
// y = b + a(eᵗ − 1) − t reaches 0 at t_a, sliding on y = 0 with μ = 1 − a eᵗ until t_d = ln(1/a),
// free again with y = a eᵗ − 1 − (t − t_d).
namespace half_plane {

constexpr double kA = 0.25;
constexpr double kB = 0.5;

// t_a by Newton from 0.8: f(t) = b + a(eᵗ − 1) − t is convex and decreasing on [0, ln 4]
// (f' = a eᵗ − 1 < 0) with f(0.8) > 0, so the iterates increase monotonically to the root;
// 50 iterations are far more than quadratic convergence needs for machine precision.
inline double ActivationTime() {
  double t = 0.8;
  for (int k = 0; k < 50; ++k) t -= (kB + kA * (std::exp(t) - 1) - t) / (kA * std::exp(t) - 1);
  return t;
}

inline double DeactivationTime() { return std::log(1 / kA); }

// (x, y) at t.
inline std::vector<double> Exact(double t) {
  static const double t_a = ActivationTime();
  const double t_d = DeactivationTime();
  double y = 0.0;
  if (t < t_a) y = kB + kA * (std::exp(t) - 1) - t;
  if (t > t_d) y = kA * std::exp(t) - 1 - (t - t_d);
  return {kA * std::exp(t), y};
}

}  // namespace half_plane

// pds_disc: θ' = 1, r' = r² sin θ in the unit disc from r0 = 0.8, θ = 0. Free with
// 1/r = 1/r0 + cos t − 1 until t_a = acos(2 − 1/r0), sliding on r = 1 with μ = sin(θ)/2 until
// t_d = π, free again with 1/r = 2 + cos t.
namespace disc {

constexpr double kR0 = 0.8;

inline double ActivationTime() { return std::acos(2 - 1 / kR0); }
inline double DeactivationTime() { return std::numbers::pi; }

// (x, y) at t.
inline std::vector<double> Exact(double t) {
  double r = 1.0;
  if (t < ActivationTime()) r = 1 / (1 / kR0 + std::cos(t) - 1);
  if (t > DeactivationTime()) r = 1 / (2 + std::cos(t));
  return {r * std::cos(t), r * std::sin(t)};
}

}  // namespace disc
}  // namespace tether::testing::pds
