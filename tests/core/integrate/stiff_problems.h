// Stiff problems with symbolic Jacobians (and mass matrices, invariants) for the tests of the
// implicit steppers and for bench/bdf_overhead. Reference values name their source.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tether/integrate/stepper.h"

namespace tether::integrate::testing {

// Robertson's chemical kinetics (Hairer–Wanner II, IV.1, (1.3)):
//   y1' = −0.04 y1 + 1e4 y2 y3,  y2' = 0.04 y1 − 1e4 y2 y3 − 3e7 y2²,  y3' = 3e7 y2²,
// y(0) = (1, 0, 0). Σ y' = 0, so y1 + y2 + y3 = 1 is a linear invariant, kept to rounding
// by every linear multistep method whose Newton matrix has exact column sums.
class Robertson : public OdeSystem {
 public:
  static constexpr double kEnd = 4e10;
  // y(4e10), from scipy 1.10.1 solve_ivp(method="Radau", rtol=1e-13,
  // atol=(1e-22, 1e-28, 1e-22), analytic Jacobian); rtol 1e-11 and 1e-12 agree to 2e-13
  // relative, LSODA and BDF at rtol 1e-13 to 1e-11.
  static constexpr std::array<double, 3> kReference = {5.2083451767986587e-08,
                                                       2.0833381779252758e-13,
                                                       9.9999994791633062e-01};
  static constexpr std::array<double, 3> kInitial = {1.0, 0.0, 0.0};

  [[nodiscard]] std::size_t size() const override { return 3; }
  bool Evaluate(double /*t*/, std::span<const double> y, std::span<double> f) override {
    ++evaluations;
    f[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
    f[2] = 3e7 * y[1] * y[1];
    f[1] = -f[0] - f[2];
    return true;
  }
  [[nodiscard]] std::span<const MatrixEntry> jacobian_pattern() const override {
    return kPattern;
  }
  bool Jacobian(double /*t*/, std::span<const double> y, std::span<double> values) override {
    ++jacobians;
    values[0] = -0.04;               // ∂f1/∂y1
    values[1] = 1e4 * y[2];          // ∂f1/∂y2
    values[2] = 1e4 * y[1];          // ∂f1/∂y3
    values[3] = 0.04;                // ∂f2/∂y1
    values[4] = -1e4 * y[2] - 6e7 * y[1];
    values[5] = -1e4 * y[1];
    values[6] = 6e7 * y[1];          // ∂f3/∂y2
    return true;
  }

  long evaluations = 0;
  long jacobians = 0;

 private:
  static constexpr std::array<MatrixEntry, 7> kPattern = {
      {{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}, {2, 1}}};
};

// Robertson as the index-1 DAE of Hairer–Wanner II, VI.1: the third equation replaced by the
// conservation law, M = diag(1, 1, 0):
//   y1' = −0.04 y1 + 1e4 y2 y3,  y2' = 0.04 y1 − 1e4 y2 y3 − 3e7 y2²,  0 = y1 + y2 + y3 − 1.
class RobertsonDae : public OdeSystem {
 public:
  [[nodiscard]] std::size_t size() const override { return 3; }
  bool Evaluate(double /*t*/, std::span<const double> y, std::span<double> f) override {
    f[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
    f[1] = 0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] * y[1];
    f[2] = y[0] + y[1] + y[2] - 1.0;
    return true;
  }
  [[nodiscard]] std::span<const MatrixEntry> mass_pattern() const override {
    return kMassPattern;
  }
  [[nodiscard]] std::span<const double> mass_values() const override { return kMassValues; }
  [[nodiscard]] std::span<const MatrixEntry> jacobian_pattern() const override {
    return kPattern;
  }
  bool Jacobian(double /*t*/, std::span<const double> y, std::span<double> values) override {
    values[0] = -0.04;
    values[1] = 1e4 * y[2];
    values[2] = 1e4 * y[1];
    values[3] = 0.04;
    values[4] = -1e4 * y[2] - 6e7 * y[1];
    values[5] = -1e4 * y[1];
    values[6] = 1.0;
    values[7] = 1.0;
    values[8] = 1.0;
    return true;
  }

