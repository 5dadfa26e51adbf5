#include "project/inequality_projection.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>

namespace tether::project {

bool InequalityProjectionOptions::IsValid(std::string* why) const {
  std::string reason;
  if (!(tolerance > 0.0)) {
    reason = "InequalityProjectionOptions::tolerance = " + std::to_string(tolerance) +
             "; must be > 0";
  } else if (max_newton_iterations < 1) {
    reason = "InequalityProjectionOptions::max_newton_iterations = " +
             std::to_string(max_newton_iterations) + "; must be >= 1";
  } else if (max_active_set_changes < 1) {
    reason = "InequalityProjectionOptions::max_active_set_changes = " +
             std::to_string(max_active_set_changes) + "; must be >= 1";
  }
  if (why != nullptr) *why = reason;
  return reason.empty();
}

std::unique_ptr<InequalityProjection> InequalityProjection::Create(
    const expr::Context& from, std::span<const expr::Expr> inequalities,
    std::span<const expr::Expr> states,
    std::span<const std::pair<std::string, double>> bindings, std::string* why) {
  // A context of our own: the model's is shared and read-only (as in core/reduce).
  expr::Context context;
  std::vector<expr::Expr> x;
  for (expr::Expr s : states) x.push_back(context.Symbol(from.symbol_name(s)));
  std::vector<std::pair<expr::Expr, expr::Expr>> fixed;
  for (const auto& [name, value] : bindings) {
    fixed.emplace_back(context.Symbol(name), context.Constant(value));
  }
  std::vector<expr::Expr> c;
  for (std::size_t i = 0; i < inequalities.size(); ++i) {
    const expr::Expr e = context.Substitute(context.Import(from, inequalities[i]), fixed);
    for (expr::Expr symbol : context.FreeSymbols(e)) {
      if (std::find(x.begin(), x.end(), symbol) == x.end()) {
        if (why != nullptr) {
          *why = "inequalities[" + std::to_string(i) + "]: depends on '" +
                 context.symbol_name(symbol) + "', which is neither a state nor bound";
        }
        return nullptr;
      }
    }
    c.push_back(e);
  }
  std::vector<expr::Expr> jacobian;
  for (expr::Expr ci : c) {
    for (expr::Expr xj : x) jacobian.push_back(context.Diff(ci, xj));
  }
  std::vector<expr::Expr> hessian;
  for (expr::Expr dci : jacobian) {
    for (expr::Expr xk : x) hessian.push_back(context.Diff(dci, xk));
  }
  std::unique_ptr<InequalityProjection> p(new InequalityProjection());
  p->n_ = x.size();
  p->m_ = c.size();
  p->constraints_ = expr::Compile(context, c, x);
  p->jacobian_ = expr::Compile(context, jacobian, x);
  p->hessian_ = expr::Compile(context, hessian, x);
  p->h_.assign(p->m_ * p->n_ * p->n_, 0.0);
  p->c_.assign(p->m_, 0.0);
  p->j_.assign(p->m_ * p->n_, 0.0);
  return p;
}

void InequalityProjection::EvaluateConstraints(std::span<const double> x, std::span<double> c) {
  constraints_.Evaluate(x, c);
}

void InequalityProjection::EvaluateJacobian(std::span<const double> x,
                                            std::span<double> jacobian) {
  jacobian_.Evaluate(x, jacobian);
}

namespace {

std::vector<double> Inverse(std::span<const double> weights, std::size_t n) {
  std::vector<double> w_inverse(n, 1.0);
  for (std::size_t i = 0; i < weights.size() && i < n; ++i) w_inverse[i] = 1.0 / weights[i];
  return w_inverse;
}

std::vector<std::size_t> Indices(const std::vector<bool>& active) {
  std::vector<std::size_t> indices;
  for (std::size_t i = 0; i < active.size(); ++i) {
    if (active[i]) indices.push_back(i);
  }
  return indices;
}

}  // namespace

bool InequalityProjection::SolveActive(std::span<const double> x_tilde,
                                       std::span<const double> w_inverse, std::span<double> z,
                                       const InequalityProjectionOptions& options,
                                       InequalityProjectionResult* result) {
  const std::vector<std::size_t> a = Indices(result->active);
  const auto n = static_cast<Eigen::Index>(n_);
  const auto k = static_cast<Eigen::Index>(a.size());
  Eigen::MatrixXd kkt(n + k, n + k);
  Eigen::VectorXd residual(n + k);
  for (int iteration = 0; iteration <= options.max_newton_iterations; ++iteration) {
    // F(z, μ_A) = [W(z − x̃) − J_Aᵀμ_A ; c_A(z)]
    constraints_.Evaluate(z, c_);
    jacobian_.Evaluate(z, j_);
    double worst = 0.0;
    for (Eigen::Index col = 0; col < n; ++col) {
      const auto ucol = static_cast<std::size_t>(col);
      double r = (z[ucol] - x_tilde[ucol]) / w_inverse[ucol];
      for (std::size_t i : a) r -= j_[i * n_ + ucol] * result->mu[i];
      residual(col) = r;
      worst = std::max(worst, std::abs(r));
    }
    for (Eigen::Index r = 0; r < k; ++r) {
      residual(n + r) = c_[a[static_cast<std::size_t>(r)]];
      worst = std::max(worst, std::abs(residual(n + r)));
    }
    if (!std::isfinite(worst)) {
      result->status = InequalityProjectionStatus::kNonFinite;
      result->message = "inequality projection: non-finite constraint value";
      return false;
    }
    if (worst <= options.tolerance) return true;
    if (iteration == options.max_newton_iterations) break;
    ++result->iterations;
    // Newton matrix [[W − Σ μ_i c_i,zz, −J_Aᵀ], [J_A, 0]].
    hessian_.Evaluate(z, h_);
    kkt.setZero();
    for (Eigen::Index r = 0; r < n; ++r) {
      const auto ur = static_cast<std::size_t>(r);
      kkt(r, r) = 1.0 / w_inverse[ur];
      for (Eigen::Index col = 0; col < n; ++col) {
        const auto ucol = static_cast<std::size_t>(col);
        for (std::size_t i : a) kkt(r, col) -= result->mu[i] * h_[(i * n_ + ur) * n_ + ucol];
      }
      for (Eigen::Index s = 0; s < k; ++s) {
        const double jv = j_[a[static_cast<std::size_t>(s)] * n_ + ur];
        kkt(r, n + s) = -jv;
        kkt(n + s, r) = jv;
      }
    }
    const Eigen::FullPivLU<Eigen::MatrixXd> lu(kkt);
    if (!lu.isInvertible()) {
      result->status = InequalityProjectionStatus::kSingularJacobian;
      result->message = "inequality projection: active constraint gradients are linearly "
                        "dependent (LICQ violated)";
      return false;
    }
    const Eigen::VectorXd delta = lu.solve(-residual);
    for (Eigen::Index col = 0; col < n; ++col) z[static_cast<std::size_t>(col)] += delta(col);
    for (Eigen::Index r = 0; r < k; ++r) {
      result->mu[a[static_cast<std::size_t>(r)]] += delta(n + r);  // (z, μ) ← (z, μ) + δ
    }
  }
  result->status = InequalityProjectionStatus::kNewtonFailed;
  result->message = "inequality projection: Newton did not converge in " +
                    std::to_string(options.max_newton_iterations) + " iterations";
  return false;
}

void InequalityProjection::Finish(std::span<const double> x_tilde,
                                  std::span<const double> weights, std::span<const double> z,
                                  InequalityProjectionResult* result) {
  constraints_.Evaluate(z, c_);
  jacobian_.Evaluate(z, j_);
  result->residual_inequality = 0.0;
  result->complementarity = 0.0;
  for (std::size_t i = 0; i < m_; ++i) {
    result->residual_inequality = std::max(result->residual_inequality, -c_[i]);
    result->complementarity = std::max(result->complementarity, std::abs(result->mu[i] * c_[i]));
  }
  result->stationarity = 0.0;
  for (std::size_t col = 0; col < n_; ++col) {
    const double w = col < weights.size() ? weights[col] : 1.0;
    double r = w * (z[col] - x_tilde[col]);
    for (std::size_t i = 0; i < m_; ++i) r -= j_[i * n_ + col] * result->mu[i];
    result->stationarity = std::max(result->stationarity, std::abs(r));
  }
}

InequalityProjectionResult InequalityProjection::ProjectOntoActive(
    std::span<const double> x_tilde, std::span<const double> weights,
    const std::vector<bool>& active, std::span<double> z,
    const InequalityProjectionOptions& options) {
  InequalityProjectionResult result;
  result.active = active;
  result.active.resize(m_, false);
  result.mu.assign(m_, 0.0);
  const std::vector<double> w_inverse = Inverse(weights, n_);
  std::copy(x_tilde.begin(), x_tilde.end(), z.begin());
  if (SolveActive(x_tilde, w_inverse, z, options, &result)) Finish(x_tilde, weights, z, &result);
  return result;
}

InequalityProjectionResult InequalityProjection::Project(
    std::span<const double> x_tilde, std::span<const double> weights, std::span<double> z,
    const InequalityProjectionOptions& options) {
  InequalityProjectionResult result;
  result.mu.assign(m_, 0.0);
  const std::vector<double> w_inverse = Inverse(weights, n_);
  std::copy(x_tilde.begin(), x_tilde.end(), z.begin());
  constraints_.Evaluate(x_tilde, c_);
  result.active.assign(m_, false);
  for (std::size_t i = 0; i < m_; ++i) result.active[i] = c_[i] < -options.tolerance;
  while (true) {
    if (!SolveActive(x_tilde, w_inverse, z, options, &result)) return result;
    // Dual feasibility first (μ_i < 0 means constraint i pulls the point outward), then
    // primal feasibility of the inactive constraints.
    std::size_t leave = m_;
    std::size_t join = m_;
    double most_negative = 0.0;
    double most_violated = -options.tolerance;
    for (std::size_t i = 0; i < m_; ++i) {
      if (result.active[i] && result.mu[i] < most_negative) {
        most_negative = result.mu[i];
        leave = i;
      } else if (!result.active[i] && c_[i] < most_violated) {
        most_violated = c_[i];
        join = i;
      }
    }
    if (leave == m_ && join == m_) break;
    if (result.active_set_changes == options.max_active_set_changes) {
      result.status = InequalityProjectionStatus::kActiveSetCycling;
      result.message = "inequality projection: active set still changing after " +
                       std::to_string(options.max_active_set_changes) + " changes";
      return result;
    }
    ++result.active_set_changes;
    if (leave != m_) {
      result.active[leave] = false;
      result.mu[leave] = 0.0;
    } else {
      result.active[join] = true;
    }
  }
  Finish(x_tilde, weights, z, &result);
  return result;
}

}  // namespace tether::project
