// The stage the index forms share (kernel kAlgebraicNewton, reduced_model.h): for
//
//   x' = f(x,y,t),   0 = c(x,y,t),   c_y regular,
//
// the stage program f, c, c_x, c_y, c_t (dense, or in SparseAlgebraic's layout where
// ReduceOptions::linear_algebra asks for it or it pays), and for the Jacobian (reduced_model.h),
// by mode:
//   kSolve:  w = y,  φ = f,  G = c;
//   kOde:    w = y', φ = (f, y'),  G = c_x f + c_y y' + c_t;
//   kStage:  no w,   φ = (f, c) on z = (x, y)  (∂F/∂z = [f_x f_y; c_x c_y]).
// The level c is g itself (index1, and the implicit form's reduced G) or h = g_x f + g_t
// (index2). Each formulation adds its invariants.
#pragma once

#include <vector>

#include "reduce/formulation_build.h"

namespace tether::reduce {

struct SemiExplicitStage {
  std::vector<expr::Expr> x, y;  // the inputs' differential and algebraic symbols
  expr::Expr t;
  std::vector<expr::Expr> f, g;
  std::vector<std::vector<expr::Expr>> g_x, g_y;
  std::vector<expr::Expr> h;      // g_x f + g_t when the level is h, else empty
  std::vector<expr::Expr> stage;  // f, c, c_x, c_y, c_t
};

// Imports f and g, derives c and the stage program, compiles the Jacobian when asked, and
// sets the kernel and its sizes (x from Model::differential, y from Model::algebraic). With
// `differentiate`, c = h = g_x f + g_t, else c = g.
SemiExplicitStage BuildSemiExplicitStage(FormulationBuild& build, bool differentiate);

// Model sizes the stage relies on (one rhs per differential variable, one constraint per
// algebraic variable), or why not.
std::string CheckSemiExplicitSizes(const model::Model& model);

}  // namespace tether::reduce
