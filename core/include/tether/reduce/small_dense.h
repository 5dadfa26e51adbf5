// Unblocked dense kernels for the tiny matrices of a stage solve and of a projection step: the
// mass matrix M (n × n) and the Schur complements S = Φ_q M⁻¹ Φ_qᵀ, H W⁻¹ Hᵀ (m × m), with n and
// m of a few to a few dozen. Eigen's dynamic-size LLT/LDLT route these through blocked,
// size-generic algorithms whose set-up dominates at such sizes (7.6× a hand-written
// pendulum step); these are the textbook loops on row-major arrays. All allocation-free; the
// caller owns the storage.
#pragma once

#include <cstddef>

namespace tether::reduce::dense {

// Cholesky A = L Lᵀ of the symmetric positive definite row-major n × n `a`, in place: the lower
// triangle becomes L (the strict upper triangle is left as it was). False iff a pivot is not
// > 0, i.e. A is not positive definite (or holds a NaN).
bool Cholesky(double* a, std::size_t n);

// x ← A⁻¹ x with the factor of Cholesky (forward L, back Lᵀ).
void CholeskySolve(const double* l, std::size_t n, double* x);

// Pivoted LDLᵀ of the symmetric positive semidefinite row-major m × m `a`, in place, with the
// diagonal pivoting of Eigen::LDLT (largest remaining |diagonal| first): P A Pᵀ = L D Lᵀ with L
// unit lower triangular in the strict lower triangle of `a`, D in `d` (m), and perm[k] the
// original index of the row moved to position k. Once the largest remaining pivot is 0 the
// rest of D is set to 0 (for a semidefinite A the remaining block is then 0).
void Ldlt(double* a, std::size_t m, double* d, std::size_t* perm);

// True iff min |D_i| ≤ threshold · max |D_j| or max |D_j| is not > 0, as
// reduce::LdltIsRankDeficient decides it for Eigen's factor.
bool LdltIsRankDeficient(const double* d, std::size_t m, double threshold);

// x ← A⁻¹ x with the factor of Ldlt (only for a factor that is not rank-deficient); `work`
// holds m doubles.
void LdltSolve(const double* l, const double* d, const std::size_t* perm, std::size_t m,
               double* x, double* work);

}  // namespace tether::reduce::dense
