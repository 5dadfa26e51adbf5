#include "project/inequality_projection.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <utility>

#include "tether/reduce/rank.h"

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
  std::unique_ptr<InequalityProjection> p(new InequalityProjection());
  p->n_ = x.size();
  p->m_ = c.size();
  p->constraints_ = expr::Compile(context, c, x);
  p->CompileDerivatives(context, c, x);
  p->c_.assign(p->m_, 0.0);
  p->j_.assign(p->m_ * p->n_, 0.0);
  const std::size_t d = p->n_ + p->m_;
  p->kkt_.assign(d * d, 0.0);
  p->residual_.assign(d, 0.0);
  p->pivots_.assign(d, 0);
  p->rows_.assign(p->m_, 0);
  p->w_inverse_.assign(p->n_, 1.0);
  return p;
}

void InequalityProjection::EvaluateConstraints(std::span<const double> x, std::span<double> c) {
  constraints_.Evaluate(x, c);
}

void InequalityProjection::CompileDerivatives(expr::Context& context,
                                              std::span<const expr::Expr> c,
                                              std::span<const expr::Expr> x) {
  std::unordered_map<expr::Expr, std::uint32_t, expr::ExprHash> index_of;
  for (std::uint32_t j = 0; j < x.size(); ++j) index_of.emplace(x[j], j);
  // Differentiates only by the states an expression mentions: every other derivative is
  // structurally zero, and a dense c_zz would hold m·n² entries (2 GB at the limits of a spec).
  const auto partials = [&](expr::Expr e, const auto& take) {
    if (context.op(e) == expr::Op::kConstant) return;
    for (expr::Expr symbol : context.FreeSymbols(e)) {
      const auto found = index_of.find(symbol);
      if (found == index_of.end()) continue;
      const expr::Expr d = context.Diff(e, symbol);
      if (!context.is_constant(d, 0.0)) take(found->second, d);
    }
  };
  std::vector<expr::Expr> jacobian;
  std::vector<expr::Expr> hessian;
  hessian_begin_.assign(1, 0);
  for (std::uint32_t i = 0; i < c.size(); ++i) {
    partials(c[i], [&](std::uint32_t j, expr::Expr cj) {
      jacobian.push_back(cj);
      jacobian_slots_.push_back(i * n_ + j);
      partials(cj, [&](std::uint32_t k, expr::Expr cjk) {
        hessian.push_back(cjk);
        hessian_entries_.push_back({j, k});
      });
    });
    hessian_begin_.push_back(hessian.size());
  }
  jacobian_ = expr::Compile(context, jacobian, x);
  hessian_ = expr::Compile(context, hessian, x);
  jacobian_values_.assign(jacobian.size(), 0.0);
  hessian_values_.assign(hessian.size(), 0.0);
}

void InequalityProjection::EvaluateJacobian(std::span<const double> x,
                                            std::span<double> jacobian) {
  std::fill(jacobian.begin(), jacobian.end(), 0.0);
  ScatterJacobian(x, jacobian);
}

void InequalityProjection::ScatterJacobian(std::span<const double> x,
                                           std::span<double> jacobian) {
  jacobian_.Evaluate(x, jacobian_values_);
  for (std::size_t e = 0; e < jacobian_slots_.size(); ++e) {
    jacobian[jacobian_slots_[e]] = jacobian_values_[e];
  }
}

