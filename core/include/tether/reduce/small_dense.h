// Unblocked dense kernels for the tiny matrices of a stage solve and of a projection step: the
// mass matrix M (n × n) and the Schur complements S = Φ_q M⁻¹ Φ_qᵀ, H W⁻¹ Hᵀ (m × m), with n and
// m of a few to a few dozen. Eigen's dynamic-size LLT/LDLT route these through blocked,
// size-generic algorithms whose set-up dominates at such sizes (7.6× a hand-written
// pendulum step); these are the textbook loops on row-major arrays. All allocation-free; the
// caller owns the storage.
//
// Each kernel takes its size at run time (N = 0, the default) or at compile time (N > 0, then
// the run-time size must equal N): the same loops in the same order, which the compiler
// unrolls for a fixed N, so both give bitwise the same results.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <utility>

namespace tether::reduce::dense {

// Which kernels a user of these picks for a system: those compiled for its sizes where it is
// small enough (the default), or the general ones (the reference the others are tested
// against).
enum class Kernels { kFixedSizeWhereSmall, kGeneral };

// dst ← src element by element, for the few values a stage or a projection moves (a state into
// a program's inputs, its outputs out). The values were typically just stored by vector code
// (a stepper's stage arithmetic) or one by one (the programs' machine code); the wide loads of
// a memmove straddle those stores and wait for them to retire, while scalar loads take their
// values directly. The empty asm keeps the compiler from turning the loop back into a memmove.
inline void CopyScalars(std::span<const double> src, double* dst) {
  for (std::size_t i = 0; i < src.size(); ++i) {
    double value = src[i];
#if defined(__GNUC__) && defined(__x86_64__)
    asm("" : "+x"(value));
#endif
    dst[i] = value;
  }
}

// The size a kernel runs with: N when fixed at compile time, else the run-time n.
template <std::size_t N>
constexpr std::size_t SizeOf(std::size_t n) {
  return N > 0 ? N : n;
}

// S = A Xᵀ for row-major m × n A and X where S is known to be symmetric (X = A W⁻¹ with W
// symmetric): the lower triangle's inner products, mirrored into the upper one.
template <std::size_t N = 0, std::size_t M = 0>
void SymmetricProduct(const double* a, const double* x, std::size_t m_run, std::size_t n_run,
                      double* s) {
  const std::size_t m = SizeOf<M>(m_run);
  const std::size_t n = SizeOf<N>(n_run);
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j <= i; ++j) {
      double sum = 0.0;
      for (std::size_t k = 0; k < n; ++k) sum += a[i * n + k] * x[j * n + k];
      s[i * m + j] = sum;
      s[j * m + i] = sum;
    }
  }
}

// Cholesky A = L Lᵀ of the symmetric positive definite row-major n × n `a`, in place: the lower
// triangle becomes L (the strict upper triangle is left as it was). False iff a pivot is not
// > 0, i.e. A is not positive definite (or holds a NaN).
template <std::size_t N = 0>
bool Cholesky(double* a, std::size_t n_run) {
  const std::size_t n = SizeOf<N>(n_run);
  for (std::size_t j = 0; j < n; ++j) {
    double pivot = a[j * n + j];
    for (std::size_t k = 0; k < j; ++k) pivot -= a[j * n + k] * a[j * n + k];
    if (!(pivot > 0.0)) return false;
    const double l_jj = std::sqrt(pivot);
    a[j * n + j] = l_jj;
    for (std::size_t i = j + 1; i < n; ++i) {
      double sum = a[i * n + j];
      for (std::size_t k = 0; k < j; ++k) sum -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = sum / l_jj;
    }
  }
  return true;
}

// x ← A⁻¹ x with the factor of Cholesky (forward L, back Lᵀ).
template <std::size_t N = 0>
void CholeskySolve(const double* l, std::size_t n_run, double* x) {
  const std::size_t n = SizeOf<N>(n_run);
  for (std::size_t i = 0; i < n; ++i) {  // L y = x
    double sum = x[i];
    for (std::size_t k = 0; k < i; ++k) sum -= l[i * n + k] * x[k];
    x[i] = sum / l[i * n + i];
  }
  for (std::size_t i = n; i-- > 0;) {  // Lᵀ x = y
    double sum = x[i];
    for (std::size_t k = i + 1; k < n; ++k) sum -= l[k * n + i] * x[k];
    x[i] = sum / l[i * n + i];
  }
}