 private:
  static constexpr std::array<MatrixEntry, 2> kMassPattern = {{{0, 0}, {1, 1}}};
  static constexpr std::array<double, 2> kMassValues = {1.0, 1.0};
  static constexpr std::array<MatrixEntry, 9> kPattern = {
      {{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}, {2, 0}, {2, 1}, {2, 2}}};
};

// Van der Pol's oscillator in Hairer's stiff scaling (Hairer–Wanner II, IV.1, (1.5'), with
// μ = 1/ε = 1e6): y1' = y2, y2' = μ((1 − y1²) y2 − y1), y(0) = (2, 0). Relaxation
// oscillations of period ≈ 3 − 2 ln 2 = 1.614, with jumps of y1 (2 → −2 at t ≈ 0.807).
class VanDerPol final : public OdeSystem {
 public:
  static constexpr double kMu = 1e6;
  // Beyond two periods (the second jump back to y1 ≈ 2 is at t ≈ 3.23).
  static constexpr double kEnd = 3.5;
  // y(3.5), from scipy 1.10.1 solve_ivp(method="Radau", rtol=1e-12, atol=1e-14, analytic
  // Jacobian); rtol 1e-10, 1e-11 and 1e-13 agree to 2e-13 relative. (At t = 2 the same run
  // gives y1 = 1.706167732170…, Hairer's published reference value.)
  static constexpr std::array<double, 2> kReference = {1.80276199555593e+00,
                                                       -8.01244770673754e-01};
  static constexpr std::array<double, 2> kInitial = {2.0, 0.0};

  [[nodiscard]] std::size_t size() const override { return 2; }
  bool Evaluate(double /*t*/, std::span<const double> y, std::span<double> f) override {
    f[0] = y[1];
    f[1] = kMu * ((1.0 - y[0] * y[0]) * y[1] - y[0]);
    return true;
  }
  [[nodiscard]] std::span<const MatrixEntry> jacobian_pattern() const override {
    return kPattern;
  }
  bool Jacobian(double /*t*/, std::span<const double> y, std::span<double> values) override {
    values[0] = 1.0;                                   // ∂f1/∂y2
    values[1] = kMu * (-2.0 * y[0] * y[1] - 1.0);      // ∂f2/∂y1
    values[2] = kMu * (1.0 - y[0] * y[0]);             // ∂f2/∂y2
    return true;
  }

 private:
  static constexpr std::array<MatrixEntry, 3> kPattern = {{{0, 1}, {1, 0}, {1, 1}}};
};

// The same oscillator in its singular-perturbation form (Hairer–Wanner II, IV.1, (1.5)) with
// the constant mass matrix M = diag(1, ε), ε = 1/μ: y1' = y2, ε y2' = (1 − y1²) y2 − y1. M is
// regular but not the identity, so bdf runs it through IDA; same solution and reference.
class VanDerPolMass final : public OdeSystem {
 public:
  [[nodiscard]] std::size_t size() const override { return 2; }
  bool Evaluate(double /*t*/, std::span<const double> y, std::span<double> f) override {
    f[0] = y[1];
    f[1] = (1.0 - y[0] * y[0]) * y[1] - y[0];
    return true;
  }
  [[nodiscard]] std::span<const MatrixEntry> mass_pattern() const override {
    return kMassPattern;
  }
  [[nodiscard]] std::span<const double> mass_values() const override { return kMassValues; }
  [[nodiscard]] std::span<const MatrixEntry> jacobian_pattern() const override {
    return kPattern;
  }
  bool Jacobian(double /*t*/, std::span<const double> y, std::span<double> values) override {
    values[0] = 1.0;
    values[1] = -2.0 * y[0] * y[1] - 1.0;
    values[2] = 1.0 - y[0] * y[0];
    return true;
  }