namespace {

// In-place LU with partial pivoting of the row-major d × d `a` (the KKT matrix, d = n + k of a
// few): P A = L U with unit L strictly below the diagonal and U on and above it; at step k row
// k was swapped with row pivots[k]. False when a column's largest remaining entry is at most
// `singular`, i.e. A is singular to working precision (`a` is then left partly factored).
bool LuFactor(double* a, std::size_t d, std::size_t* pivots, double singular) {
  for (std::size_t k = 0; k < d; ++k) {
    std::size_t best = k;
    for (std::size_t r = k + 1; r < d; ++r) {
      if (std::abs(a[r * d + k]) > std::abs(a[best * d + k])) best = r;
    }
    if (!(std::abs(a[best * d + k]) > singular)) return false;
    pivots[k] = best;
    if (best != k) std::swap_ranges(a + k * d, a + (k + 1) * d, a + best * d);
    const double pivot = a[k * d + k];
    for (std::size_t r = k + 1; r < d; ++r) {
      const double factor = a[r * d + k] / pivot;
      a[r * d + k] = factor;
      for (std::size_t col = k + 1; col < d; ++col) a[r * d + col] -= factor * a[k * d + col];
    }
  }
  return true;
}

// b ← A⁻¹ b with the factor of LuFactor (row swaps, forward with L, back with U).
void LuSolve(const double* lu, std::size_t d, const std::size_t* pivots, double* b) {
  for (std::size_t k = 0; k < d; ++k) std::swap(b[k], b[pivots[k]]);
  for (std::size_t r = 1; r < d; ++r) {
    for (std::size_t col = 0; col < r; ++col) b[r] -= lu[r * d + col] * b[col];
  }
  for (std::size_t r = d; r-- > 0;) {
    for (std::size_t col = r + 1; col < d; ++col) b[r] -= lu[r * d + col] * b[col];
    b[r] /= lu[r * d + r];
  }
}

// The KKT matrix counts as singular when a pivot of its partially pivoted LU is at most
// RelativePivotThreshold(d) = 1000·d·ε times its largest entry. Relative, because W and c_z
// carry the units of the state and of c: an absolute bound would mean something else for
// every model. The entries of U are sums of d products of entries of at most max|K| (times the
// pivot growth, ≈ 1 for such small matrices), so their rounding error is ≈ d·ε·max|K|; a pivot
// below a thousand times that is rounding noise: the active gradients J_A are dependent to
// working precision (LICQ fails) and a Newton step through it would be meaningless.
// NaN when an entry is not finite.
double SingularPivot(const double* a, std::size_t d) {
  double largest = 0.0;
  for (std::size_t i = 0; i < d * d; ++i) {
    if (!std::isfinite(a[i])) return std::numeric_limits<double>::quiet_NaN();
    largest = std::max(largest, std::abs(a[i]));
  }
  return reduce::RelativePivotThreshold(d) * largest;
}

}  // namespace

void InequalityProjection::Start(std::span<const double> weights,
                                 InequalityProjectionResult* result) {
  result->status = InequalityProjectionStatus::kConverged;
  result->message.clear();
  result->iterations = 0;
  result->active_set_changes = 0;
  result->mu.assign(m_, 0.0);
  result->residual_inequality = 0.0;
  result->stationarity = 0.0;
  result->complementarity = 0.0;
  for (std::size_t i = 0; i < n_; ++i) w_inverse_[i] = i < weights.size() ? 1.0 / weights[i] : 1.0;
}

double InequalityProjection::Residual(std::span<const double> x_tilde, std::span<const double> z,
                                      std::size_t k, const std::vector<double>& mu) {
  // F(z, μ_A) = [W(z − x̃) − J_Aᵀμ_A ; c_A(z)]
  constraints_.Evaluate(z, c_);
  ScatterJacobian(z, j_);
  double worst = 0.0;
  for (std::size_t col = 0; col < n_; ++col) {
    double r = (z[col] - x_tilde[col]) / w_inverse_[col];
    for (std::size_t s = 0; s < k; ++s) r -= j_[rows_[s] * n_ + col] * mu[rows_[s]];
    residual_[col] = r;
    worst = std::max(worst, std::abs(r));
  }
  for (std::size_t s = 0; s < k; ++s) {
    residual_[n_ + s] = c_[rows_[s]];
    worst = std::max(worst, std::abs(residual_[n_ + s]));
  }
  return worst;
}

void InequalityProjection::AssembleKkt(std::span<const double> z, std::size_t k,
                                       const std::vector<double>& mu) {
  // Newton matrix [[W − Σ μ_i c_i,zz, −J_Aᵀ], [J_A, 0]], row-major (n + k) × (n + k).
  hessian_.Evaluate(z, hessian_values_);
  const std::size_t d = n_ + k;
  std::fill(kkt_.begin(), kkt_.begin() + static_cast<std::ptrdiff_t>(d * d), 0.0);
  for (std::size_t r = 0; r < n_; ++r) kkt_[r * d + r] = 1.0 / w_inverse_[r];
  for (std::size_t s = 0; s < k; ++s) {
    const std::size_t i = rows_[s];
    for (std::size_t e = hessian_begin_[i]; e < hessian_begin_[i + 1]; ++e) {
      const HessianEntry& h = hessian_entries_[e];
      kkt_[h.row * d + h.col] -= mu[i] * hessian_values_[e];
    }
    for (std::size_t r = 0; r < n_; ++r) {
      const double jv = j_[i * n_ + r];
      kkt_[r * d + n_ + s] = -jv;
      kkt_[(n_ + s) * d + r] = jv;
    }
  }
}

