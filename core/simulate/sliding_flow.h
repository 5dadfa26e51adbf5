// The sliding dynamics of a projected dynamical system (shared/seeds 003)
//   x' ∈ f(x, t) − N_C(x),   C = {x : c(x) ≥ 0},
// on an active set A (the constraints the state slides along):
//   x' = f + J_Aᵀ μ_A,   μ_A = −(J_A J_Aᵀ)⁻¹ J_A f,   J = c_x,
// i.e. the free flow f with the component that would leave {c_A = 0} removed (d/dt c_A = 0).
// μ_A is the normal force per unit time. A is consistent at a state x iff μ_A ≥ 0 (the flow
// pushes outward against every active constraint) and no inactive constraint at zero is pushed
// out of C (∇c_i·x' ≥ 0 for c_i = 0, i ∉ A). Off A, μ_i = 0.
//
// SlidingFlow holds A and the work arrays (a value: copying it forks the run); the free flow and
// the feasible set are passed in, so a copied Simulation rebinds them without pointer fix-ups.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "project/inequality_projection.h"
#include "tether/integrate/stepper.h"

namespace tether::simulate {

class SlidingFlow {
 public:
  SlidingFlow() = default;
  SlidingFlow(std::size_t n, std::size_t m);

  [[nodiscard]] const std::vector<bool>& active() const { return active_; }
  void set_active(const std::vector<bool>& active) { active_ = active; }
  [[nodiscard]] bool any_active() const;

  // μ ← the multipliers at (t, x) for A; dxdt (if not empty) ← the sliding field. False when the
  // free flow fails (free.Evaluate) or the active gradients are linearly dependent (failure()).
  bool Evaluate(integrate::OdeSystem& free, project::InequalityProjection& set, double t,
                std::span<const double> x, std::span<double> mu, std::span<double> dxdt);

  // Makes A consistent at (t, x): constraints with c_i ≤ tolerance are candidates; the most
  // negative μ_i leaves A, else the inactive candidate pushed outward hardest (most negative
  // ∇c_i·x') joins, until neither happens (at most 2m + 1 rounds). Leaves μ in `mu`. With
  // `zero_leaves` a μ_i of 0 (or −0) leaves too: at the start of a run nothing pushes such a
  // constraint yet, and whether its tangent flow turns outward is the first step's to see
  // (x' = t, x ≥ 0 from x = 0 held active would stay at 0 for that whole step).
  bool MakeConsistent(integrate::OdeSystem& free, project::InequalityProjection& set, double t,
                      std::span<const double> x, double tolerance, std::span<double> mu,
                      bool zero_leaves = false);

  // x ← its projection onto {c_A = 0} (InequalityProjection::ProjectOntoActive). False
  // (failure() says why) when the projection fails.
  bool ProjectOntoActive(project::InequalityProjection& set, std::span<double> x,
                         const project::InequalityProjectionOptions& options);

  // Evaluations of the free flow so far (every Evaluate and MakeConsistent round makes one).
  [[nodiscard]] std::uint64_t free_evaluations() const { return free_evaluations_; }

  // Why the last Evaluate failed because of A ("" when the free flow failed).
  [[nodiscard]] const std::string& failure() const { return failure_; }

 private:
  bool SolveMultipliers(std::span<double> mu);

  std::size_t n_ = 0;
  std::size_t m_ = 0;
  std::vector<bool> active_;
  std::vector<double> f_, jacobian_, c_, xdot_;
  std::vector<double> gram_, gram_d_, rhs_, gram_work_;  // J_A J_Aᵀ (k × k) factored in place
  std::vector<std::size_t> gram_perm_, rows_;
  std::vector<bool> left_;  // constraints MakeConsistent removed (they may not rejoin)
  std::vector<double> projected_;                 // ProjectOntoActive's result
  project::InequalityProjectionResult projection_;
  std::string failure_;
  std::uint64_t free_evaluations_ = 0;
};

// A SlidingFlow seen as the stepper's ODE for the current A, which is fixed for the object's
// lifetime (one step). With A empty the sliding field is the free flow itself, so its symbolic
// Jacobian is the free one: an implicit method then factors what it factors without
// inequalities (sparse when the free Jacobian is), not a dense difference quotient, which would
// cost radau5 O(n³) per step on models whose inequalities never become active. With A non-empty the
// field's Jacobian f_x + ∂(J_Aᵀ μ_A)/∂x is left to the method's difference quotients.
class SlidingOde : public integrate::OdeSystem {
 public:
  SlidingOde(integrate::OdeSystem& free, project::InequalityProjection& set, SlidingFlow& flow,
             std::span<double> mu, const project::InequalityProjectionOptions& projection)
      : free_(free),
        set_(set),
        flow_(flow),
        mu_(mu),
        projection_(projection),
        free_field_(!flow.any_active()) {}
  [[nodiscard]] std::size_t size() const override { return free_.size(); }
  bool Evaluate(double t, std::span<const double> x, std::span<double> dxdt) override {
    return flow_.Evaluate(free_, set_, t, x, mu_, dxdt);
  }
  [[nodiscard]] std::span<const integrate::MatrixEntry> jacobian_pattern() const override {
    return free_field_ ? free_.jacobian_pattern() : std::span<const integrate::MatrixEntry>();
  }
  bool Jacobian(double t, std::span<const double> x, std::span<double> values) override {
    return free_field_ && free_.Jacobian(t, x, values);
  }
  // Sliding, the solution keeps c_A = 0: a method that projects inside its steps (bdf) keeps
  // its history there, so that the step's end needs no projection that would restart it (a
  // restart at order 1 after every step: about 10,000 steps per second sliding on a circle).
  // The error estimate is left whole, which errs on the safe side: projected as well, CVODE
  // stayed at low orders (87,662 steps and an end error of 4.5e-5, against 2,289 steps and
  // 3.2e-7), presumably because its order selection compares the estimate with unprojected
  // estimates of the neighbouring orders.
  [[nodiscard]] bool has_projection() const override {
    return !free_field_ || free_.has_projection();
  }
  bool Project(double t, std::span<double> x, std::span<double> error) override {
    if (free_.has_projection() && !free_.Project(t, x, error)) return false;
    return free_field_ || flow_.ProjectOntoActive(set_, x, projection_);
  }

 private:
  integrate::OdeSystem& free_;
  project::InequalityProjection& set_;
  SlidingFlow& flow_;
  std::span<double> mu_;
  project::InequalityProjectionOptions projection_;
  bool free_field_;  // A is empty: the field is the free flow
};

}  // namespace tether::simulate
