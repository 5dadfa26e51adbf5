#include "tether/reduce/closed_form_multipliers.h"

#include <cmath>

#include "tether/reduce/sparse_multipliers.h"

namespace tether::reduce {

using expr::Expr;

bool ClosedFormMultipliers::Applies(const expr::Context& cx, const std::vector<Expr>& mass,
                                    std::size_t n, std::size_t m) {
  return m == 1 && SparseMultipliers::IsDiagonal(cx, mass, n);
}

std::vector<Expr> ClosedFormMultipliers::StageOutputs(
    expr::Context& cx, const std::vector<Expr>& mass, const std::vector<Expr>& forces,
    const std::vector<Expr>& phi_q, Expr a, Expr phi, Expr h, Expr alpha, Expr beta) {
  const std::size_t n = forces.size();
  std::vector<Expr> d(n), w(n), x(n);
  // −(a + 2αh + β²Φ), then − Σ Φ_k w_k; s = Σ Φ_k x_k over the structurally non-zero Φ_k.
  Expr rhs = cx.Neg(cx.Add(cx.Add(a, cx.Mul(cx.Mul(cx.Constant(2.0), alpha), h)),
                           cx.Mul(cx.Mul(beta, beta), phi)));
  Expr s = cx.Constant(0.0);
  bool first = true;
  for (std::size_t k = 0; k < n; ++k) {
    d[k] = mass[k * n + k];
    w[k] = cx.Div(forces[k], d[k]);
    if (cx.is_constant(phi_q[k], 0.0)) continue;
    x[k] = cx.Div(phi_q[k], d[k]);
    rhs = cx.Sub(rhs, cx.Mul(phi_q[k], w[k]));
    const Expr term = cx.Mul(phi_q[k], x[k]);
    s = first ? term : cx.Add(s, term);
    first = false;
  }
  const Expr lambda = cx.Div(rhs, s);
  std::vector<Expr> out;
  for (std::size_t k = 0; k < n; ++k) {
    out.push_back(cx.is_constant(phi_q[k], 0.0) ? w[k] : cx.Add(w[k], cx.Mul(lambda, x[k])));
  }
  out.push_back(lambda);
  out.push_back(s);
  out.insert(out.end(), d.begin(), d.end());
  return out;
}

bool ClosedFormMultipliers::Holds(const double* out) const {
  bool finite = true;
  for (std::size_t k = 0; k < stage_size(); ++k) finite &= std::isfinite(out[k]);
  bool positive = true;
  for (std::size_t k = 0; k < n_; ++k) positive &= out[n_ + 2 + k] > 0.0;
  return finite && positive && out[n_ + 1] != 0.0;
}

}  // namespace tether::reduce