bool InequalityProjection::SolveActive(std::span<const double> x_tilde, std::span<double> z,
                                       const InequalityProjectionOptions& options,
                                       InequalityProjectionResult* result) {
  std::size_t k = 0;
  for (std::size_t i = 0; i < m_; ++i) {
    if (result->active[i]) rows_[k++] = i;
  }
  const std::size_t d = n_ + k;
  for (int iteration = 0; iteration <= options.max_newton_iterations; ++iteration) {
    const double worst = Residual(x_tilde, z, k, result->mu);
    if (!std::isfinite(worst)) {
      result->status = InequalityProjectionStatus::kNonFinite;
      result->message = "inequality projection: non-finite constraint value";
      return false;
    }
    if (worst <= options.tolerance) return true;
    if (iteration == options.max_newton_iterations) break;
    ++result->iterations;
    AssembleKkt(z, k, result->mu);
    const double singular = SingularPivot(kkt_.data(), d);
    if (std::isnan(singular)) {
      result->status = InequalityProjectionStatus::kNonFinite;
      result->message = "inequality projection: non-finite constraint curvature c_zz";
      return false;
    }
    if (!LuFactor(kkt_.data(), d, pivots_.data(), singular)) {
      result->status = InequalityProjectionStatus::kSingularJacobian;
      result->message = "inequality projection: active constraint gradients are linearly "
                        "dependent (LICQ violated)";
      return false;
    }
    for (std::size_t r = 0; r < d; ++r) residual_[r] = -residual_[r];
    LuSolve(kkt_.data(), d, pivots_.data(), residual_.data());  // δ, in place
    for (std::size_t col = 0; col < n_; ++col) z[col] += residual_[col];
    for (std::size_t s = 0; s < k; ++s) result->mu[rows_[s]] += residual_[n_ + s];
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
  ScatterJacobian(z, j_);
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

bool InequalityProjection::ProjectOntoActive(std::span<const double> x_tilde,
                                             std::span<const double> weights,
                                             const std::vector<bool>& active,
                                             std::span<double> z,
                                             const InequalityProjectionOptions& options,
                                             InequalityProjectionResult* result) {
  Start(weights, result);
  if (&active != &result->active) result->active.assign(active.begin(), active.end());
  result->active.resize(m_, false);
  std::copy(x_tilde.begin(), x_tilde.end(), z.begin());
  if (SolveActive(x_tilde, z, options, result)) Finish(x_tilde, weights, z, result);
  return result->ok();
}

bool InequalityProjection::Project(std::span<const double> x_tilde,
                                   std::span<const double> weights, std::span<double> z,
                                   const InequalityProjectionOptions& options,
                                   InequalityProjectionResult* result) {
  Start(weights, result);
  std::copy(x_tilde.begin(), x_tilde.end(), z.begin());
  constraints_.Evaluate(x_tilde, c_);
  result->active.assign(m_, false);
  for (std::size_t i = 0; i < m_; ++i) result->active[i] = c_[i] < -options.tolerance;
  while (true) {
    if (!SolveActive(x_tilde, z, options, result)) return false;
    // Dual feasibility first (μ_i < 0 means constraint i pulls the point outward), then
    // primal feasibility of the inactive constraints.
    std::size_t leave = m_;
    std::size_t join = m_;
    double most_negative = 0.0;
    double most_violated = -options.tolerance;
    for (std::size_t i = 0; i < m_; ++i) {
      if (result->active[i] && result->mu[i] < most_negative) {
        most_negative = result->mu[i];
        leave = i;
      } else if (!result->active[i] && c_[i] < most_violated) {
        most_violated = c_[i];
        join = i;
      }
    }
    if (leave == m_ && join == m_) break;
    if (result->active_set_changes == options.max_active_set_changes) {
      result->status = InequalityProjectionStatus::kActiveSetCycling;
      result->message = "inequality projection: active set still changing after " +
                        std::to_string(options.max_active_set_changes) + " changes";
      return false;
    }
    ++result->active_set_changes;
    if (leave != m_) {
      result->active[leave] = false;
      result->mu[leave] = 0.0;
    } else {
      result->active[join] = true;
    }
  }
  Finish(x_tilde, weights, z, result);
  return true;
}

InequalityProjectionResult InequalityProjection::Project(
    std::span<const double> x_tilde, std::span<const double> weights, std::span<double> z,
    const InequalityProjectionOptions& options) {
  InequalityProjectionResult result;
  Project(x_tilde, weights, z, options, &result);
  return result;
}

InequalityProjectionResult InequalityProjection::ProjectOntoActive(
    std::span<const double> x_tilde, std::span<const double> weights,
    const std::vector<bool>& active, std::span<double> z,
    const InequalityProjectionOptions& options) {
  InequalityProjectionResult result;
  ProjectOntoActive(x_tilde, weights, active, z, options, &result);
  return result;
}

}  // namespace tether::project
