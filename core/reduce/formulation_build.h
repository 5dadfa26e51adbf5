// What a Formulation (tether/reduce/formulation.h) fills when it reduces a model, and the
// symbolic helpers formulations share. ReducedModel::Build imports the model's symbols into
// a context of its own (the Model is shared read-only across sessions and threads), calls
// Formulation::Build, then compiles what it filled (reduction.cc).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tether/expr/expr.h"
#include "tether/reduce/closed_form_multipliers.h"
#include "tether/reduce/reduced_model.h"

namespace tether::reduce {

struct FormulationBuild {
  // ---- In ----
  ReducedModel& reduced;                  // being built (Compile and CompileJacobian fill it)
  const model::Model& model;
  const ReduceOptions& options;
  expr::Context& context;                // the reduced model's own; every Expr below is in it
  const std::vector<expr::Expr>& inputs;  // [states, t, parameters], the programs' inputs

  // ---- Out ----
  StageKernel kernel = StageKernel::kMultipliers;
  std::size_t n = 0;  // coordinates (kMultipliers) or differential variables
  std::size_t m = 0;  // constraints (kMultipliers) or algebraic variables
  std::size_t ode_size = 0;
  std::size_t position_size = 0;
  std::size_t num_position_invariants = 0;
  std::size_t num_velocity_invariants = 0;
  std::size_t mass_size = 0;  // n when W = diag(M, M) is available, else 0
  bool mass_diagonal = false;  // the mass program computes M's diagonal only (M is diagonal)
  std::vector<std::string> invariant_names = {};  // one per invariant row
  std::vector<ReducedModel::InvariantBlock> invariant_blocks = {};
  std::vector<ReducedModel::ResidualLevel> residual_levels = {};
  std::string algebraic_jacobian_name = "g_y";  // a singular stage matrix in messages
  // kStage: per component of z = (x, y), the x_k it is the derivative of (f_k is y_j itself),
  // or its own index (ReducedModel::stage_derivative_of). Empty in the other modes.
  std::vector<std::uint32_t> stage_derivative_of = {};
  // kMultipliers: set when the stage program is in SparseMultipliers' layout.
  std::optional<SparseMultipliers> sparse_multipliers = std::nullopt;
  // kAlgebraicNewton: set when the stage program is in SparseAlgebraic's layout.
  std::optional<SparseAlgebraic> sparse_algebraic = std::nullopt;
  // kMultipliers, dense layout: set with the closed-form stage program beside it (by
  // CompileClosedForm).
  std::optional<ClosedFormMultipliers> closed_form = std::nullopt;

  // F = φ(t, z, w) with G(t, z, w) = 0 (reduced_model.h), in symbols of `context`, and the
  // symbols after [states, t, parameters] the Jacobian program reads (new w, α, β).
  struct StageEquations {
    std::vector<expr::Expr> z, w, phi, g;
    std::vector<expr::Expr> extra_inputs;
  };

  // Compiles the stage program (in the kernel's layout, reduced_model.h), M (kMultipliers
  // only) and the model's outputs, and keeps the invariants (H, then the values
  // invariant_blocks place into H_z) for ReducedModel. Call once; the symbolic work is in the formulation's order, which
  // fixes the operand order of sums (expr.h) and so the rounding of every evaluation.
  void Compile(const std::vector<expr::Expr>& stage, const std::vector<expr::Expr>& invariants,
               const std::vector<expr::Expr>& mass);
  // Compiles the closed-form stage programs (closed_form_multipliers.h) over [inputs, α, β],
  // split as closed_form's split() (set closed_form first): `stage` with the Baumgarte terms,
  // `plain` with α = β = 0 folded in.
  void CompileClosedForm(const std::vector<expr::Expr>& stage,
                         const std::vector<expr::Expr>& plain, expr::Expr alpha,
                         expr::Expr beta);
  // Compiles ∂F/∂z (only when options.jacobian).
  void CompileJacobian(const StageEquations& equations);
  // Imports the model's outputs now rather than in Compile (the order of symbolic work, as
  // above).
  void ImportOutputs();

  std::vector<expr::Expr> imported_outputs = {};  // by ImportOutputs or Compile
  // By Compile: H, then the values invariant_blocks place into H_z; ReducedModel compiles them
  // once the blocks are known, H_z's structural zeros left out.
  std::vector<expr::Expr> invariant_expressions = {};
  bool outputs_imported = false;
};

namespace symbolic {

// Σ_j a_j b_j over the structurally non-zero a_j (Jacobian entries), simplified by the
// context's constructors. Leaving out 0·b_j is sound where the context would keep it (b_j not
// total, expr.h): b_j is a force, a right-hand side or a state, evaluated on its own.
expr::Expr Dot(expr::Context& cx, const std::vector<expr::Expr>& a,
               const std::vector<expr::Expr>& b);
// J[i][j] = ∂e_i/∂s_j.
std::vector<std::vector<expr::Expr>> JacobianOf(expr::Context& cx, const std::vector<expr::Expr>& e,
                                                const std::vector<expr::Expr>& s);
// ∂e_i/∂s.
std::vector<expr::Expr> Diffs(expr::Context& cx, const std::vector<expr::Expr>& e, expr::Expr s);
// name0, name1, …: symbols no user name can spell ('$' is not an identifier character).
std::vector<expr::Expr> NewSymbols(expr::Context& cx, const std::string& name, std::size_t count);
// The model's expressions `e` in the build context.
std::vector<expr::Expr> ImportAll(expr::Context& cx, const expr::Context& from,
                                  const std::vector<expr::Expr>& e);
// Slice [begin, end) of `v`.
std::vector<expr::Expr> Slice(const std::vector<expr::Expr>& v, std::size_t begin,
                              std::size_t end);

template <typename T>
void Append(std::vector<T>* out, const std::vector<T>& e) {
  out->insert(out->end(), e.begin(), e.end());
}

inline void Append(std::vector<expr::Expr>* out,
                   const std::vector<std::vector<expr::Expr>>& rows) {
  for (const auto& row : rows) Append(out, row);
}

}  // namespace symbolic
}  // namespace tether::reduce
