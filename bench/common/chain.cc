#include "common/chain.h"

#include <cmath>
#include <cstddef>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

namespace tether::bench {
namespace {

// Index of a coordinate: x_k at 2k, y_k at 2k + 1 (k 0-based).
Eigen::Index X(int k) { return 2 * k; }
Eigen::Index Y(int k) { return 2 * k + 1; }

// θ'' of the minimal-coordinate equations (header), in long double with no allocation: the
// reference integration calls it millions of times.
class AngleOde {
 public:
  explicit AngleOde(const Chain& chain) : n_(static_cast<std::size_t>(chain.links())) {
    beyond_.assign(n_ * n_, 0.0L);
    for (std::size_t i = 0; i < n_; ++i) {
      length_.push_back(chain.lengths[i]);
      for (std::size_t j = 0; j < n_; ++j) {
        for (std::size_t k = std::max(i, j); k < n_; ++k) beyond_[i * n_ + j] += chain.masses[k];
      }
    }
    gravity_ = chain.gravity;
    matrix_.resize(n_ * n_);
  }

  // acceleration ← θ''(θ, ω): assembles the mass matrix and solves by Gaussian elimination
  // (symmetric positive definite, so no pivoting is needed).
  void Acceleration(const std::vector<long double>& theta, const std::vector<long double>& omega,
                    std::vector<long double>* acceleration) {
    std::vector<long double>& b = *acceleration;
    b.assign(n_, 0.0L);
    for (std::size_t i = 0; i < n_; ++i) {
      for (std::size_t j = 0; j < n_; ++j) {
        const long double c = beyond_[i * n_ + j] * length_[i] * length_[j];
        const long double diff = theta[i] - theta[j];
        matrix_[i * n_ + j] = c * std::cos(diff);
        b[i] -= c * std::sin(diff) * omega[j] * omega[j];
      }
      b[i] -= gravity_ * length_[i] * std::sin(theta[i]) * beyond_[i * n_ + i];
    }
    for (std::size_t p = 0; p < n_; ++p) {
      for (std::size_t r = p + 1; r < n_; ++r) {
        const long double factor = matrix_[r * n_ + p] / matrix_[p * n_ + p];
        for (std::size_t c = p; c < n_; ++c) matrix_[r * n_ + c] -= factor * matrix_[p * n_ + c];
        b[r] -= factor * b[p];
      }
    }
    for (std::size_t p = n_; p-- > 0;) {
      for (std::size_t c = p + 1; c < n_; ++c) b[p] -= matrix_[p * n_ + c] * b[c];
      b[p] /= matrix_[p * n_ + p];
    }
  }

