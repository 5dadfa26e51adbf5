#include "simulate/sliding_flow.h"

#include <algorithm>
#include <cmath>

#include "tether/reduce/small_dense.h"

namespace tether::simulate {
namespace {

// J_A J_Aᵀ counts as singular when its smallest LDLᵀ pivot is below this fraction of the
// largest: μ_A would then amplify the free flow by more than 1e10, i.e. two active gradients
// are parallel to within ~1e-5 rad and LICQ, which the sliding dynamics need, fails.
constexpr double kGramPivotThreshold = 1e-10;

}  // namespace

SlidingFlow::SlidingFlow(std::size_t n, std::size_t m)
    : n_(n),
      m_(m),
      active_(m, false),
      f_(n),
      jacobian_(m * n),
      c_(m),
      xdot_(n),
      gram_(m * m),
      gram_d_(m),
      rhs_(m),
      gram_work_(m),
      gram_perm_(m),
      rows_(m),
      left_(m, false),
      projected_(n) {}

bool SlidingFlow::any_active() const {
  return std::find(active_.begin(), active_.end(), true) != active_.end();
}

bool SlidingFlow::Evaluate(integrate::OdeSystem& free, project::InequalityProjection& set,
                           double t, std::span<const double> x, std::span<double> mu,
                           std::span<double> dxdt) {
  failure_.clear();
  ++free_evaluations_;
  if (!free.Evaluate(t, x, f_)) return false;
  std::fill(mu.begin(), mu.end(), 0.0);
  if (any_active()) {
    set.EvaluateJacobian(x, jacobian_);
    if (!SolveMultipliers(mu)) return false;
  }
  if (dxdt.empty()) return true;
  std::copy(f_.begin(), f_.end(), dxdt.begin());
  for (std::size_t i = 0; i < m_; ++i) {
    if (mu[i] == 0.0) continue;
    for (std::size_t k = 0; k < n_; ++k) dxdt[k] += jacobian_[i * n_ + k] * mu[i];
  }
  return true;
}

// μ_A = −(J_A J_Aᵀ)⁻¹ J_A f with the allocation-free kernels of core/reduce.
bool SlidingFlow::SolveMultipliers(std::span<double> mu) {
  std::size_t k = 0;
  for (std::size_t i = 0; i < m_; ++i) {
    if (active_[i]) rows_[k++] = i;
  }
  for (std::size_t r = 0; r < k; ++r) {
    const double* jr = &jacobian_[rows_[r] * n_];
    double jf = 0.0;
    for (std::size_t col = 0; col < n_; ++col) jf += jr[col] * f_[col];
    rhs_[r] = -jf;
    for (std::size_t s = 0; s < k; ++s) {
      const double* js = &jacobian_[rows_[s] * n_];
      double sum = 0.0;
      for (std::size_t col = 0; col < n_; ++col) sum += jr[col] * js[col];
      gram_[r * k + s] = sum;
    }
  }
  reduce::dense::Ldlt(gram_.data(), k, gram_d_.data(), gram_perm_.data());
  if (reduce::dense::LdltIsRankDeficient(gram_d_.data(), k, kGramPivotThreshold)) {
    failure_ = "the gradients of the active inequalities";
    for (std::size_t r = 0; r < k; ++r) {
      failure_ += (r == 0 ? " " : ", ") + std::to_string(rows_[r]);
    }
    failure_ += " are linearly dependent (LICQ fails): the sliding multipliers are undefined";
    return false;
  }
  reduce::dense::LdltSolve(gram_.data(), gram_d_.data(), gram_perm_.data(), k, rhs_.data(),
                          gram_work_.data());
  for (std::size_t r = 0; r < k; ++r) {
    if (!std::isfinite(rhs_[r])) {
      failure_ = "non-finite sliding multiplier of inequality " + std::to_string(rows_[r]);
      return false;
    }
    mu[rows_[r]] = rhs_[r];
  }
  return true;
}

bool SlidingFlow::ProjectOntoActive(project::InequalityProjection& set, std::span<double> x,
                                    const project::InequalityProjectionOptions& options) {
  failure_.clear();
  if (!set.ProjectOntoActive(x, {}, active_, projected_, options, &projection_)) {
    failure_ = projection_.message;
    return false;
  }
  std::copy(projected_.begin(), projected_.end(), x.begin());
  return true;
}

bool SlidingFlow::MakeConsistent(integrate::OdeSystem& free, project::InequalityProjection& set,
                                 double t, std::span<const double> x, double tolerance,
                                 std::span<double> mu, bool zero_leaves) {
  set.EvaluateConstraints(x, c_);
  for (std::size_t i = 0; i < m_; ++i) {
    if (c_[i] > tolerance) active_[i] = false;
  }
  // A constraint that left in this call does not join again: at a deactivation μ_i and
  // ∇c_i·x' both pass through 0, and their rounding must not make A alternate.
  std::fill(left_.begin(), left_.end(), false);
  for (std::size_t round = 0; round <= 2 * m_; ++round) {
    if (!Evaluate(free, set, t, x, mu, xdot_)) return false;
    std::size_t leave = m_;
    for (std::size_t i = 0; i < m_; ++i) {
      const bool leaves = mu[i] < 0.0 || (zero_leaves && mu[i] == 0.0);
      if (active_[i] && leaves && (leave == m_ || mu[i] < mu[leave])) leave = i;
    }
    if (leave < m_) {
      active_[leave] = false;
      left_[leave] = true;
      continue;
    }
    set.EvaluateJacobian(x, jacobian_);
    std::size_t join = m_;
    double worst = 0.0;
    for (std::size_t i = 0; i < m_; ++i) {
      if (active_[i] || left_[i] || c_[i] > tolerance) continue;
      double rate = 0.0;  // d/dt c_i = ∇c_i·x'
      for (std::size_t k = 0; k < n_; ++k) rate += jacobian_[i * n_ + k] * xdot_[k];
      if (rate < worst) {
        worst = rate;
        join = i;
      }
    }
    if (join == m_) return true;
    active_[join] = true;
  }
  return true;
}

}  // namespace tether::simulate