// Pivoted LDLᵀ of the symmetric positive semidefinite row-major m × m `a`, in place, with the
// diagonal pivoting of Eigen::LDLT (largest remaining |diagonal| first): P A Pᵀ = L D Lᵀ with L
// unit lower triangular in the strict lower triangle of `a`, D in `d` (m), and perm[k] the
// original index of the row moved to position k. Once the largest remaining pivot is 0 the
// rest of D is set to 0 (for a semidefinite A the remaining block is then 0).
template <std::size_t N = 0>
void Ldlt(double* a, std::size_t m_run, double* d, std::size_t* perm) {
  const std::size_t m = SizeOf<N>(m_run);
  for (std::size_t k = 0; k < m; ++k) perm[k] = k;
  for (std::size_t k = 0; k < m; ++k) {
    std::size_t p = k;
    for (std::size_t i = k + 1; i < m; ++i) {
      if (std::abs(a[i * m + i]) > std::abs(a[p * m + p])) p = i;
    }
    if (p != k) {  // swap rows and columns p and k
      for (std::size_t j = 0; j < m; ++j) std::swap(a[k * m + j], a[p * m + j]);
      for (std::size_t i = 0; i < m; ++i) std::swap(a[i * m + k], a[i * m + p]);
      std::swap(perm[k], perm[p]);
    }
    const double pivot = a[k * m + k];
    if (pivot == 0.0) {
      for (std::size_t r = k; r < m; ++r) {
        d[r] = 0.0;
        for (std::size_t i = r + 1; i < m; ++i) a[i * m + r] = 0.0;
      }
      return;
    }
    d[k] = pivot;
    for (std::size_t i = k + 1; i < m; ++i) {
      const double l_ik = a[i * m + k] / pivot;
      for (std::size_t j = k + 1; j <= i; ++j) {
        a[i * m + j] -= l_ik * a[j * m + k];  // a[j][k] still holds the unscaled column
        a[j * m + i] = a[i * m + j];
      }
    }
    for (std::size_t i = k + 1; i < m; ++i) a[i * m + k] /= pivot;
  }
}

// True iff min |D_i| ≤ threshold · max |D_j| or max |D_j| is not > 0, as
// reduce::LdltIsRankDeficient decides it for Eigen's factor.
template <std::size_t N = 0>
bool LdltIsRankDeficient(const double* d, std::size_t m_run, double threshold) {
  const std::size_t m = SizeOf<N>(m_run);
  if (m == 0) return false;
  double largest = 0.0;
  double smallest = std::abs(d[0]);
  for (std::size_t i = 0; i < m; ++i) {
    if (std::isnan(d[i])) return true;
    largest = std::max(largest, std::abs(d[i]));
    smallest = std::min(smallest, std::abs(d[i]));
  }
  if (!(largest > 0.0)) return true;
  return smallest <= threshold * largest;
}

// x ← A⁻¹ x with the factor of Ldlt (only for a factor that is not rank-deficient); `work`
// holds m doubles.
template <std::size_t N = 0>
void LdltSolve(const double* l, const double* d, const std::size_t* perm, std::size_t m_run,
               double* x, double* work) {
  const std::size_t m = SizeOf<N>(m_run);
  for (std::size_t k = 0; k < m; ++k) work[k] = x[perm[k]];  // y = P x
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t k = 0; k < i; ++k) work[i] -= l[i * m + k] * work[k];
  }
  for (std::size_t i = 0; i < m; ++i) work[i] /= d[i];
  for (std::size_t i = m; i-- > 0;) {
    for (std::size_t k = i + 1; k < m; ++k) work[i] -= l[k * m + i] * work[k];
  }
  for (std::size_t k = 0; k < m; ++k) x[perm[k]] = work[k];
}

}  // namespace tether::reduce::dense