 private:
  static constexpr std::array<MatrixEntry, 2> kMassPattern = {{{0, 0}, {1, 1}}};
  static constexpr std::array<double, 2> kMassValues = {1.0, 1.0 / VanDerPol::kMu};
  static constexpr std::array<MatrixEntry, 3> kPattern = {{{0, 1}, {1, 0}, {1, 1}}};
};

// A smooth stiff linear problem with a closed-form solution:
//   x' = A (x − g(t)) + g'(t),  A = [[−λ, b], [0, −1]],  g(t) = (cos t, sin 2t),
// so x(t) = g(t) + e^{At} (x(0) − g(0)), with
//   e^{At} = [[e^{−λt}, b (e^{−λt} − e^{−t}) / (1 − λ)], [0, e^{−t}]].
// λ = 1e4 makes it stiff (explicit methods need h < 2.8e-4); the fast mode has died out after
// t ≈ 1e-3 and the solution then follows g smoothly.
class StiffLinear : public OdeSystem {
 public:
  static constexpr double kLambda = 1e4;
  static constexpr double kB = 100.0;
  static constexpr std::array<double, 2> kInitial = {2.0, -1.0};

  [[nodiscard]] std::size_t size() const override { return 2; }
  bool Evaluate(double t, std::span<const double> x, std::span<double> f) override {
    const double d0 = x[0] - std::cos(t);
    const double d1 = x[1] - std::sin(2.0 * t);
    f[0] = -kLambda * d0 + kB * d1 - std::sin(t);
    f[1] = -d1 + 2.0 * std::cos(2.0 * t);
    return true;
  }
  [[nodiscard]] std::span<const MatrixEntry> jacobian_pattern() const override {
    return kPattern;
  }
  bool Jacobian(double /*t*/, std::span<const double> /*x*/, std::span<double> values) override {
    values[0] = -kLambda;
    values[1] = kB;
    values[2] = -1.0;
    return true;
  }
  static std::array<double, 2> Exact(double t) {
    const double c0 = kInitial[0] - 1.0;  // x(0) − g(0)
    const double c1 = kInitial[1] - 0.0;
    const double fast = std::exp(-kLambda * t);
    const double slow = std::exp(-t);
    return {std::cos(t) + fast * c0 + kB * (fast - slow) / (1.0 - kLambda) * c1,
            std::sin(2.0 * t) + slow * c1};
  }

 private:
  static constexpr std::array<MatrixEntry, 3> kPattern = {{{0, 0}, {0, 1}, {1, 1}}};
};

// A stiff chain of n masses (a discretized heat equation with a nonlinear sink): for
// i = 0 … n−1, with x_{−1} = 1 and x_n = 0,
//   x_i' = k (x_{i−1} − 2 x_i + x_{i+1}) − x_i³,
// k = n² (the diffusion's eigenvalues reach −4n²). Tridiagonal Jacobian; `mass` ≠ 1 gives
// the mass-matrix form mass·x' = mass·F (an IDA system with the same solution).
class StiffChain final : public OdeSystem {
 public:
  explicit StiffChain(std::size_t n, bool symbolic_jacobian = true, double mass = 1.0)
      : n_(n), k_(static_cast<double>(n * n)), symbolic_(symbolic_jacobian), mass_(mass) {
    for (std::uint32_t i = 0; i < n; ++i) {
      if (i > 0) pattern_.push_back({i, i - 1});
      pattern_.push_back({i, i});
      if (i + 1 < n) pattern_.push_back({i, i + 1});
      if (mass != 1.0) {
        mass_pattern_.push_back({i, i});
        mass_values_.push_back(mass);
      }
    }
  }
  [[nodiscard]] std::size_t size() const override { return n_; }
  bool Evaluate(double /*t*/, std::span<const double> x, std::span<double> f) override {
    for (std::size_t i = 0; i < n_; ++i) {
      const double left = i == 0 ? 1.0 : x[i - 1];
      const double right = i + 1 == n_ ? 0.0 : x[i + 1];
      f[i] = mass_ * (k_ * (left - 2.0 * x[i] + right) - x[i] * x[i] * x[i]);
    }
    return true;
  }
  [[nodiscard]] std::span<const MatrixEntry> mass_pattern() const override {
    return mass_pattern_;
  }
  [[nodiscard]] std::span<const double> mass_values() const override { return mass_values_; }
  [[nodiscard]] std::span<const MatrixEntry> jacobian_pattern() const override {
    return symbolic_ ? std::span<const MatrixEntry>(pattern_) : std::span<const MatrixEntry>();
  }
  bool Jacobian(double /*t*/, std::span<const double> x, std::span<double> values) override {
    std::size_t k = 0;
    for (std::size_t i = 0; i < n_; ++i) {
      if (i > 0) values[k++] = mass_ * k_;
      values[k++] = mass_ * (-2.0 * k_ - 3.0 * x[i] * x[i]);
      if (i + 1 < n_) values[k++] = mass_ * k_;
    }
    return true;
  }

