// SUNDIALS IDA (6.4) on the planar chain in the stabilized index-2 form of Gear, Gupta and
// Leimkuhler (GGL), the peer tether is measured against.
//
// Unknowns y = (q, v, λ, μ) (2n + 2n + n + n), residual F(t, y, y') = 0:
//   q' − v − Φ_qᵀ μ = 0        (μ: the GGL multiplier that keeps q on Φ = 0; μ = 0 exactly)
//   M v' − Φ_qᵀ λ − f = 0      (chapter 11's sign convention)
//   Φ(q) = 0
//   Φ_q v = 0
// λ and μ are algebraic: IDASetId marks them, IDASetSuppressAlg excludes them from the local
// error test (their error is of index-2 order and would otherwise force tiny steps). The
// Jacobian ∂F/∂y + c_j ∂F/∂y' is supplied analytically (chain.h gives every block), so IDA
// spends no residual calls on difference quotients. Initial values are consistent by
// construction: λ0 and v'0 from the Schur complement (ChainKinematics::Accelerations), μ0 = 0.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Dense>

#include "common/chain.h"

namespace tether::bench {

struct IdaOptions {
  double rtol = 1e-6;  // IDASStolerances relative tolerance, > 0
  double atol = 1e-6;  // absolute tolerance [state units], > 0
  double t_end = 50.0;  // [s], > 0
  int outputs = 1000;   // equally spaced output times in (0, t_end], ≥ 1
  long max_steps = 1'000'000;  // total IDA steps before giving up, ≥ 1
  // First step tried [s], ≥ 0; 0 = IDA's own estimate. That estimate scales with the
  // tolerance, and at rtol ≤ 1e-8 it is so small that the index-2 iteration matrix, whose
  // condition grows like h⁻², is numerically singular: IDA then fails at t = 0 with
  // IDA_CONV_FAIL. Starting at 1e-4 s lets the error test shrink the step only as far as needed.
  double initial_step = 1e-4;

  bool IsValid(std::string* why) const;
};

struct IdaRun {
  bool ok = false;
  std::string message;  // IDA's return flag name and time on failure
  Eigen::VectorXd q_end, v_end;
  double max_residual = 0.0;  // largest ‖Φ‖∞ over the output points
  long steps = 0;
  long residual_evaluations = 0;
  long jacobian_evaluations = 0;
};

// Integrates the chain from (q0, v0) (which must satisfy Φ = 0, Φ_q v = 0) over [0, t_end].
IdaRun RunIda(const ChainKinematics& kinematics, const Eigen::VectorXd& q0,
              const Eigen::VectorXd& v0, const IdaOptions& options);

}  // namespace tether::bench
