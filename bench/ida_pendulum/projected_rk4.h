// A hand-written fixed-step classical RK4 on the reduced ODE of the chain, followed after every
// step by the coupled Newton projection onto both invariants — the projection method of the
// source documents (shared/seeds/000, 001 §20.3) with nothing generic in between. It bounds
// what tether's general machinery could reach on the same problem.
//
// Reduced ODE: q' = v, v' from [M −Φ_qᵀ; −Φ_q 0][v'; λ] = [f; a] (ChainKinematics).
// Projection of z̃ = (q̃, ṽ) onto H(z) = (Φ(q), Φ_q v) = 0 with W = I: Newton on the KKT system
//   [I −H_zᵀ; −H_z 0][δz; μ] = [z̃ − z; H(z)],  H_z = [Φ_q 0; Φ_q(v) Φ_q(q)],
// through the Schur complement: (H_z H_zᵀ) μ = −H(z) − H_z (z̃ − z), δz = (z̃ − z) + H_zᵀ μ.
#pragma once

#include <string>

#include <Eigen/Dense>

#include "common/chain.h"

namespace tether::bench {

struct ProjectedRk4Options {
  double step = 1e-3;         // h [s], > 0; t_end / outputs must be a multiple of it
  double t_end = 50.0;        // [s], > 0
  int outputs = 1000;         // output points where ‖Φ‖ is recorded, ≥ 1
  double tolerance = 1e-12;   // Newton stops when ‖H(z)‖∞ ≤ tolerance, > 0
  int max_iterations = 5;     // Newton iterations per projection, ≥ 1

  bool IsValid(std::string* why) const;
};

struct ProjectedRk4Run {
  bool ok = false;
  std::string message;
  Eigen::VectorXd q_end, v_end;
  double max_residual = 0.0;  // largest ‖Φ‖∞ over the output points
  long steps = 0;
};

ProjectedRk4Run RunProjectedRk4(const ChainKinematics& kinematics, const Eigen::VectorXd& q0,
                                const Eigen::VectorXd& v0, const ProjectedRk4Options& options);

}  // namespace tether::bench
