#include "ida_pendulum/projected_rk4.h"

#include <algorithm>
#include <cmath>

namespace tether::bench {
namespace {

// z' = F(z) of the reduced ODE, z = (q, v).
class ReducedOde {
 public:
  explicit ReducedOde(const ChainKinematics& kinematics) : k_(kinematics) {}

  void Evaluate(const Eigen::VectorXd& z, Eigen::VectorXd* dz) {
    const Eigen::Index n2 = z.size() / 2;
    k_.Accelerations(z.head(n2), z.tail(n2), &acceleration_, &lambda_);
    dz->resize(z.size());
    *dz << z.tail(n2), acceleration_;
  }

 private:
  const ChainKinematics& k_;
  Eigen::VectorXd acceleration_, lambda_;
};

// Coupled Newton projection of the header; returns false if it did not converge.
bool Project(const ChainKinematics& k, const ProjectedRk4Options& options, Eigen::VectorXd* z) {
  const Eigen::Index n2 = z->size() / 2, m = n2 / 2;
  const Eigen::VectorXd target = *z;
  Eigen::VectorXd phi, h, residual(2 * m);
  Eigen::MatrixXd phi_q, phi_q_v, jacobian = Eigen::MatrixXd::Zero(2 * m, 2 * n2);
  for (int iteration = 0; iteration <= options.max_iterations; ++iteration) {
    k.Phi(z->head(n2), &phi);
    k.H(z->head(n2), z->tail(n2), &h);
    residual << phi, h;
    if (residual.lpNorm<Eigen::Infinity>() <= options.tolerance) return true;
    if (iteration == options.max_iterations) break;
    k.PhiQ(z->head(n2), &phi_q);
    k.PhiQ(z->tail(n2), &phi_q_v);
    jacobian.topLeftCorner(m, n2) = phi_q;
    jacobian.bottomLeftCorner(m, n2) = phi_q_v;
    jacobian.bottomRightCorner(m, n2) = phi_q;
    const Eigen::VectorXd gap = target - *z;
    const Eigen::VectorXd mu = (jacobian * jacobian.transpose())
                                   .ldlt()
                                   .solve(-residual - jacobian * gap);
    *z += gap + jacobian.transpose() * mu;  // z ← z + δz
  }
  return false;
}

}  // namespace

bool ProjectedRk4Options::IsValid(std::string* why) const {
  auto fail = [why](const std::string& text) {
    if (why != nullptr) *why = "ProjectedRk4Options::" + text;
    return false;
  };
  if (!(step > 0.0)) return fail("step = " + std::to_string(step) + "; must be > 0");
  if (!(t_end > 0.0)) return fail("t_end = " + std::to_string(t_end) + "; must be > 0");
  if (outputs < 1) return fail("outputs = " + std::to_string(outputs) + "; must be >= 1");
  const double per_output = t_end / outputs / step;
  if (std::abs(per_output - std::round(per_output)) > 1e-9 * per_output) {
    return fail("step = " + std::to_string(step) + "; must divide t_end / outputs");
  }
  if (!(tolerance > 0.0)) return fail("tolerance = " + std::to_string(tolerance) + "; must be > 0");
  if (max_iterations < 1) return fail("max_iterations must be >= 1");
  return true;
}

ProjectedRk4Run RunProjectedRk4(const ChainKinematics& kinematics, const Eigen::VectorXd& q0,
                                const Eigen::VectorXd& v0, const ProjectedRk4Options& options) {
  ProjectedRk4Run run;
  if (!options.IsValid(&run.message)) return run;
  const Eigen::Index n2 = q0.size();
  const long per_output = std::lround(options.t_end / options.outputs / options.step);
  ReducedOde ode(kinematics);
  Eigen::VectorXd z(2 * n2), k1, k2, k3, k4, phi;
  z << q0, v0;
  const double h = options.step;
  for (int output = 1; output <= options.outputs; ++output) {
    for (long s = 0; s < per_output; ++s, ++run.steps) {
      ode.Evaluate(z, &k1);
      ode.Evaluate(z + 0.5 * h * k1, &k2);
      ode.Evaluate(z + 0.5 * h * k2, &k3);
      ode.Evaluate(z + h * k3, &k4);
      z += (h / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
      if (!Project(kinematics, options, &z)) {
        run.message = "projection did not converge at step " + std::to_string(run.steps);
        return run;
      }
    }
    kinematics.Phi(z.head(n2), &phi);
    run.max_residual = std::max(run.max_residual, phi.lpNorm<Eigen::Infinity>());
  }
  run.ok = true;
  run.q_end = z.head(n2);
  run.v_end = z.tail(n2);
  return run;
}

}  // namespace tether::bench
