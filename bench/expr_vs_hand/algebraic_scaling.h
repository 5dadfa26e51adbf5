// Dense vs sparse c_y for the index forms' algebraic kernel (tether/reduce/sparse_algebraic.h):
// the reduced right-hand side (kSolve: the stage program plus the Newton on c = 0, from y = 0,
// so a few factorizations and solves per call) of an index-1 ladder network of m
// differential and m algebraic variables,
//   x_i' = −x_i + y_i − 0.5 y_{i+1},   0 = y_i + 0.1 y_i³ − x_i + 0.5 y_{i−1}   (c_y bidiagonal),
// for m = 1 … 256, with the crossover and the fitted growth, and what ReduceOptions' automatic
// choice takes; and ∂F/∂x (ReducedModel::Jacobian) with c_y as G_w, dense vs sparse.
#pragma once

#include "common/arguments.h"
#include "common/report.h"

namespace tether::bench {

void AlgebraicScaling(const Arguments& args, Report* report);

}  // namespace tether::bench
