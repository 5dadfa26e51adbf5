#include "bdf_overhead/crossover.h"

#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <algorithm>
#include <random>
#include <utility>

#include "common/cpu_timer.h"

namespace tether::bench {
namespace {

// A CSC pattern with the full diagonal and values 4 + u on it, −1 + u off it (u ∈ [0, 1)):
// regular and diagonally dominant for the fills measured.
struct Csc {
  std::vector<sunindextype> column_starts;
  std::vector<sunindextype> rows;
  std::vector<double> values;
};

Csc MakePattern(std::size_t n, double fill, std::mt19937* random) {
  std::vector<std::pair<std::size_t, std::size_t>> entries;  // (column, row)
  const auto per_row = static_cast<std::size_t>(fill * static_cast<double>(n));
  for (std::size_t i = 0; i < n; ++i) {
    entries.emplace_back(i, i);
    if (fill == 0.0) {
      if (i > 0) entries.emplace_back(i - 1, i);
      if (i + 1 < n) entries.emplace_back(i + 1, i);
    }
    for (std::size_t k = 0; k < per_row; ++k) entries.emplace_back((*random)() % n, i);
  }
  std::sort(entries.begin(), entries.end());
  entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
  Csc csc;
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::size_t k = 0;
  for (std::size_t col = 0; col < n; ++col) {
    csc.column_starts.push_back(static_cast<sunindextype>(k));
    for (; k < entries.size() && entries[k].first == col; ++k) {
      csc.rows.push_back(static_cast<sunindextype>(entries[k].second));
      csc.values.push_back((entries[k].second == col ? 4.0 : -1.0) + u(*random));
    }
  }
  csc.column_starts.push_back(static_cast<sunindextype>(k));
  return csc;
}

// Runs `work` often enough for the CPU clock to resolve it; seconds per call.
template <typename Work>
double SecondsPerCall(int repeats, std::size_t n, Work work) {
  const std::size_t calls = std::max<std::size_t>(1, 4'000'000 / (n * n * n + 1000));
  return MinCpuSeconds(repeats, [&] {
           for (std::size_t c = 0; c < calls; ++c) work();
         }) /
         static_cast<double>(calls);
}

CrossoverPoint Measure(std::size_t n, double fill, int repeats, SUNContext context) {
  std::mt19937 random(12345);
  const Csc csc = MakePattern(n, fill, &random);
  const auto size = static_cast<sunindextype>(n);
  N_Vector x = N_VNew_Serial(size, context);
  N_Vector b = N_VNew_Serial(size, context);
  N_VConst(1.0, b);
  SUNMatrix dense = SUNDenseMatrix(size, size, context);
  SUNLinearSolver lu = SUNLinSol_Dense(x, dense, context);
  SUNMatrix sparse = SUNSparseMatrix(size, size, static_cast<sunindextype>(csc.rows.size()),
                                     CSC_MAT, context);
  std::copy(csc.column_starts.begin(), csc.column_starts.end(),
            SUNSparseMatrix_IndexPointers(sparse));
  std::copy(csc.rows.begin(), csc.rows.end(), SUNSparseMatrix_IndexValues(sparse));
  SUNLinearSolver klu = SUNLinSol_KLU(x, sparse, context);
  SUNLinSolInitialize(lu);
  SUNLinSolInitialize(klu);
  double* sparse_values = SUNSparseMatrix_Data(sparse);
  std::copy(csc.values.begin(), csc.values.end(), sparse_values);
  SUNLinSolSetup(klu, sparse);  // the symbolic analysis, once per pattern as in bdf

  CrossoverPoint point;
  point.n = n;
  point.fill = fill;
  point.nonzeros = csc.rows.size();
  point.dense_seconds = SecondsPerCall(repeats, n, [&] {
    SUNMatZero(dense);
    double* data = SUNDenseMatrix_Data(dense);
    for (std::size_t col = 0; col < n; ++col) {
      for (auto k = csc.column_starts[col]; k < csc.column_starts[col + 1]; ++k) {
        data[col * n + static_cast<std::size_t>(csc.rows[static_cast<std::size_t>(k)])] =
            csc.values[static_cast<std::size_t>(k)];
      }
    }
    SUNLinSolSetup(lu, dense);
    for (int s = 0; s < 3; ++s) SUNLinSolSolve(lu, dense, x, b, 0.0);
  });
  point.sparse_seconds = SecondsPerCall(repeats, n, [&] {
    std::copy(csc.values.begin(), csc.values.end(), sparse_values);
    SUNLinSolSetup(klu, sparse);
    for (int s = 0; s < 3; ++s) SUNLinSolSolve(klu, sparse, x, b, 0.0);
  });
  SUNLinSolFree(klu);
  SUNMatDestroy(sparse);
  SUNLinSolFree(lu);
  SUNMatDestroy(dense);
  N_VDestroy(b);
  N_VDestroy(x);
  return point;
}

}  // namespace

std::vector<CrossoverPoint> MeasureCrossover(const std::vector<std::size_t>& sizes,
                                             const std::vector<double>& fills, int repeats) {
  SUNContext context = nullptr;
  SUNContext_Create(nullptr, &context);
  std::vector<CrossoverPoint> points;
  for (double fill : fills) {
    for (std::size_t n : sizes) points.push_back(Measure(n, fill, repeats, context));
  }
  SUNContext_Free(&context);
  return points;
}

}  // namespace tether::bench
