// The feasible set C = {x : c(x) ≥ 0} of a projected dynamical system (shared/seeds 003) and
// the projection onto it, compiled from the model's `inequalities`.
//
// Projection, in the metric W = diag(w) (w_i > 0):
//   P_C(x̃) = argmin_z ½ (z − x̃)ᵀ W (z − x̃)   s.t.  c(z) ≥ 0,
// with KKT conditions (J = c_z, n_c multipliers μ):
//   W (z − x̃) − Jᵀ μ = 0,   c(z) ≥ 0,   μ ≥ 0,   μ_i c_i(z) = 0.
// Solved by a primal-dual active-set Newton method: for an active set A the equality-constrained
// KKT system F(z, μ_A) = [W(z − x̃) − J_Aᵀμ_A ; c_A(z)] = 0 is solved by Newton with the exact
// matrix [[W − Σ_{i∈A} μ_i c_i,zz, −J_Aᵀ], [J_A, 0]] (the curvature term matters: without it the
// iteration contracts only by a factor ≈ μ‖c_zz‖/‖W‖, which is ≥ 1 once a point lies a radius
// or more outside a disc), until ‖F‖∞ ≤ tolerance. Then the set is updated: the
// most negative μ_i leaves A, else the most violated inactive c_i < −tolerance joins A. The
// problem is convex for concave c (half-planes, discs), where the KKT point is the projection.
//
// Moreau's catching-up scheme (the projected Euler baseline, first order at switches) is
//   x_{k+1} = P_C(x_k + h f(x_k)),  with multipliers μ/h the constraint force.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tether/expr/expr.h"
#include "tether/expr/program.h"

namespace tether::project {

struct InequalityProjectionOptions {
  // Newton on one active set stops when ‖F(z, μ_A)‖∞ ≤ tolerance (both the stationarity
  // residual and max_{i∈A} |c_i(z)|; state and constraint units).
  // An inactive constraint counts as violated when c_i(z) < −tolerance. > 0.
  double tolerance = 1e-12;
  // Newton iterations per active set before giving up. ≥ 1.
  int max_newton_iterations = 20;
  // Active-set changes before giving up (each adds or removes one index). ≥ 1.
  int max_active_set_changes = 50;

  bool IsValid(std::string* why) const;
};

enum class InequalityProjectionStatus {
  kConverged,
  kNewtonFailed,       // Newton on one active set did not reach the tolerance
  kSingularJacobian,   // J_A W⁻¹ J_Aᵀ singular (LICQ violated)
  kActiveSetCycling,   // max_active_set_changes reached
  kNonFinite,
};

struct InequalityProjectionResult {
  InequalityProjectionStatus status = InequalityProjectionStatus::kConverged;
  std::string message;             // empty when converged
  int iterations = 0;              // Newton iterations over all active sets
  int active_set_changes = 0;
  std::vector<bool> active;        // final active set A
  std::vector<double> mu;          // multipliers, 0 off A
  double residual_inequality = 0;  // max(0, −min_i c_i(z))
  double stationarity = 0;         // ‖W(z − x̃) − Jᵀμ‖∞
  double complementarity = 0;      // max_i |μ_i c_i(z)|
  [[nodiscard]] bool ok() const { return status == InequalityProjectionStatus::kConverged; }
};

// c(x) and c_x(x) compiled over the state x; parameters and t bound to fixed values.
class InequalityProjection {
 public:
  // `inequalities` are nodes of `from`; `states` the symbols of x (of `from`, in order);
  // `bindings` fixes every other symbol (parameters, t) to a value. Returns nullptr and
  // sets `why` when an inequality depends on a symbol that is neither a state nor bound.
  static std::unique_ptr<InequalityProjection> Create(
      const expr::Context& from, std::span<const expr::Expr> inequalities,
      std::span<const expr::Expr> states,
      std::span<const std::pair<std::string, double>> bindings, std::string* why);

  [[nodiscard]] std::size_t num_states() const { return n_; }
  [[nodiscard]] std::size_t num_constraints() const { return m_; }
  // The entries of c_z and of all c_i,zz that are stored and evaluated: their structural
  // non-zeros, so that memory and work follow the constraints' sparsity, not m·n².
  [[nodiscard]] std::size_t derivative_entries() const {
    return jacobian_slots_.size() + hessian_entries_.size();
  }

