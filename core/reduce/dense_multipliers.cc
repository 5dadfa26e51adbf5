#include "tether/reduce/dense_multipliers.h"

#include <array>
#include <utility>

#include "tether/reduce/rank.h"

namespace tether::reduce {

DenseMultipliers::DenseMultipliers(std::size_t n, std::size_t m, dense::Kernels kernels)
    : n_(n),
      m_(m),
      pivot_threshold_(RelativePivotThreshold(n)),
      solve_(kernels == dense::Kernels::kGeneral ? &SolveSized<0, 0> : KernelFor(n, m)),
      fixed_size_(solve_ != &SolveSized<0, 0>),
      minv_f_(n, 0.0),
      minv_jt_(m * n, 0.0),
      schur_(m * m, 0.0),
      schur_d_(m, 0.0),
      schur_perm_(m, 0),
      solve_work_(m, 0.0) {
  mass_factor_.Resize(n);
}

template <std::size_t N, std::size_t M>
MultiplierStatus DenseMultipliers::SolveSized(DenseMultipliers& self, const double* stage,
                                              double alpha, double beta, double* vdot,
                                              double* lambda) {
  const std::size_t n = dense::SizeOf<N>(self.n_);
  const std::size_t m = dense::SizeOf<M>(self.m_);
  const double* mass = stage;
  const double* f = mass + n * n;
  const double* phi_q = f + n;
  const double* a = phi_q + m * n;
  const double* phi = a + m;
  const double* h = phi + m;
  if (!self.mass_factor_.Factor<N>(mass)) return MultiplierStatus::kMassNotPositive;
  double* w = self.minv_f_.data();
  for (std::size_t k = 0; k < n; ++k) w[k] = f[k];
  self.mass_factor_.Solve<N>(w);  // w = M⁻¹ f
  for (std::size_t k = 0; k < n; ++k) vdot[k] = w[k];
  if (m == 0) return MultiplierStatus::kOk;
  double* x = self.minv_jt_.data();
  for (std::size_t k = 0; k < m * n; ++k) x[k] = phi_q[k];
  for (std::size_t i = 0; i < m; ++i) self.mass_factor_.Solve<N>(x + i * n);
  if constexpr (M == 1) {  // S = s: its LDLᵀ is D = s
    double s = 0.0;
    double rhs = -(a[0] + 2.0 * alpha * h[0] + beta * beta * phi[0]);
    for (std::size_t k = 0; k < n; ++k) {
      s += phi_q[k] * x[k];
      rhs -= phi_q[k] * w[k];
    }
    if (dense::LdltIsRankDeficient<1>(&s, 1, self.pivot_threshold_)) {
      return MultiplierStatus::kSingular;
    }
    lambda[0] = rhs / s;
  } else {
    double* schur = self.schur_.data();
    dense::SymmetricProduct<N, M>(phi_q, x, m, n, schur);
    dense::Ldlt<M>(schur, m, self.schur_d_.data(), self.schur_perm_.data());
    if (dense::LdltIsRankDeficient<M>(self.schur_d_.data(), m, self.pivot_threshold_)) {
      return MultiplierStatus::kSingular;
    }
    for (std::size_t i = 0; i < m; ++i) {
      double rhs = -(a[i] + 2.0 * alpha * h[i] + beta * beta * phi[i]);
      for (std::size_t k = 0; k < n; ++k) rhs -= phi_q[i * n + k] * w[k];
      lambda[i] = rhs;
    }
    dense::LdltSolve<M>(schur, self.schur_d_.data(), self.schur_perm_.data(), m, lambda,
                        self.solve_work_.data());
  }
  for (std::size_t i = 0; i < m; ++i) {  // v' = w + Σ_i λ_i X_i
    for (std::size_t k = 0; k < n; ++k) vdot[k] += lambda[i] * x[i * n + k];
  }
  return MultiplierStatus::kOk;
}

namespace {

constexpr std::size_t kN = DenseMultipliers::kMaxFixedCoordinates;
constexpr std::size_t kM = DenseMultipliers::kMaxFixedConstraints;

}  // namespace

DenseMultipliers::Kernel DenseMultipliers::KernelFor(std::size_t n, std::size_t m) {
  // table[m - 1][n - 1] = SolveSized<n, m>.
  static constexpr auto table = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<Kernel, sizeof...(I)>{&SolveSized<I % kN + 1, I / kN + 1>...};
  }(std::make_index_sequence<kN * kM>{});
  if (n == 0 || m == 0 || n > kN || m > kM) return &SolveSized<0, 0>;
  return table[(m - 1) * kN + (n - 1)];
}

}  // namespace tether::reduce
