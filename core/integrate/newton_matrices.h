// The Newton matrices of an implicit Runge–Kutta step for M x' = F(t, x) (stepper.h):
//   E(σ) = σ·M − J,   J = ∂F/∂x at the step's start,
// for one real shift σ_r and one complex shift σ_c (radau5: γ/h and (α + iβ)/h, radau5.h),
// together with J itself (symbolic or by forward differences) and the product M·v.
// Private to core/integrate.
//
// M and J arrive from OdeSystem as fixed sparsity patterns plus values. Storage follows size
// and density: systems with a symbolic Jacobian, n ≥ StepperOptions::sparse_min_size and a
// union of J's and M's patterns (M = I: the diagonal) of at most sparse_max_density · n²
// entries are sparse (compressed columns over that union, factored by KLU,
// tether/linalg/klu_factorization.h); all others are dense (Eigen's LU with partial pivoting,
// assembled straight into the factor's storage).
//
// A dense factor is singular when a pivot of U is exactly zero or not finite (the test of
// Hairer's DEC/DECC, which RADAU5 uses); KLU reports its zero pivots itself.
//
// Memory: dense storage (J, M unless M = I, the real and the complex factor: ≤ 5 n² doubles)
// is allocated by Resize when n < sparse_min_size, else by the first Adopt that needs it.
// Adopt allocates whenever the structure differs from the last one adopted; everything else
// works in that storage, except KLU's full factorizations (tether/linalg/klu_factorization.h).
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "tether/linalg/klu_factorization.h"
#include "tether/integrate/stepper.h"

namespace tether::integrate {

class NewtonMatrices {
 public:
  // Sizes for n components and forgets the structure; the options choose dense or sparse.
  void Resize(std::size_t n, const StepperOptions& options);

  // Takes the system's mass matrix and Jacobian pattern. Returns true iff they differ from
  // the last ones taken (by pattern or M's values): J and the factors are then void.
  bool Adopt(const OdeSystem& system);

  // J ← ∂F/∂x (t, x): OdeSystem::Jacobian when the system has a pattern, otherwise forward
  // differences (RADAU5): column j ≈ (F(t, x + δ_j e_j) − f0)/δ_j with
  // δ_j = √(ε · max(1e-5, |x_j|)) and f0 = F(t, x), n evaluations. kRhsFailed or kNonFinite
  // when an evaluation fails or J holds NaN/∞.
  StepStatus EvaluateJacobian(OdeSystem& system, double t, std::span<const double> x,
                              std::span<const double> f0, int* evaluations);

  // Factors E(σ_r) and E(σ_c) with the current J. False if either is singular.
  bool Factor(double real_shift, std::complex<double> complex_shift);
  // True iff the last Factor succeeded and nothing voided it since (a copy of a sparse
  // instance starts unfactored).
  [[nodiscard]] bool factored() const;

  // b ← E(σ_r)⁻¹ b.
  void SolveReal(std::span<double> b);
  // (re + i·im) ← E(σ_c)⁻¹ (re + i·im).
  void SolveComplex(std::span<double> re, std::span<double> im);
  // out ← M v (out = v when M = I); v and out do not alias.
  void MassTimes(std::span<const double> v, std::span<double> out) const;

  [[nodiscard]] bool sparse() const { return sparse_; }
  [[nodiscard]] bool mass_is_identity() const { return mass_pattern_.empty(); }
  // True iff some row of M is zero (an algebraic equation 0 = F_i).
  [[nodiscard]] bool has_algebraic_rows() const { return has_algebraic_rows_; }

 private:
  void AllocateDense();
  // E's pattern: every entry of J and of M (M = I: the diagonal) as (column, row), sorted.
  [[nodiscard]] std::vector<std::pair<std::uint32_t, std::uint32_t>> UnionPattern() const;
  void BuildSparseStructure(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& entries);
  void FactorDense(double real_shift, std::complex<double> complex_shift);
  void FactorSparse(double real_shift, std::complex<double> complex_shift);

  std::size_t n_ = 0;
  std::size_t sparse_min_size_ = 0;
  double sparse_max_density_ = 0.0;
  bool sparse_ = false;
  bool factored_ = false;

  // The adopted structure: M as entries (empty = identity) and J's pattern (empty = none).
  std::vector<MatrixEntry> mass_pattern_;
  std::vector<double> mass_values_;
  bool has_algebraic_rows_ = false;
  std::vector<MatrixEntry> jacobian_pattern_;
  std::vector<double> jacobian_values_;  // one per pattern entry (symbolic Jacobian)
  bool adopted_ = false;

  // Dense storage (column-major).
  Eigen::MatrixXd jacobian_;
  Eigen::MatrixXd mass_;  // M dense, empty when M = I
  Eigen::PartialPivLU<Eigen::MatrixXd> real_lu_;
  Eigen::PartialPivLU<Eigen::MatrixXcd> complex_lu_;
  Eigen::VectorXd real_solution_;
  Eigen::VectorXcd complex_rhs_, complex_solution_;
  std::vector<double> difference_x_, difference_f_;  // forward-difference work, n each

  // Sparse storage: E's pattern in compressed columns, where each entry of J and of M lands,
  // and the values of E(σ_r) and E(σ_c) ((re, im) pairs).
  std::vector<int> column_pointers_, row_indices_;
  std::vector<std::size_t> jacobian_slot_, mass_slot_;
  std::vector<double> real_values_, complex_values_, complex_work_;
  linalg::KluFactorization real_klu_{linalg::KluFactorization::Values::kReal};
  linalg::KluFactorization complex_klu_{linalg::KluFactorization::Values::kComplex};
};

}  // namespace tether::integrate
