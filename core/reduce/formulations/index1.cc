#include "reduce/formulations/index1.h"

#include "reduce/formulations/semi_explicit.h"

namespace tether::reduce {

using namespace symbolic;

std::string Index1Formulation::Check(const model::Model& model,
                                     const ReduceOptions& /*options*/) const {
  return CheckSemiExplicitSizes(model);
}

void Index1Formulation::Build(FormulationBuild& b) const {
  const SemiExplicitStage s = BuildSemiExplicitStage(b, false);
  std::vector<expr::Expr> invariants = s.g;  // g, g_x, g_y
  Append(&invariants, s.g_x);
  Append(&invariants, s.g_y);
  b.Compile(s.stage, invariants, {});

  const std::size_t n = b.n;
  const std::size_t m = b.m;
  const bool ode = b.options.algebraic == AlgebraicMode::kOde;
  b.position_size = b.ode_size;
  b.num_position_invariants = ode ? m : 0;  // kStage has kSolve's invariants: none
  b.num_velocity_invariants = 0;
  if (ode) b.invariant_names = b.model.constraint_names;
  b.invariant_blocks = {
      {.source = m, .row = 0, .col = 0, .rows = m, .width = n},          // g_x
      {.source = m + m * n, .row = 0, .col = n, .rows = m, .width = m},  // g_y (z = (x, y))
  };
  b.residual_levels = {{.offset = 0, .count = m}};  // g
}

}  // namespace tether::reduce
