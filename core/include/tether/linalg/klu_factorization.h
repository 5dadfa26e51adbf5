// Sparse LU of a square matrix in compressed-column form by SuiteSparse's KLU (T. A. Davis and
// E. Palamadai Natarajan, "Algorithm 907: KLU, a direct sparse solver for circuit simulation
// problems", ACM TOMS 37(3), 2010), with real or complex values: the algebraic equations' c_y
// (core/reduce) and the implicit steppers' Newton matrices (core/integrate).
//
// KLU is used, rather than Eigen's SparseLU, because it refactors a matrix of unchanged pattern
// without allocating (klu_refactor reuses the pivot sequence of the last full factorization),
// which keeps Step allocation-free after the first factorization (stepper.h).
//
// Factor(pattern, values):
//   - the first call (and the first after Reset or a copy) runs the symbolic analysis
//     (klu_analyze: block triangular form, then AMD ordering of each block) and a full
//     numeric factorization with partial pivoting (klu_factor); both allocate;
//   - later calls refactor with the kept pivots (klu_refactor, no allocation), then check
//     KLU's reciprocal pivot ratio rcond = min|U_kk| / max|U_kk|: below kRefactorRcond the
//     kept pivots have degraded on the new values, and the matrix is factored afresh
//     (klu_factor, allocates) — as SUNDIALS' SUNLinSol_KLU does, with the same threshold
//     ε^(2/3) ≈ 3.7e-11;
//   - a zero pivot in the fresh factorization (KLU_SINGULAR) makes Factor return false.
// The pattern (column pointers and row indices) must be the one analysed until Reset.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

namespace tether::linalg {

class KluFactorization {
 public:
  enum class Values { kReal, kComplex };

  explicit KluFactorization(Values values);
  ~KluFactorization();
  // KLU's objects cannot be copied: a copy starts unfactored (it re-analyses at its next
  // Factor, which allocates). This keeps Stepper::Clone a plain copy of its members.
  KluFactorization(const KluFactorization& other);
  KluFactorization& operator=(const KluFactorization& other);

  // Forgets the analysis and the factors (call when the pattern changes).
  void Reset();
  // Factors A given by n + 1 column pointers, its row indices and its values (one per entry,
  // real; or (re, im) pairs, complex). False if A is singular or KLU fails.
  bool Factor(std::span<int> column_pointers, std::span<int> row_indices,
              std::span<double> values);
  // Factor held to the rank test of a pivoted LU (tether/reduce/rank.h): true iff A is factored
  // with pivot_ratio() > min_pivot_ratio (a NaN ratio fails). Pivots kept from an earlier
  // matrix may have degraded below min_pivot_ratio yet stayed above kRefactorRcond, so a
  // failing refactorization is retried once with pivots chosen for these values (Reset), and
  // only that decides.
  bool FactorRegular(std::span<int> column_pointers, std::span<int> row_indices,
                     std::span<double> values, double min_pivot_ratio);
  // b ← A⁻¹ b for the last successful Factor; b has n (real) or 2n (re, im pairs) entries.
  void Solve(std::span<double> b);
  [[nodiscard]] bool factored() const;
  // min_k |U_kk| / max_k |U_kk| of the last successful Factor (KLU's klu_rcond, computed once
  // per factorization; a NaN ratio compares false), the rank test of a pivoted LU
  // (tether/reduce/rank.h).
  [[nodiscard]] double pivot_ratio() const { return pivot_ratio_; }
  // Full factorizations (klu_factor) so far: each allocates.
  [[nodiscard]] int full_factorizations() const { return full_factorizations_; }

  // ε^(2/3): pivots kept by klu_refactor whose ratio falls below this are renewed.
  static constexpr double kRefactorRcond = 3.7e-11;

 private:
  struct Klu;  // KLU's settings, symbolic and numeric objects (klu.h stays in the .cc)

  bool FactorAfresh(std::span<int> column_pointers, std::span<int> row_indices,
                    std::span<double> values);
  void UpdatePivotRatio();  // klu_rcond of the current factors into pivot_ratio_

  Values values_;
  std::unique_ptr<Klu> klu_;
  int full_factorizations_ = 0;
  double pivot_ratio_ = 0.0;
};

}  // namespace tether::linalg
