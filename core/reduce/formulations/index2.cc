#include "reduce/formulations/index2.h"

#include "reduce/formulations/semi_explicit.h"

namespace tether::reduce {

using namespace symbolic;

std::string Index2Formulation::Check(const model::Model& model,
                                     const ReduceOptions& /*options*/) const {
  return CheckSemiExplicitSizes(model);
}

void Index2Formulation::Build(FormulationBuild& b) const {
  const SemiExplicitStage s = BuildSemiExplicitStage(b, true);
  std::vector<expr::Expr> invariants = s.g;  // g, h, g_x, h_x, h_y
  Append(&invariants, s.h);
  Append(&invariants, s.g_x);
  Append(&invariants, JacobianOf(b.context, s.h, s.x));
  Append(&invariants, JacobianOf(b.context, s.h, s.y));
  b.Compile(s.stage, invariants, {});

  const std::size_t n = b.n;
  const std::size_t m = b.m;
  const bool ode = b.options.algebraic == AlgebraicMode::kOde;
  b.position_size = n;
  b.num_position_invariants = m;
  b.num_velocity_invariants = ode ? m : 0;
  b.invariant_names = b.model.constraint_names;
  if (ode) Append(&b.invariant_names, b.model.constraint_names);
  b.invariant_blocks = {{.source = 2 * m, .row = 0, .col = 0, .rows = m, .width = n}};  // g_x
  if (ode) {
    b.invariant_blocks.push_back(
        {.source = 2 * m + m * n, .row = m, .col = 0, .rows = m, .width = n});  // h_x
    b.invariant_blocks.push_back(
        {.source = 2 * m + 2 * m * n, .row = m, .col = n, .rows = m, .width = m});  // h_y
  }
  b.residual_levels = {{.offset = 0, .count = m}, {.offset = m, .count = m}};  // g, h
  b.algebraic_jacobian_name = "h_y = g_x f_y";
}

}  // namespace tether::reduce