  // c ← c(x) (size num_constraints()).
  void EvaluateConstraints(std::span<const double> x, std::span<double> c);
  // jacobian ← c_x(x), row-major m × n.
  void EvaluateJacobian(std::span<const double> x, std::span<double> jacobian);

  // z ← P_C(x̃) in the metric diag(weights) (empty weights: W = I). Starts from the set
  // {i : c_i(x̃) < −tolerance}. Writes into the caller's `result`, reusing the capacity of its
  // vectors: once result->active and result->mu have held num_constraints() entries, a call
  // allocates nothing (the message is built only on failure). True iff result->ok().
  bool Project(std::span<const double> x_tilde, std::span<const double> weights,
               std::span<double> z, const InequalityProjectionOptions& options,
               InequalityProjectionResult* result);
  // z ← the projection onto {c_A(z) = 0} for a fixed active set (no set changes, no sign
  // condition on μ): removes the drift of a state that slides along the active constraints.
  // `active` may be result->active itself. Allocation-free as Project.
  bool ProjectOntoActive(std::span<const double> x_tilde, std::span<const double> weights,
                         const std::vector<bool>& active, std::span<double> z,
                         const InequalityProjectionOptions& options,
                         InequalityProjectionResult* result);
  // The same into a fresh result (allocates it; for one-off projections and tests).
  InequalityProjectionResult Project(std::span<const double> x_tilde,
                                     std::span<const double> weights, std::span<double> z,
                                     const InequalityProjectionOptions& options);
  InequalityProjectionResult ProjectOntoActive(std::span<const double> x_tilde,
                                               std::span<const double> weights,
                                               const std::vector<bool>& active,
                                               std::span<double> z,
                                               const InequalityProjectionOptions& options);

 private:
  InequalityProjection() = default;
  // result ← converged, no iterations, μ = 0 (within its capacity; the caller sets A);
  // w_inverse_ ← W⁻¹.
  void Start(std::span<const double> weights, InequalityProjectionResult* result);
  // Newton on F(z, μ_A) = 0 from z and the multipliers in result->mu.
  bool SolveActive(std::span<const double> x_tilde, std::span<double> z,
                   const InequalityProjectionOptions& options,
                   InequalityProjectionResult* result);
  // residual_ ← F(z, μ_A) over the k = rows_ active constraints; returns ‖F‖∞.
  double Residual(std::span<const double> x_tilde, std::span<const double> z, std::size_t k,
                  const std::vector<double>& mu);
  // kkt_ ← the Newton matrix at z for the k active constraints in rows_.
  void AssembleKkt(std::span<const double> z, std::size_t k, const std::vector<double>& mu);
  void Finish(std::span<const double> x_tilde, std::span<const double> weights,
              std::span<const double> z, InequalityProjectionResult* result);

  // jacobian_ and hessian_ ← the structurally non-zero entries of c_z and of each c_i,zz.
  void CompileDerivatives(expr::Context& context, std::span<const expr::Expr> c,
                          std::span<const expr::Expr> x);
  // jacobian's structurally non-zero entries ← c_z(x) (row-major m × n); the others untouched.
  void ScatterJacobian(std::span<const double> x, std::span<double> jacobian);

  struct HessianEntry {
    std::uint32_t row, col;  // of c_i,zz, for the constraint i whose range holds the entry
  };

  std::size_t n_ = 0;
  std::size_t m_ = 0;
  expr::Program constraints_;
  expr::Program jacobian_;                  // c_z's non-zeros, landing at jacobian_slots_
  std::vector<std::size_t> jacobian_slots_;  // i·n + j
  std::vector<double> jacobian_values_;
  expr::Program hessian_;  // the non-zeros of every c_i,zz, constraint by constraint
  std::vector<HessianEntry> hessian_entries_;
  std::vector<std::size_t> hessian_begin_;  // constraint i's entries: [begin[i], begin[i + 1])
  std::vector<double> hessian_values_;
  std::vector<double> c_;
  std::vector<double> j_;  // c_z, row-major m × n
  // Work storage sized in Create for the largest case (all m constraints active), so that a
  // projection allocates nothing: the row-major (n + k) × (n + k) KKT matrix and its LU, the
  // residual / Newton step, the LU's row order, the active indices and W⁻¹.
  std::vector<double> kkt_;
  std::vector<double> residual_;
  std::vector<std::size_t> pivots_;
  std::vector<std::size_t> rows_;
  std::vector<double> w_inverse_;
};

}  // namespace tether::project
