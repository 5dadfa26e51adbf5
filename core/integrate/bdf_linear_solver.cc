#include "integrate/bdf_linear_solver.h"

#include <sunlinsol/sunlinsol_dense.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <algorithm>
#include <utility>

namespace tether::integrate {

BdfLinearSolver::Kind BdfLinearSolver::Choose(const OdeSystem& system) {
  const bool symbolic = !system.jacobian_pattern().empty();
  return symbolic && system.size() >= kSparseFromSize ? Kind::kSparse : Kind::kDense;
}

std::unique_ptr<BdfLinearSolver> BdfLinearSolver::Create(
    Kind kind, std::size_t n, std::span<const std::span<const MatrixEntry>> patterns,
    N_Vector like, SUNContext context, std::string* why) {
  std::unique_ptr<BdfLinearSolver> solver(new BdfLinearSolver());
  solver->kind_ = kind;
  const bool built = kind == Kind::kDense ? solver->BuildDense(n, patterns, context)
                                          : solver->BuildSparse(n, patterns, context);
  if (built) {
    solver->solver_.reset(kind == Kind::kDense
                              ? SUNLinSol_Dense(like, solver->matrix(), context)
                              : SUNLinSol_KLU(like, solver->matrix(), context));
  }
  if (!built || !solver->solver_) {
    *why = std::string("SUNDIALS could not create the ") +
           (kind == Kind::kDense ? "dense" : "sparse (KLU)") + " Newton matrix of size " +
           std::to_string(n);
    return nullptr;
  }
  return solver;
}

bool BdfLinearSolver::BuildDense(std::size_t n,
                                 std::span<const std::span<const MatrixEntry>> patterns,
                                 SUNContext context) {
  const auto size = static_cast<sunindextype>(n);
  matrix_.reset(SUNDenseMatrix(size, size, context));
  if (!matrix_) return false;
  for (std::span<const MatrixEntry> pattern : patterns) {  // column-major
    std::vector<std::size_t>& slots = slots_.emplace_back();
    slots.reserve(pattern.size());
    for (const MatrixEntry& e : pattern) slots.push_back(std::size_t{e.col} * n + e.row);
  }
  return true;
}

bool BdfLinearSolver::BuildSparse(std::size_t n,
                                  std::span<const std::span<const MatrixEntry>> patterns,
                                  SUNContext context) {
  // The structure as (column, row) pairs, sorted: CSC order.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> entries;
  for (std::uint32_t i = 0; i < n; ++i) entries.emplace_back(i, i);
  for (std::span<const MatrixEntry> pattern : patterns) {
    for (const MatrixEntry& e : pattern) entries.emplace_back(e.col, e.row);
  }
  std::sort(entries.begin(), entries.end());
  entries.erase(std::unique(entries.begin(), entries.end()), entries.end());

  const auto size = static_cast<sunindextype>(n);
  matrix_.reset(SUNSparseMatrix(size, size, static_cast<sunindextype>(entries.size()), CSC_MAT,
                                context));
  if (!matrix_) return false;
  column_starts_.assign(n + 1, 0);
  rows_.assign(entries.size(), 0);
  std::size_t k = 0;
  for (std::uint32_t col = 0; col < n; ++col) {
    column_starts_[col] = static_cast<sunindextype>(k);
    for (; k < entries.size() && entries[k].first == col; ++k) {
      rows_[k] = static_cast<sunindextype>(entries[k].second);
    }
  }
  column_starts_[n] = static_cast<sunindextype>(k);
  Clear(matrix());

  for (std::span<const MatrixEntry> pattern : patterns) {
    std::vector<std::size_t>& slots = slots_.emplace_back();
    slots.reserve(pattern.size());
    for (const MatrixEntry& e : pattern) {
      const auto at = std::lower_bound(entries.begin(), entries.end(),
                                       std::make_pair(e.col, e.row));
      slots.push_back(static_cast<std::size_t>(at - entries.begin()));
    }
  }
  return true;
}

std::span<double> BdfLinearSolver::Clear(SUNMatrix matrix) const {
  std::span<double> values;
  if (kind_ == Kind::kDense) {
    const auto count = SUNDenseMatrix_Rows(matrix) * SUNDenseMatrix_Columns(matrix);
    values = {SUNDenseMatrix_Data(matrix), static_cast<std::size_t>(count)};
  } else {
    std::copy(column_starts_.begin(), column_starts_.end(), SUNSparseMatrix_IndexPointers(matrix));
    std::copy(rows_.begin(), rows_.end(), SUNSparseMatrix_IndexValues(matrix));
    values = {SUNSparseMatrix_Data(matrix), rows_.size()};
  }
  std::fill(values.begin(), values.end(), 0.0);
  return values;
}

}  // namespace tether::integrate