 private:
  std::size_t n_;
  double k_;
  bool symbolic_;
  double mass_;
  std::vector<MatrixEntry> pattern_;
  std::vector<MatrixEntry> mass_pattern_;
  std::vector<double> mass_values_;
};

// The planar pendulum (mass m, length l, gravity g) in Cartesian coordinates z = (q, v),
// index-reduced to an ODE (the source documents' chapter 11 with λ eliminated):
//   q' = v,  v' = −g e_y − (λ/m) q,  λ = m (|v|² − g q_y) / |q|²,
// whose invariants Φ = (|q|² − l²)/2 and h = q·v drift under any integrator. With
// `projecting`, Project puts z back on {Φ = 0, h = 0}: q ← l q/|q|, v ← v − (q·v/l²) q (the
// nearest point in the Euclidean metric, positions first), and projects an error vector onto
// the tangent space, e ← e − Gᵀ(G Gᵀ)⁻¹ G e with G = ∂(Φ, h)/∂z = [[qᵀ, 0], [vᵀ, qᵀ]].
class Pendulum : public OdeSystem {
 public:
  static constexpr double kM = 2.0;
  static constexpr double kL = 2.5;
  static constexpr double kG = 9.81;

  explicit Pendulum(bool projecting) : projecting_(projecting) {}

  // At rest at angle θ from the downward vertical: exactly on the manifold.
  static std::array<double, 4> Initial(double theta) {
    return {kL * std::sin(theta), -kL * std::cos(theta), 0.0, 0.0};
  }
  static double Phi(std::span<const double> z) {
    return 0.5 * (z[0] * z[0] + z[1] * z[1] - kL * kL);
  }
  static double H(std::span<const double> z) { return z[0] * z[2] + z[1] * z[3]; }
  static double Lambda(std::span<const double> z) {
    return kM * (z[2] * z[2] + z[3] * z[3] - kG * z[1]) / (z[0] * z[0] + z[1] * z[1]);
  }

  [[nodiscard]] std::size_t size() const override { return 4; }
  bool Evaluate(double /*t*/, std::span<const double> z, std::span<double> f) override {
    const double lambda = Lambda(z);
    f[0] = z[2];
    f[1] = z[3];
    f[2] = -lambda / kM * z[0];
    f[3] = -kG - lambda / kM * z[1];
    return true;
  }
  [[nodiscard]] bool has_projection() const override { return projecting_; }
  bool Project(double /*t*/, std::span<double> z, std::span<double> error) override {
    ++projections;
    ProjectOntoManifold(z);
    if (!error.empty()) ProjectOntoTangent(z, error);
    return true;
  }

  // q ← l q/|q|, then v ← v − (q·v/l²) q.
  static void ProjectOntoManifold(std::span<double> z) {
    const double r = std::hypot(z[0], z[1]);
    z[0] *= kL / r;
    z[1] *= kL / r;
    const double s = (z[0] * z[2] + z[1] * z[3]) / (kL * kL);
    z[2] -= s * z[0];
    z[3] -= s * z[1];
  }

