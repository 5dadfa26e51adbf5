#include "integrate/newton_matrices.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <utility>

#include "integrate/stage.h"

namespace tether::integrate {

namespace {

template <typename T>
bool SameElements(const std::vector<T>& kept, std::span<const T> given) {
  return kept.size() == given.size() &&
         (given.empty() || std::memcmp(kept.data(), given.data(), given.size_bytes()) == 0);
}

// Internal invariant (always on): a pattern entry outside the n × n matrix is a programming
// error of the system, so it aborts with a message naming the matrix and the entry.
void CheckPattern(const char* matrix, std::span<const MatrixEntry> pattern, std::size_t n,
                  std::size_t values) {
  if (values != pattern.size()) {
    std::fprintf(stderr, "tether::integrate: OdeSystem gives %zu values for %zu %s entries\n",
                 values, pattern.size(), matrix);
    std::abort();
  }
  for (const MatrixEntry& e : pattern) {
    if (e.row < n && e.col < n) continue;
    std::fprintf(stderr, "tether::integrate: %s entry (%u, %u) outside the %zu x %zu matrix\n",
                 matrix, e.row, e.col, n, n);
    std::abort();
  }
}

// A factor with a zero or non-finite pivot is singular (Hairer's DEC: "IER = K if U(K,K) = 0").
template <typename Lu>
bool PivotsAreRegular(const Lu& lu) {
  const auto diagonal = lu.matrixLU().diagonal();
  for (Eigen::Index k = 0; k < diagonal.size(); ++k) {
    const double magnitude = std::abs(diagonal[k]);
    if (!(magnitude > 0.0) || !std::isfinite(magnitude)) return false;
  }
  return true;
}

// True iff some row of the n × n matrix given by entries and values has no non-zero value
// (an empty pattern is the identity).
bool HasZeroRow(std::size_t n, const std::vector<MatrixEntry>& pattern,
                const std::vector<double>& values) {
  if (pattern.empty()) return false;
  std::size_t nonzero_rows = 0;
  std::vector<bool> seen(n, false);  // only on a change of structure: may allocate
  for (std::size_t k = 0; k < pattern.size(); ++k) {
    if (values[k] == 0.0 || seen[pattern[k].row]) continue;
    seen[pattern[k].row] = true;
    ++nonzero_rows;
  }
  return nonzero_rows < n;
}

}  // namespace

void NewtonMatrices::Resize(std::size_t n, const StepperOptions& options) {
  n_ = n;
  sparse_min_size_ = options.sparse_min_size;
  sparse_max_density_ = options.sparse_max_density;
  adopted_ = false;
  factored_ = false;
  sparse_ = false;
  difference_x_.assign(n, 0.0);
  difference_f_.assign(n, 0.0);
  if (n < sparse_min_size_) AllocateDense();
}

void NewtonMatrices::AllocateDense() {
  const auto n = static_cast<Eigen::Index>(n_);
  if (jacobian_.rows() == n) return;
  jacobian_.setZero(n, n);
  real_lu_ = Eigen::PartialPivLU<Eigen::MatrixXd>(n);
  complex_lu_ = Eigen::PartialPivLU<Eigen::MatrixXcd>(n);
  real_solution_.setZero(n);
  complex_rhs_.setZero(n);
  complex_solution_.setZero(n);
}

bool NewtonMatrices::Adopt(const OdeSystem& system) {
  const std::span<const MatrixEntry> mass_pattern = system.mass_pattern();
  const std::span<const double> mass_values = system.mass_values();
  const std::span<const MatrixEntry> jacobian_pattern = system.jacobian_pattern();
  const bool same_pattern = adopted_ && SameElements(mass_pattern_, mass_pattern) &&
                            SameElements(jacobian_pattern_, jacobian_pattern);
  if (same_pattern && SameElements(mass_values_, mass_values)) return false;
  factored_ = false;
  if (!same_pattern) {
    CheckPattern("mass", mass_pattern, n_, mass_values.size());
    CheckPattern("Jacobian", jacobian_pattern, n_, jacobian_pattern.size());
    mass_pattern_.assign(mass_pattern.begin(), mass_pattern.end());
    jacobian_pattern_.assign(jacobian_pattern.begin(), jacobian_pattern.end());
    jacobian_values_.assign(jacobian_pattern.size(), 0.0);
    adopted_ = true;
    sparse_ = false;
    if (!jacobian_pattern_.empty() && n_ >= sparse_min_size_) {
      const auto entries = UnionPattern();
      const double n = static_cast<double>(n_);
      sparse_ = static_cast<double>(entries.size()) <= sparse_max_density_ * n * n;
      if (sparse_) BuildSparseStructure(entries);
    }
  }
  mass_values_.assign(mass_values.begin(), mass_values.end());
  has_algebraic_rows_ = HasZeroRow(n_, mass_pattern_, mass_values_);
  if (sparse_) return true;
  AllocateDense();
  if (mass_is_identity()) {
    mass_.resize(0, 0);
    return true;
  }
  const auto n = static_cast<Eigen::Index>(n_);
  mass_.setZero(n, n);
  // Repeated entries add up, as in the sparse assembly.
  for (std::size_t k = 0; k < mass_values_.size(); ++k) {
    mass_(mass_pattern_[k].row, mass_pattern_[k].col) += mass_values_[k];
  }
  return true;
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> NewtonMatrices::UnionPattern() const {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> entries;  // (col, row)
  for (const MatrixEntry& e : jacobian_pattern_) entries.emplace_back(e.col, e.row);
  if (mass_is_identity()) {
    for (std::size_t i = 0; i < n_; ++i) {
      entries.emplace_back(static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i));
    }
  } else {
    for (const MatrixEntry& e : mass_pattern_) entries.emplace_back(e.col, e.row);
  }
  std::sort(entries.begin(), entries.end());
  entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
  return entries;
}

void NewtonMatrices::BuildSparseStructure(
    const std::vector<std::pair<std::uint32_t, std::uint32_t>>& entries) {
  column_pointers_.assign(n_ + 1, 0);
  row_indices_.resize(entries.size());
  for (std::size_t k = 0; k < entries.size(); ++k) {
    ++column_pointers_[entries[k].first + 1];
    row_indices_[k] = static_cast<int>(entries[k].second);
  }
  for (std::size_t j = 0; j < n_; ++j) column_pointers_[j + 1] += column_pointers_[j];

  // slot(row, col) = position of (col, row) in the sorted entries.
  const auto slot = [&](std::uint32_t row, std::uint32_t col) {
    const auto it = std::lower_bound(entries.begin(), entries.end(), std::make_pair(col, row));
    return static_cast<std::size_t>(it - entries.begin());
  };
  jacobian_slot_.resize(jacobian_pattern_.size());
  for (std::size_t k = 0; k < jacobian_pattern_.size(); ++k) {
    jacobian_slot_[k] = slot(jacobian_pattern_[k].row, jacobian_pattern_[k].col);
  }
  const std::size_t mass_entries = mass_is_identity() ? n_ : mass_pattern_.size();
  mass_slot_.resize(mass_entries);
  for (std::size_t k = 0; k < mass_entries; ++k) {
    const auto i = static_cast<std::uint32_t>(k);
    mass_slot_[k] = mass_is_identity() ? slot(i, i)
                                       : slot(mass_pattern_[k].row, mass_pattern_[k].col);
  }
  real_values_.assign(entries.size(), 0.0);
  complex_values_.assign(2 * entries.size(), 0.0);
  complex_work_.assign(2 * n_, 0.0);
  real_klu_.Reset();
  complex_klu_.Reset();
}

StepStatus NewtonMatrices::EvaluateJacobian(OdeSystem& system, double t,
                                            std::span<const double> x,
                                            std::span<const double> f0, int* evaluations) {
  factored_ = false;
  if (!jacobian_pattern_.empty()) {
    if (!system.Jacobian(t, x, jacobian_values_)) return StepStatus::kRhsFailed;
    if (!AllFinite(jacobian_values_)) return StepStatus::kNonFinite;
    if (sparse_) return StepStatus::kAccepted;
    jacobian_.setZero();
    for (std::size_t k = 0; k < jacobian_pattern_.size(); ++k) {
      jacobian_(jacobian_pattern_[k].row, jacobian_pattern_[k].col) += jacobian_values_[k];
    }
    return StepStatus::kAccepted;
  }
  // Forward differences, one column per evaluation (RADAU5's "JACOBIAN IS FULL" branch).
  std::copy(x.begin(), x.end(), difference_x_.begin());
  for (std::size_t j = 0; j < n_; ++j) {
    const double xj = difference_x_[j];
    const double delta = std::sqrt(std::numeric_limits<double>::epsilon() *
                                   std::max(1e-5, std::abs(xj)));
    difference_x_[j] = xj + delta;
    const StepStatus status =
        EvaluateStage(system, t, difference_x_, difference_f_, evaluations);
    difference_x_[j] = xj;
    if (status != StepStatus::kAccepted) return status;
    for (std::size_t i = 0; i < n_; ++i) {
      jacobian_(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) =
          (difference_f_[i] - f0[i]) / delta;
    }
  }
  return StepStatus::kAccepted;
}

bool NewtonMatrices::Factor(double real_shift, std::complex<double> complex_shift) {
  if (sparse_) {
    FactorSparse(real_shift, complex_shift);
  } else {
    FactorDense(real_shift, complex_shift);
  }
  return factored_;
}

bool NewtonMatrices::factored() const {
  if (!factored_) return false;
  return !sparse_ || (real_klu_.factored() && complex_klu_.factored());
}

void NewtonMatrices::FactorDense(double real_shift, std::complex<double> complex_shift) {
  const auto n = static_cast<Eigen::Index>(n_);
  // E(σ) = σ·M − J, evaluated straight into each factor's storage (no temporary).
  if (mass_is_identity()) {
    real_lu_.compute(real_shift * Eigen::MatrixXd::Identity(n, n) - jacobian_);
    complex_lu_.compute(complex_shift * Eigen::MatrixXcd::Identity(n, n) -
                        jacobian_.cast<std::complex<double>>());
  } else {
    real_lu_.compute(real_shift * mass_ - jacobian_);
    complex_lu_.compute(complex_shift * mass_.cast<std::complex<double>>() -
                        jacobian_.cast<std::complex<double>>());
  }
  factored_ = PivotsAreRegular(real_lu_) && PivotsAreRegular(complex_lu_);
}

void NewtonMatrices::FactorSparse(double real_shift, std::complex<double> complex_shift) {
  // E(σ) = σ·M − J scattered into E's compressed columns.
  std::fill(real_values_.begin(), real_values_.end(), 0.0);
  std::fill(complex_values_.begin(), complex_values_.end(), 0.0);
  for (std::size_t k = 0; k < jacobian_slot_.size(); ++k) {
    const std::size_t s = jacobian_slot_[k];
    real_values_[s] -= jacobian_values_[k];
    complex_values_[2 * s] -= jacobian_values_[k];
  }
  for (std::size_t k = 0; k < mass_slot_.size(); ++k) {
    const std::size_t s = mass_slot_[k];
    const double m = mass_is_identity() ? 1.0 : mass_values_[k];
    real_values_[s] += real_shift * m;
    complex_values_[2 * s] += complex_shift.real() * m;
    complex_values_[2 * s + 1] += complex_shift.imag() * m;
  }
  factored_ = real_klu_.Factor(column_pointers_, row_indices_, real_values_) &&
              complex_klu_.Factor(column_pointers_, row_indices_, complex_values_);
}

void NewtonMatrices::SolveReal(std::span<double> b) {
  if (sparse_) {
    real_klu_.Solve(b);
    return;
  }
  const Eigen::Map<const Eigen::VectorXd> rhs(b.data(), static_cast<Eigen::Index>(n_));
  real_solution_.noalias() = real_lu_.solve(rhs);
  std::copy(real_solution_.begin(), real_solution_.end(), b.begin());
}

void NewtonMatrices::SolveComplex(std::span<double> re, std::span<double> im) {
  if (sparse_) {
    for (std::size_t i = 0; i < n_; ++i) {
      complex_work_[2 * i] = re[i];
      complex_work_[2 * i + 1] = im[i];
    }
    complex_klu_.Solve(complex_work_);
    for (std::size_t i = 0; i < n_; ++i) {
      re[i] = complex_work_[2 * i];
      im[i] = complex_work_[2 * i + 1];
    }
    return;
  }
  for (std::size_t i = 0; i < n_; ++i) {
    complex_rhs_[static_cast<Eigen::Index>(i)] = {re[i], im[i]};
  }
  complex_solution_.noalias() = complex_lu_.solve(complex_rhs_);
  for (std::size_t i = 0; i < n_; ++i) {
    re[i] = complex_solution_[static_cast<Eigen::Index>(i)].real();
    im[i] = complex_solution_[static_cast<Eigen::Index>(i)].imag();
  }
}

void NewtonMatrices::MassTimes(std::span<const double> v, std::span<double> out) const {
  if (mass_is_identity()) {
    std::copy(v.begin(), v.end(), out.begin());
    return;
  }
  std::fill(out.begin(), out.end(), 0.0);
  for (std::size_t k = 0; k < mass_pattern_.size(); ++k) {
    out[mass_pattern_[k].row] += mass_values_[k] * v[mass_pattern_[k].col];
  }
}

}  // namespace tether::integrate
