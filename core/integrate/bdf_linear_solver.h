// The Newton matrix of the bdf stepper (bdf.h) on a fixed sparsity pattern: a SUNDIALS matrix
// with its direct linear solver, dense (SUNMATRIX_DENSE + SUNLINSOL_DENSE, LU with partial
// pivoting) or sparse (SUNMATRIX_SPARSE in CSC + SUNLINSOL_KLU), and where each entry of the
// system's patterns lives in the matrix's value array, so that callbacks scatter values
// without searching. Private to core/integrate.
//
// The sparse structure is the union of the patterns given plus the whole diagonal: CVODE
// forms I − γJ in place (SUNMatScaleAddI), which would re-allocate a CSC matrix lacking a
// diagonal entry, and KLU's symbolic analysis is only valid for the structure it analysed.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "integrate/bdf_sundials.h"
#include "tether/integrate/stepper.h"

namespace tether::integrate {

class BdfLinearSolver {
 public:
  enum class Kind { kDense, kSparse };

  // Systems of at least this many unknowns with a symbolic Jacobian get the sparse kind.
  // Measured with bench/bdf_overhead (its crossover table, bench/results/bdf_overhead.md):
  // forming the matrix, KLU's refactorization and three solves cost 1.3–2.9 times less than
  // SUNDIALS' dense LU (unblocked, partial pivoting) at n = 10 for every pattern measured,
  // tridiagonal to 95 % full, and 2–8 times less from n = 20. Below, the gain is small in
  // absolute terms and dense LU, which pivots anew at every factorization, is the more
  // robust one (KLU's refactorization keeps its first factorization's pivot order).
  static constexpr std::size_t kSparseFromSize = 10;

  // The sparse kind iff the system has a symbolic Jacobian (SUNDIALS' difference quotients
  // need a dense matrix) and n ≥ kSparseFromSize.
  static Kind Choose(const OdeSystem& system);

  // An n × n matrix whose structure holds every entry of every pattern (0-based, < n), and
  // its solver; `like` is a vector of length n (SUNDIALS' template). nullptr, with the
  // reason in *why, if SUNDIALS cannot create them.
  static std::unique_ptr<BdfLinearSolver> Create(
      Kind kind, std::size_t n, std::span<const std::span<const MatrixEntry>> patterns,
      N_Vector like, SUNContext context, std::string* why);

  [[nodiscard]] Kind kind() const { return kind_; }
  [[nodiscard]] SUNMatrix matrix() const { return matrix_.get(); }
  [[nodiscard]] SUNLinearSolver solver() const { return solver_.get(); }
  // Where entry k of pattern p (as given to Create) lives in Clear()'s value array.
  [[nodiscard]] std::span<const std::size_t> slots(std::size_t p) const { return slots_[p]; }

  // Zeroes `matrix` — this one, which SUNDIALS passes to the Jacobian callbacks — keeping
  // this layout, and returns its value array (dense: column-major n·n; sparse: the CSC
  // values). SUNDIALS zeroes a sparse matrix before the callback with SUNMatZero, which
  // clears the structure too, so the callback must write it back before the values.
  std::span<double> Clear(SUNMatrix matrix) const;

 private:
  BdfLinearSolver() = default;
  bool BuildDense(std::size_t n, std::span<const std::span<const MatrixEntry>> patterns,
                  SUNContext context);
  bool BuildSparse(std::size_t n, std::span<const std::span<const MatrixEntry>> patterns,
                   SUNContext context);

  Kind kind_ = Kind::kDense;
  sundials::Matrix matrix_;
  sundials::Solver solver_;
  std::vector<std::vector<std::size_t>> slots_;
  std::vector<sunindextype> column_starts_;  // sparse: the CSC structure, n + 1
  std::vector<sunindextype> rows_;           // and nnz
};

}  // namespace tether::integrate