  long projections = 0;

 private:
  static void ProjectOntoTangent(std::span<const double> z, std::span<double> e) {
    // G e, and G Gᵀ = [[|q|², q·v], [q·v, |v|² + |q|²]].
    const double q2 = z[0] * z[0] + z[1] * z[1];
    const double qv = z[0] * z[2] + z[1] * z[3];
    const double v2 = z[2] * z[2] + z[3] * z[3];
    const double g0 = z[0] * e[0] + z[1] * e[1];
    const double g1 = z[2] * e[0] + z[3] * e[1] + z[0] * e[2] + z[1] * e[3];
    const double a = q2, b = qv, d = v2 + q2;
    const double det = a * d - b * b;
    const double m0 = (d * g0 - b * g1) / det;  // (G Gᵀ)⁻¹ G e
    const double m1 = (a * g1 - b * g0) / det;
    e[0] -= z[0] * m0 + z[2] * m1;  // e ← e − Gᵀ m
    e[1] -= z[1] * m0 + z[3] * m1;
    e[2] -= z[0] * m1;
    e[3] -= z[1] * m1;
  }

  bool projecting_;
};

// The same pendulum as an index-1 DAE for IDA: z = (q, v, λ), M = diag(1, 1, 1, 1, 0),
//   q' = v,  m v' = −m g e_y − λ q,  0 = m (|v|² − g q_y) − λ |q|²,
// projected like Pendulum, with λ then solved from its equation at the projected (q, v).
class PendulumDae : public OdeSystem {
 public:
  explicit PendulumDae(bool projecting) : projecting_(projecting) {}

  static std::array<double, 5> Initial(double theta) {
    const std::array<double, 4> z = Pendulum::Initial(theta);
    return {z[0], z[1], z[2], z[3], Pendulum::Lambda(z)};
  }

  [[nodiscard]] std::size_t size() const override { return 5; }
  bool Evaluate(double /*t*/, std::span<const double> z, std::span<double> f) override {
    f[0] = z[2];
    f[1] = z[3];
    f[2] = -z[4] / Pendulum::kM * z[0];
    f[3] = -Pendulum::kG - z[4] / Pendulum::kM * z[1];
    f[4] = Pendulum::kM * (z[2] * z[2] + z[3] * z[3] - Pendulum::kG * z[1]) -
           z[4] * (z[0] * z[0] + z[1] * z[1]);
    return true;
  }
  [[nodiscard]] std::span<const MatrixEntry> mass_pattern() const override {
    return kMassPattern;
  }
  [[nodiscard]] std::span<const double> mass_values() const override { return kMassValues; }
  [[nodiscard]] bool has_projection() const override { return projecting_; }
  bool Project(double /*t*/, std::span<double> z, std::span<double> /*error*/) override {
    ++projections;
    Pendulum::ProjectOntoManifold(z.first(4));
    z[4] = Pendulum::Lambda(z.first(4));
    return true;
  }

  long projections = 0;