 private:
  std::size_t n_;
  std::vector<long double> beyond_;  // μ_ij
  std::vector<long double> length_;
  long double gravity_ = 0.0L;
  std::vector<long double> matrix_;
};

}  // namespace

Chain SeedPendulum() { return Chain{.masses = {2.0}, .lengths = {2.5}, .gravity = 9.81}; }

AngleState SeedPendulumStart() {
  // atan2 is scale invariant, so projecting (0.86, 2.35) onto the circle keeps the angle.
  return AngleState{.angle = {std::atan2(0.86L, -2.35L)}, .rate = {0.0L}};
}

void ToCartesian(const Chain& chain, const AngleState& state, Eigen::VectorXd* q,
                 Eigen::VectorXd* v) {
  const int n = chain.links();
  q->resize(2 * n);
  v->resize(2 * n);
  long double px = 0, py = 0, ux = 0, uy = 0;
  for (int k = 0; k < n; ++k) {
    const auto index = static_cast<std::size_t>(k);
    const auto l = static_cast<long double>(chain.lengths[index]);
    const long double s = std::sin(state.angle[index]);
    const long double c = std::cos(state.angle[index]);
    px += l * s;
    py -= l * c;
    ux += l * c * state.rate[index];
    uy += l * s * state.rate[index];
    (*q)(X(k)) = static_cast<double>(px);
    (*q)(Y(k)) = static_cast<double>(py);
    (*v)(X(k)) = static_cast<double>(ux);
    (*v)(Y(k)) = static_cast<double>(uy);
  }
}

AngleState IntegrateAngles(const Chain& chain, const AngleState& start, double t_end, long steps) {
  const std::size_t n = start.angle.size();
  AngleOde ode(chain);
  std::vector<long double> theta = start.angle, omega = start.rate;
  std::vector<long double> k1w, k2w, k3w, k4w, k2t(n), k3t(n), k4t(n), t2(n), t3(n), t4(n);
  const long double h = static_cast<long double>(t_end) / static_cast<long double>(steps);
  for (long s = 0; s < steps; ++s) {
    // Classical RK4 on (θ, ω)' = (ω, θ''(θ, ω)); the θ-stages are k_it, the ω-stages k_iw.
    ode.Acceleration(theta, omega, &k1w);
    for (std::size_t i = 0; i < n; ++i) {
      k2t[i] = omega[i] + 0.5L * h * k1w[i];
      t2[i] = theta[i] + 0.5L * h * omega[i];
    }
    ode.Acceleration(t2, k2t, &k2w);
    for (std::size_t i = 0; i < n; ++i) {
      k3t[i] = omega[i] + 0.5L * h * k2w[i];
      t3[i] = theta[i] + 0.5L * h * k2t[i];
    }
    ode.Acceleration(t3, k3t, &k3w);
    for (std::size_t i = 0; i < n; ++i) {
      k4t[i] = omega[i] + h * k3w[i];
      t4[i] = theta[i] + h * k3t[i];
    }
    ode.Acceleration(t4, k4t, &k4w);
    for (std::size_t i = 0; i < n; ++i) {
      theta[i] += (h / 6.0L) * (omega[i] + 2.0L * k2t[i] + 2.0L * k3t[i] + k4t[i]);
      omega[i] += (h / 6.0L) * (k1w[i] + 2.0L * k2w[i] + 2.0L * k3w[i] + k4w[i]);
    }
  }
  return AngleState{.angle = theta, .rate = omega};
}

ChainKinematics::ChainKinematics(Chain chain) : chain_(std::move(chain)) {
  const int n = chain_.links();
  mass_.resize(2 * n);
  force_.resize(2 * n);
  for (int k = 0; k < n; ++k) {
    const double m = chain_.masses[static_cast<std::size_t>(k)];
    mass_(X(k)) = m;
    mass_(Y(k)) = m;
    force_(X(k)) = 0.0;
    force_(Y(k)) = -m * chain_.gravity;
  }
}

void ChainKinematics::Phi(const In& q, Eigen::VectorXd* phi) const {
  const int n = chain_.links();
  phi->resize(n);
  for (int k = 0; k < n; ++k) {
    const double dx = q(X(k)) - (k > 0 ? q(X(k - 1)) : 0.0);
    const double dy = q(Y(k)) - (k > 0 ? q(Y(k - 1)) : 0.0);
    const double l = chain_.lengths[static_cast<std::size_t>(k)];
    (*phi)(k) = dx * dx + dy * dy - l * l;
  }
}

void ChainKinematics::PhiQ(const In& q, Eigen::MatrixXd* phi_q) const {
  const int n = chain_.links();
  phi_q->setZero(n, 2 * n);
  for (int k = 0; k < n; ++k) {
    const double dx = q(X(k)) - (k > 0 ? q(X(k - 1)) : 0.0);
    const double dy = q(Y(k)) - (k > 0 ? q(Y(k - 1)) : 0.0);
    (*phi_q)(k, X(k)) = 2.0 * dx;
    (*phi_q)(k, Y(k)) = 2.0 * dy;
    if (k > 0) {
      (*phi_q)(k, X(k - 1)) = -2.0 * dx;
      (*phi_q)(k, Y(k - 1)) = -2.0 * dy;
    }
  }
}

void ChainKinematics::H(const In& q, const In& v,
                        Eigen::VectorXd* h) const {
  const int n = chain_.links();
  h->resize(n);
  for (int k = 0; k < n; ++k) {
    const double dx = q(X(k)) - (k > 0 ? q(X(k - 1)) : 0.0);
    const double dy = q(Y(k)) - (k > 0 ? q(Y(k - 1)) : 0.0);
    const double ux = v(X(k)) - (k > 0 ? v(X(k - 1)) : 0.0);
    const double uy = v(Y(k)) - (k > 0 ? v(Y(k - 1)) : 0.0);
    (*h)(k) = 2.0 * (dx * ux + dy * uy);
  }
}

void ChainKinematics::A(const In& v, Eigen::VectorXd* a) const {
  const int n = chain_.links();
  a->resize(n);
  for (int k = 0; k < n; ++k) {
    const double ux = v(X(k)) - (k > 0 ? v(X(k - 1)) : 0.0);
    const double uy = v(Y(k)) - (k > 0 ? v(Y(k - 1)) : 0.0);
    (*a)(k) = 2.0 * (ux * ux + uy * uy);
  }
}

void ChainKinematics::PhiHessian(const In& w, Eigen::MatrixXd* out) const {
  const int n = chain_.links();
  out->setZero(2 * n, 2 * n);
  for (int k = 0; k < n; ++k) {
    // ∇²Φ_k = 2 [I −I; −I I] on the blocks (p_k, p_{k−1}); 2I alone for the first rod.
    const double c = 2.0 * w(k);
    for (int axis = 0; axis < 2; ++axis) {
      const Eigen::Index i = 2 * k + axis;
      (*out)(i, i) += c;
      if (k > 0) {
        const Eigen::Index j = 2 * (k - 1) + axis;
        (*out)(j, j) += c;
        (*out)(i, j) -= c;
        (*out)(j, i) -= c;
      }
    }
  }
}

void ChainKinematics::Accelerations(const In& q, const In& v, Eigen::VectorXd* acceleration,
                                    Eigen::VectorXd* lambda) const {
  Eigen::MatrixXd phi_q;
  Eigen::VectorXd a;
  PhiQ(q, &phi_q);
  A(v, &a);
  const Eigen::VectorXd inverse_mass = mass_.cwiseInverse();
  const Eigen::MatrixXd schur = phi_q * inverse_mass.asDiagonal() * phi_q.transpose();
  *lambda = schur.ldlt().solve(-a - phi_q * inverse_mass.cwiseProduct(force_));
  // v' = M⁻¹ (f + Φ_qᵀ λ)
  *acceleration = inverse_mass.cwiseProduct(force_ + phi_q.transpose() * *lambda);
}

std::string ChainSpecJson(const Chain& chain, const AngleState& start, const std::string& name) {
  using Json = nlohmann::ordered_json;
  const int n = chain.links();
  Eigen::VectorXd q, v;
  ToCartesian(chain, start, &q, &v);
  Json spec;
  spec["name"] = name;
  spec["title"] = "Planar chain of " + std::to_string(n) + " point masses (benchmark)";
  spec["form"] = "mechanical";
  Json parameters = Json::object();
  Json coordinates = Json::array(), velocities = Json::array(), mass = Json::array();
  Json forces = Json::array(), constraints = Json::array(), initial = Json::object();
  parameters["g"] = {{"value", chain.gravity}};
  for (int k = 1; k <= n; ++k) {
    const std::string s = std::to_string(k);
    const auto index = static_cast<std::size_t>(k - 1);
    parameters["m" + s] = {{"value", chain.masses[index]}};
    parameters["l" + s] = {{"value", chain.lengths[index]}};
    coordinates.push_back("x" + s);
    coordinates.push_back("y" + s);
    velocities.push_back("vx" + s);
    velocities.push_back("vy" + s);
    mass.push_back("m" + s);
    mass.push_back("m" + s);
    forces.push_back(0);
    forces.push_back("-m" + s + "*g");
    const std::string p = std::to_string(k - 1);
    const std::string dx = k == 1 ? "x1" : "(x" + s + " - x" + p + ")";
    const std::string dy = k == 1 ? "y1" : "(y" + s + " - y" + p + ")";
    constraints.push_back(dx + "^2 + " + dy + "^2 - l" + s + "^2");
    initial["x" + s] = q(X(k - 1));
    initial["y" + s] = q(Y(k - 1));
    initial["vx" + s] = v(X(k - 1));
    initial["vy" + s] = v(Y(k - 1));
  }
  spec["parameters"] = parameters;
  spec["coordinates"] = coordinates;
  spec["velocities"] = velocities;
  spec["mass"] = mass;
  spec["forces"] = forces;
  spec["constraints"] = constraints;
  spec["initial"] = initial;
  return spec.dump(2);
}

AngleState ChainStart(int links) {
  AngleState start;
  for (int k = 0; k < links; ++k) {
    start.angle.push_back(0.3L + 0.05L * k);
    start.rate.push_back(0.0L);
  }
  return start;
}

Chain UnitChain(int links) {
  return Chain{.masses = std::vector<double>(static_cast<std::size_t>(links), 1.0),
               .lengths = std::vector<double>(static_cast<std::size_t>(links), 1.0),
               .gravity = 9.81};
}

}  // namespace tether::bench
