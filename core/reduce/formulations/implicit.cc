#include "reduce/formulations/implicit.h"

#include <algorithm>
#include <vector>

#include "reduce/formulations/semi_explicit.h"

namespace tether::reduce {

bool ImplicitFormulation::HasInvariantsBesideStage(const model::Model& model) const {
  if (model.implicit == nullptr) return false;
  return std::any_of(model.implicit->invariants.begin(), model.implicit->invariants.end(),
                     [](const std::vector<expr::Expr>& level) { return !level.empty(); });
}

std::string ImplicitFormulation::Check(const model::Model& model,
                                       const ReduceOptions& options) const {
  if (model.implicit == nullptr ||
      (options.algebraic == AlgebraicMode::kOde && !supports_algebraic_ode())) {
    return "model '" + model.name +
           "': the implicit form solves its algebraic unknowns in every stage; algebraic "
           "mode 'ode' is not available for it";
  }
  return CheckSemiExplicitSizes(model);
}

void ImplicitFormulation::Build(FormulationBuild& b) const {
  const SemiExplicitStage s = BuildSemiExplicitStage(b, false);
  const model::Model& model = b.model;
  const model::ImplicitForm& form = *model.implicit;
  expr::Context& cx = b.context;
  const std::size_t nz = b.n;

  // The outputs' nodes first, then the invariants': expr.h orders the operands of sums by
  // creation, so this order is part of the rounding of every result.
  b.ImportOutputs();
  std::vector<expr::Expr> values;  // H_0 … H_(k−1)
  b.invariant_names.clear();
  for (std::size_t level = 0; level < form.invariants.size(); ++level) {
    for (std::size_t i = 0; i < form.invariants[level].size(); ++i) {
      values.push_back(cx.Import(*model.context, form.invariants[level][i]));
      b.invariant_names.push_back(form.invariant_names[level][i]);
    }
  }
  const std::size_t level0 = form.invariants.empty() ? 0 : form.invariants.front().size();

  // P: one past the last state H_0 depends on.
  std::size_t p = 0;
  for (std::size_t i = 0; i < level0; ++i) {
    for (std::size_t j = 0; j < nz; ++j) {
      if (cx.DependsOn(values[i], b.inputs[j])) p = std::max(p, j + 1);
    }
  }
  bool split = level0 < values.size() && p < nz;
  for (std::size_t i = level0; split && i < values.size(); ++i) {
    bool moves = false;
    for (std::size_t j = p; j < nz && !moves; ++j) moves = cx.DependsOn(values[i], b.inputs[j]);
    split = moves;
  }
  std::vector<expr::Expr> program = values;  // H, then H_z row-major
  for (expr::Expr h : values) {
    for (std::size_t j = 0; j < nz; ++j) program.push_back(cx.Diff(h, b.inputs[j]));
  }
  b.Compile(s.stage, program, {});

  const std::size_t total = values.size();
  b.position_size = split ? p : nz;
  b.num_position_invariants = split ? level0 : total;
  b.num_velocity_invariants = total - b.num_position_invariants;
  // H_z on z; zero on the w of kStage.
  b.invariant_blocks = {{.source = total, .row = 0, .col = 0, .rows = total, .width = nz}};
  b.residual_levels = {{.offset = 0, .count = level0}, {.offset = level0, .count = total - level0}};
  b.algebraic_jacobian_name = "G_w (the Jacobian of the stage equations in the unknowns)";
}

}  // namespace tether::reduce