 private:
  static constexpr std::array<MatrixEntry, 4> kMassPattern = {{{0, 0}, {1, 1}, {2, 2}, {3, 3}}};
  static constexpr std::array<double, 4> kMassValues = {1.0, 1.0, 1.0, 1.0};
  bool projecting_;
};

// Kaps' singularly perturbed problem (P. Kaps 1981; Hairer–Wanner II, VI.3):
//   y1' = −(2 + 1/ε) y1 + y2²/ε,   y2' = y1 − y2 − y2²,
// whose solution from (1, 1) is y1 = e^(−2t), y2 = e^(−t) for every ε: smooth, on the slow
// manifold, stiff for small ε.
class Kaps final : public OdeSystem {
 public:
  explicit Kaps(double epsilon) : epsilon_(epsilon) {}
  [[nodiscard]] std::size_t size() const override { return 2; }
  bool Evaluate(double /*t*/, std::span<const double> y, std::span<double> f) override {
    f[0] = -(2.0 + 1.0 / epsilon_) * y[0] + y[1] * y[1] / epsilon_;
    f[1] = y[0] - y[1] - y[1] * y[1];
    return true;
  }
  [[nodiscard]] std::span<const MatrixEntry> jacobian_pattern() const override {
    return kPattern;
  }
  bool Jacobian(double /*t*/, std::span<const double> y, std::span<double> values) override {
    values[0] = -(2.0 + 1.0 / epsilon_);
    values[1] = 2.0 * y[1] / epsilon_;
    values[2] = 1.0;
    values[3] = -1.0 - 2.0 * y[1];
    return true;
  }
  [[nodiscard]] static std::array<double, 2> Exact(double t) {
    return {std::exp(-2.0 * t), std::exp(-t)};
  }

 private:
  static constexpr std::array<MatrixEntry, 4> kPattern = {{{0, 0}, {0, 1}, {1, 0}, {1, 1}}};
  double epsilon_;
};

// An index-1 DAE with a singular, non-diagonal mass matrix:
//   [2 1 0] [x1']   [2 u + x1]
//   [1 1 0] [x2'] = [u + x1  ],   u = −x2 + (y − x1 x2),
//   [0 0 0] [y' ]   [y − x1 x2]
// Rows 1–2 are M·(x1', x2') = M·(u, x1), i.e. x1' = u, x2' = x1; row 3 makes y algebraic
// (∂F3/∂y = 1 spans M's null space (0, 0, 1): index 1). On y = x1 x2 the solution from
// (1, 0, 0) is x1 = cos t, x2 = sin t, y = sin t cos t.
class CoupledMassDae : public OdeSystem {
 public:
  [[nodiscard]] std::size_t size() const override { return 3; }
  bool Evaluate(double /*t*/, std::span<const double> x, std::span<double> f) override {
    const double u = -x[1] + (x[2] - x[0] * x[1]);
    f[0] = 2.0 * u + x[0];
    f[1] = u + x[0];
    f[2] = x[2] - x[0] * x[1];
    return true;
  }
  [[nodiscard]] std::span<const MatrixEntry> mass_pattern() const override {
    return kMassPattern;
  }
  [[nodiscard]] std::span<const double> mass_values() const override { return kMassValues; }
  [[nodiscard]] std::span<const MatrixEntry> jacobian_pattern() const override {
    return kPattern;
  }
  bool Jacobian(double /*t*/, std::span<const double> x, std::span<double> values) override {
    const std::array<double, 3> du = {-x[1], -1.0 - x[0], 1.0};  // ∂u/∂x
    values[0] = 2.0 * du[0] + 1.0, values[1] = 2.0 * du[1], values[2] = 2.0 * du[2];
    values[3] = du[0] + 1.0, values[4] = du[1], values[5] = du[2];
    values[6] = -x[1], values[7] = -x[0], values[8] = 1.0;
    return true;
  }
  [[nodiscard]] static std::array<double, 3> Exact(double t) {
    return {std::cos(t), std::sin(t), std::sin(t) * std::cos(t)};
  }

 private:
  static constexpr std::array<MatrixEntry, 4> kMassPattern = {{{0, 0}, {0, 1}, {1, 0}, {1, 1}}};
  static constexpr std::array<double, 4> kMassValues = {2.0, 1.0, 1.0, 1.0};
  static constexpr std::array<MatrixEntry, 9> kPattern = {
      {{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}, {2, 0}, {2, 1}, {2, 2}}};
};

// Any of the systems above with its symbolic Jacobian withheld, so that a stepper
// differences F instead.
template <typename System>
class WithoutJacobian final : public System {
 public:
  [[nodiscard]] std::span<const MatrixEntry> jacobian_pattern() const override { return {}; }
};

}  // namespace tether::integrate::testing
