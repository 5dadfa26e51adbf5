// Owners of SUNDIALS 6 objects for the bdf stepper (bdf.h): each released by its own destroy
// function when the owner goes, so that an engine is a set of value members. Private to
// core/integrate.
#pragma once

#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>

#include <cstddef>
#include <memory>
#include <span>
#include <type_traits>

namespace tether::integrate::sundials {

struct ContextDeleter {
  void operator()(SUNContext context) const { SUNContext_Free(&context); }
};
struct VectorDeleter {
  void operator()(N_Vector vector) const { N_VDestroy(vector); }
};
struct MatrixDeleter {
  void operator()(SUNMatrix matrix) const { SUNMatDestroy(matrix); }
};
struct SolverDeleter {
  void operator()(SUNLinearSolver solver) const { SUNLinSolFree(solver); }
};

using Context = std::unique_ptr<std::remove_pointer_t<SUNContext>, ContextDeleter>;
using Vector = std::unique_ptr<std::remove_pointer_t<N_Vector>, VectorDeleter>;
using Matrix = std::unique_ptr<std::remove_pointer_t<SUNMatrix>, MatrixDeleter>;
using Solver = std::unique_ptr<std::remove_pointer_t<SUNLinearSolver>, SolverDeleter>;

// A serial vector's elements as a span.
inline std::span<double> Elements(N_Vector v) {
  return {N_VGetArrayPointer(v), static_cast<std::size_t>(N_VGetLength(v))};
}

}  // namespace tether::integrate::sundials
