#include "tether/reduce/closed_form_multipliers.h"

#include <array>
#include <cmath>

#include "tether/reduce/rank.h"
#include "tether/reduce/small_dense.h"
#include "tether/reduce/sparse_multipliers.h"

namespace tether::reduce {

using expr::Expr;

namespace {

// Rank test with this margin over DenseMultipliers' threshold (header comment).
constexpr double kThresholdMargin = 2.0;

}  // namespace

bool ClosedFormMultipliers::Applies(const expr::Context& cx, const std::vector<Expr>& mass,
                                    std::size_t n, std::size_t m) {
  return m >= 1 && m <= kMaxConstraints && SparseMultipliers::IsDiagonal(cx, mass, n);
}

ClosedFormMultipliers::ClosedFormMultipliers(std::size_t n, std::size_t m)
    : n_(n), m_(m), pivot_threshold_(RelativePivotThreshold(n)) {}

std::vector<Expr> ClosedFormMultipliers::StageOutputs(
    expr::Context& cx, const std::vector<Expr>& v, const std::vector<Expr>& mass,
    const std::vector<Expr>& forces, const std::vector<std::vector<Expr>>& phi_q,
    const std::vector<Expr>& a, const std::vector<Expr>& phi, const std::vector<Expr>& h,
    Expr alpha, Expr beta) {
  const std::size_t n = forces.size();
  const std::size_t m = phi_q.size();
  std::vector<Expr> d(n), w(n);
  for (std::size_t k = 0; k < n; ++k) {
    d[k] = mass[k * n + k];
    w[k] = cx.Div(forces[k], d[k]);
  }
  // Φ_ak/d_k; a structural zero of Φ_q stays out of every sum below.
  std::vector<std::vector<Expr>> x(m, std::vector<Expr>(n));
  // r_a = −(a_a + 2α h_a + β²Φ_a) − Σ_k Φ_ak w_k.
  std::vector<Expr> r(m);
  for (std::size_t i = 0; i < m; ++i) {
    r[i] = cx.Neg(cx.Add(cx.Add(a[i], cx.Mul(cx.Mul(cx.Constant(2.0), alpha), h[i])),
                         cx.Mul(cx.Mul(beta, beta), phi[i])));
    for (std::size_t k = 0; k < n; ++k) {
      if (cx.is_constant(phi_q[i][k], 0.0)) continue;
      x[i][k] = cx.Div(phi_q[i][k], d[k]);
      r[i] = cx.Sub(r[i], cx.Mul(phi_q[i][k], w[k]));
    }
  }
  // S_ij = Σ_k Φ_ik x_jk over the k where both are structurally non-zero, upper triangle.
  const auto schur = [&](std::size_t i, std::size_t j) {
    Expr sum = cx.Constant(0.0);
    bool first = true;
    for (std::size_t k = 0; k < n; ++k) {
      if (cx.is_constant(phi_q[i][k], 0.0) || cx.is_constant(phi_q[j][k], 0.0)) continue;
      const Expr term = cx.Mul(phi_q[i][k], x[j][k]);
      sum = first ? term : cx.Add(sum, term);
      first = false;
    }
    return sum;
  };
  std::vector<Expr> lambda(m);
  std::vector<Expr> s;
  if (m == 1) {
    s = {schur(0, 0)};
    lambda[0] = cx.Div(r[0], s[0]);
  } else {
    const Expr s11 = schur(0, 0);
    const Expr s12 = schur(0, 1);
    const Expr s22 = schur(1, 1);
    const Expr det = cx.Sub(cx.Mul(s11, s22), cx.Mul(s12, s12));
    lambda[0] = cx.Div(cx.Sub(cx.Mul(s22, r[0]), cx.Mul(s12, r[1])), det);
    lambda[1] = cx.Div(cx.Sub(cx.Mul(s11, r[1]), cx.Mul(s12, r[0])), det);
    s = {s11, s22, det};
  }
  std::vector<Expr> out = v;              // q' = v
  for (std::size_t k = 0; k < n; ++k) {  // v'_k = w_k + Σ_a λ_a x_ak
    Expr vdot = w[k];
    for (std::size_t i = 0; i < m; ++i) {
      if (!cx.is_constant(phi_q[i][k], 0.0)) vdot = cx.Add(vdot, cx.Mul(lambda[i], x[i][k]));
    }
    out.push_back(vdot);
  }
  out.insert(out.end(), lambda.begin(), lambda.end());
  out.insert(out.end(), s.begin(), s.end());
  out.insert(out.end(), d.begin(), d.end());
  return out;
}

bool ClosedFormMultipliers::Holds(const double* vdot, const double* tail) const {
  bool finite = true;
  for (std::size_t k = 0; k < n_; ++k) finite &= std::isfinite(vdot[k]);
  for (std::size_t k = 0; k < tail_size(); ++k) finite &= std::isfinite(tail[k]);
  const double* s = tail + m_;
  const double* d = s + SchurEntries(m_);
  bool positive = true;
  for (std::size_t k = 0; k < n_; ++k) positive &= d[k] > 0.0;
  return finite && positive && SchurIsRegular(s);
}

bool ClosedFormMultipliers::SchurIsRegular(const double* s) const {
  if (m_ == 1) return s[0] != 0.0;
  // The pivots of Ldlt<2>: the larger diagonal entry first (the first on a tie), then
  // det/D_1 = S_qq − S_12²/D_1, from the det the program computed for Cramer's rule.
  const double first = std::abs(s[1]) > std::abs(s[0]) ? s[1] : s[0];
  const std::array<double, 2> pivots = {first, s[2] / first};
  return !dense::LdltIsRankDeficient<2>(pivots.data(), 2, kThresholdMargin * pivot_threshold_);
}

}  // namespace tether::reduce
