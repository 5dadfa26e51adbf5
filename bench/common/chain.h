// A planar chain of n point masses on massless rods, hanging from a fixed pivot at the origin:
// the seed pendulum (n = 1, shared/seeds/002, example 11.1) and its generalisations, the double
// pendulum (n = 2) and the chains of the model-size scaling benchmark.
//
// Cartesian (DAE) form, with the sign convention of chapter 11 (DESIGN.md §3):
//   q = (x_1, y_1, …, x_n, y_n),  v = q',  M = diag(m_1, m_1, …, m_n, m_n),
//   f = −g (0, m_1, 0, m_2, …),   Φ_k = |d_k|² − ℓ_k²,  d_k = p_k − p_{k−1},  p_0 = 0,
//   M v' − Φ_qᵀ λ = f,   h_k = (Φ_q v)_k = 2 d_kᵀ (u_k − u_{k−1}),  a_k = 2 |u_k − u_{k−1}|²,
// where u_k is the velocity of mass k; differentiating h gives Φ_q v' = −a.
//
// Minimal-coordinate form (the reference): θ_k is the angle of rod k from the downward vertical,
// p_k = p_{k−1} + ℓ_k (sin θ_k, −cos θ_k). Lagrange's equations give
//   Σ_j μ_ij ℓ_i ℓ_j cos(θ_i − θ_j) θ_j'' = −Σ_j μ_ij ℓ_i ℓ_j sin(θ_i − θ_j) θ_j'² − g ℓ_i sin θ_i μ_ii
// with μ_ij = Σ_{k ≥ max(i,j)} m_k (the mass beyond both joints).
#pragma once

#include <string>
#include <vector>

#include <Eigen/Dense>

namespace tether::bench {

struct Chain {
  std::vector<double> masses;   // m_k [kg], > 0
  std::vector<double> lengths;  // ℓ_k [m], > 0
  double gravity = 9.81;        // g [m/s²]

  [[nodiscard]] int links() const { return static_cast<int>(masses.size()); }
  [[nodiscard]] int coordinates() const { return 2 * links(); }
};

// State in minimal coordinates: angles θ [rad] and their rates θ' [rad/s].
struct AngleState {
  std::vector<long double> angle;
  std::vector<long double> rate;
};

// The seed pendulum: m = 2 kg, ℓ = 2.5 m, g = 9.81 m/s² (shared/seeds/002, example 11.1).
Chain SeedPendulum();
// The seed's initial position (0.86, 2.35) m scaled onto the circle of radius ℓ, at rest:
// θ0 = atan2(x, −y).
AngleState SeedPendulumStart();

// Cartesian positions and velocities (q, v) of an angle state.
void ToCartesian(const Chain& chain, const AngleState& state, Eigen::VectorXd* q, Eigen::VectorXd* v);

// Integrates the minimal-coordinate ODE from `start` over [0, t_end] with classical RK4 in long
// double (64-bit mantissa) and `steps` equal steps. RK4's global error is C·h⁴; the caller
// estimates it by comparing with steps/2 (the difference is 15/16 of the coarser one's error).
AngleState IntegrateAngles(const Chain& chain, const AngleState& start, double t_end, long steps);

// Constraint kinematics of the Cartesian form, evaluated with Eigen (no allocation once sized).
class ChainKinematics {
 public:
  explicit ChainKinematics(Chain chain);

  [[nodiscard]] const Chain& chain() const { return chain_; }
  [[nodiscard]] const Eigen::VectorXd& mass_diagonal() const { return mass_; }
  [[nodiscard]] const Eigen::VectorXd& force() const { return force_; }

  using In = Eigen::Ref<const Eigen::VectorXd>;

  void Phi(const In& q, Eigen::VectorXd* phi) const;             // Φ(q), n
  // Φ_q, n × 2n. Φ_q is linear in q, so PhiQ(v) is also ∂(Φ_q v)/∂q.
  void PhiQ(const In& q, Eigen::MatrixXd* phi_q) const;
  void H(const In& q, const In& v, Eigen::VectorXd* h) const;    // h = Φ_q v, n
  void A(const In& v, Eigen::VectorXd* a) const;                 // a = (Φ_q v)_q v, n
  // ∂(Φ_qᵀ w)/∂q for a multiplier vector w: Σ_k w_k ∇²Φ_k (2n × 2n, constant blocks ±2I).
  void PhiHessian(const In& w, Eigen::MatrixXd* out) const;
  // Consistent accelerations and multipliers at (q, v): the Schur complement of
  // [M −Φ_qᵀ; −Φ_q 0][v'; λ] = [f; a] gives (Φ_q M⁻¹ Φ_qᵀ) λ = −a − Φ_q M⁻¹ f.
  void Accelerations(const In& q, const In& v, Eigen::VectorXd* acceleration,
                     Eigen::VectorXd* lambda) const;

 private:
  Chain chain_;
  Eigen::VectorXd mass_;
  Eigen::VectorXd force_;
};

// The model spec (JSON text, docs/models.md) of the chain in Cartesian mechanical form, with
// coordinates x1, y1, …, velocities vx1, vy1, …, parameters m1…, l1…, g and initial values.
std::string ChainSpecJson(const Chain& chain, const AngleState& start, const std::string& name);

// The scaling benchmarks' chain of `links` unit masses on unit rods (g = 9.81 m/s²), and its
// start: rod k at 0.3 + 0.05·k rad from the vertical, at rest.
Chain UnitChain(int links);
AngleState ChainStart(int links);

}  // namespace tether::bench
