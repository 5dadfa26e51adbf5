#include "reduce/formulations/semi_explicit.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace tether::reduce {

using expr::Expr;
using namespace symbolic;

namespace {

// z = (x, y): component nx + j is the derivative of x_k when f_k is y_j itself (x_k' = y_j,
// the implicit form's der(x_k) or an index1 model's rhs that names an algebraic variable),
// every other component its own index.
std::vector<std::uint32_t> DerivativesAmong(const std::vector<Expr>& f,
                                            const std::vector<Expr>& y) {
  const std::size_t nx = f.size();
  std::vector<std::uint32_t> of(nx + y.size());
  for (std::size_t i = 0; i < of.size(); ++i) of[i] = static_cast<std::uint32_t>(i);
  for (std::size_t j = 0; j < y.size(); ++j) {
    const auto k = std::find(f.begin(), f.end(), y[j]);
    if (k != f.end()) of[nx + j] = static_cast<std::uint32_t>(k - f.begin());
  }
  return of;
}

}  // namespace

SemiExplicitStage BuildSemiExplicitStage(FormulationBuild& b, bool differentiate) {
  const model::Model& model = b.model;
  expr::Context& cx = b.context;
  const std::size_t nx = model.differential.size();
  const std::size_t m = model.constraints.size();
  SemiExplicitStage s;
  s.x = Slice(b.inputs, 0, nx);
  s.y = Slice(b.inputs, nx, nx + m);
  s.t = b.inputs[nx + m];
  s.f = ImportAll(cx, *model.context, model.rhs);
  s.g = ImportAll(cx, *model.context, model.constraints);
  s.g_x = JacobianOf(cx, s.g, s.x);
  s.g_y = JacobianOf(cx, s.g, s.y);
  const std::vector<Expr> g_t = Diffs(cx, s.g, s.t);
  const bool ode = b.options.algebraic == AlgebraicMode::kOde;
  const bool stage_mode = b.options.algebraic == AlgebraicMode::kStage;

  if (differentiate) {  // h = g_x f + g_t
    for (std::size_t i = 0; i < m; ++i) s.h.push_back(cx.Add(Dot(cx, s.g_x[i], s.f), g_t[i]));
  }
  const std::vector<Expr>& c = differentiate ? s.h : s.g;  // the level y is solved from
  const auto c_x = JacobianOf(cx, c, s.x);
  const auto c_y = JacobianOf(cx, c, s.y);
  const std::vector<Expr> c_t = Diffs(cx, c, s.t);
  const LinearAlgebra choice = b.options.linear_algebra;
  if (choice != LinearAlgebra::kDense) {
    SparseAlgebraic sparse(cx, c_x, c_y, nx);
    if (choice == LinearAlgebra::kSparse || sparse.Pays()) b.sparse_algebraic = std::move(sparse);
  }
  if (b.sparse_algebraic) {
    s.stage = b.sparse_algebraic->StageOutputs(s.f, c, c_x, c_y, c_t);
  } else {  // the dense layout: f, c, c_x, c_y, c_t
    s.stage = s.f;
    Append(&s.stage, c);
    Append(&s.stage, c_x);
    Append(&s.stage, c_y);
    Append(&s.stage, c_t);
  }
  if (b.options.jacobian) {
    FormulationBuild::StageEquations eq;
    eq.phi = s.f;
    if (ode) {  // z = (x, y), w = y', G = c_x f + c_y y' + c_t
      eq.z = Slice(b.inputs, 0, nx + m);
      eq.w = NewSymbols(cx, "$ydot", m);
      Append(&eq.phi, eq.w);
      for (std::size_t i = 0; i < m; ++i) {
        eq.g.push_back(cx.Add(cx.Add(Dot(cx, c_x[i], s.f), Dot(cx, c_y[i], eq.w)), c_t[i]));
      }
      eq.extra_inputs = eq.w;
    } else if (stage_mode) {  // z = (x, y), no w, φ = (f, c)
      eq.z = Slice(b.inputs, 0, nx + m);
      Append(&eq.phi, c);
    } else {  // z = x, w = y, G = c
      eq.z = s.x;
      eq.w = s.y;
      eq.g = c;
    }
    b.CompileJacobian(eq);
  }
  b.kernel = StageKernel::kAlgebraicNewton;
  b.n = nx;
  b.m = m;
  b.ode_size = ode || stage_mode ? nx + m : nx;
  if (stage_mode) b.stage_derivative_of = DerivativesAmong(s.f, s.y);
  return s;
}

std::string CheckSemiExplicitSizes(const model::Model& model) {
  if (model.rhs.size() != model.differential.size() ||
      model.algebraic.size() != model.constraints.size()) {
    return "model '" + model.name +
           "': index1/index2 need one rhs per differential variable and one constraint per "
           "algebraic variable";
  }
  return {};
}

}  // namespace tether::reduce
