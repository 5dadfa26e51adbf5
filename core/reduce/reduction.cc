// Symbolic side of ReducedModel: the model's symbols are imported into a context of our own
// (the Model is shared read-only across sessions and threads), the form's Formulation derives
// everything by expr::Context::Diff on the model's expressions, and what it filled is compiled.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "reduce/formulation_build.h"
#include "tether/reduce/reduced_model.h"

namespace tether::reduce {

using expr::Context;
using expr::Expr;

namespace symbolic {

Expr Dot(Context& cx, const std::vector<Expr>& a, const std::vector<Expr>& b) {
  Expr sum = cx.Constant(0.0);
  for (std::size_t j = 0; j < a.size(); ++j) {
    if (!cx.is_constant(a[j], 0.0)) sum = cx.Add(sum, cx.Mul(a[j], b[j]));
  }
  return sum;
}

std::vector<std::vector<Expr>> JacobianOf(Context& cx, const std::vector<Expr>& e,
                                          const std::vector<Expr>& s) {
  std::vector<std::vector<Expr>> jacobian(e.size(), std::vector<Expr>(s.size()));
  for (std::size_t i = 0; i < e.size(); ++i) {
    for (std::size_t j = 0; j < s.size(); ++j) jacobian[i][j] = cx.Diff(e[i], s[j]);
  }
  return jacobian;
}

std::vector<Expr> Diffs(Context& cx, const std::vector<Expr>& e, Expr s) {
  std::vector<Expr> out;
  out.reserve(e.size());
  for (Expr x : e) out.push_back(cx.Diff(x, s));
  return out;
}

std::vector<Expr> NewSymbols(Context& cx, const std::string& name, std::size_t count) {
  std::vector<Expr> symbols;
  for (std::size_t k = 0; k < count; ++k) symbols.push_back(cx.Symbol(name + std::to_string(k)));
  return symbols;
}

std::vector<Expr> ImportAll(Context& cx, const Context& from, const std::vector<Expr>& e) {
  std::vector<Expr> out;
  out.reserve(e.size());
  for (Expr x : e) out.push_back(cx.Import(from, x));
  return out;
}

std::vector<Expr> Slice(const std::vector<Expr>& v, std::size_t begin, std::size_t end) {
  return std::vector<Expr>(v.begin() + static_cast<long>(begin),
                           v.begin() + static_cast<long>(end));
}

}  // namespace symbolic

namespace {

// [states in Model::states() order, t, parameters], imported into `cx`.
std::vector<Expr> ImportInputs(Context& cx, const model::Model& model) {
  std::vector<Expr> inputs;
  for (const model::Variable* v : model.states()) {
    inputs.push_back(cx.Import(*model.context, v->symbol));
  }
  inputs.push_back(cx.Import(*model.context, model.time));
  for (const model::Parameter& p : model.parameters) {
    inputs.push_back(cx.Import(*model.context, p.symbol));
  }
  return inputs;
}

}  // namespace

ReduceResult ReducedModel::Build(std::shared_ptr<const model::Model> model,
                                 const ReduceOptions& options) {
  ReduceResult result;
  if (!model || !model->context) {
    result.error = "no model";
    return result;
  }
  if (!options.IsValid(&result.error)) return result;
  const Formulation& formulation = FormulationOf(model->form);
  result.error = formulation.Check(*model, options);
  if (!result.error.empty()) return result;

  std::unique_ptr<ReducedModel> reduced(new ReducedModel());
  reduced->model_ = model;
  reduced->options_ = options;
  reduced->formulation_ = &formulation;
  auto context = std::make_shared<Context>();
  const std::vector<Expr> inputs = ImportInputs(*context, *model);
  FormulationBuild build{
      .reduced = *reduced, .model = *model, .options = options, .context = *context,
      .inputs = inputs};
  formulation.Build(build);
  reduced->Apply(build);
  reduced->context_ = std::move(context);
  reduced->Allocate();
  result.reduced = std::move(reduced);
  return result;
}

void ReducedModel::Apply(const FormulationBuild& build) {
  kernel_ = build.kernel;
  n_ = build.n;
  m_ = build.m;
  num_states_ = model_->num_states();
  ode_size_ = build.ode_size;
  position_size_ = build.position_size;
  num_pos_inv_ = build.num_position_invariants;
  num_vel_inv_ = build.num_velocity_invariants;
  mass_size_ = build.mass_size;
  mass_diagonal_ = build.mass_diagonal;
  invariant_names_ = build.invariant_names;
  residual_levels_ = build.residual_levels;
  algebraic_jacobian_name_ = build.algebraic_jacobian_name;
  stage_derivative_of_ = build.stage_derivative_of;
  sparse_ = build.sparse_multipliers;
  sparse_algebraic_ = build.sparse_algebraic;
  closed_ = build.closed_form;
  CompileInvariants(build);
}

// The invariants program's outputs: H (the expressions before the first block, which the
// residual levels index), then H_z's structural non-zeros row by row. A block entry that is the
// constant 0 is left out; H_z's entries outside every block are 0. A form without invariants in
// its mode (index1 in kSolve) keeps blocks for rows it does not have: they are clipped.
void ReducedModel::CompileInvariants(const FormulationBuild& build) {
  const std::vector<Expr>& e = build.invariant_expressions;
  const std::size_t rows = num_pos_inv_ + num_vel_inv_;
  const std::size_t cols = ode_size_;
  std::size_t prefix = e.size();
  std::vector<std::size_t> source(rows * cols, e.size());  // e.size(): a zero entry
  for (const InvariantBlock& block : build.invariant_blocks) {
    prefix = std::min(prefix, block.source);
    const std::size_t block_rows = std::min(block.rows, rows - std::min(rows, block.row));
    const std::size_t width = std::min(block.width, cols - std::min(cols, block.col));
    for (std::size_t i = 0; i < block_rows; ++i) {
      for (std::size_t j = 0; j < width; ++j) {
        const std::size_t k = block.source + i * block.width + j;
        if (build.context.is_constant(e[k], 0.0)) continue;
        source[(block.row + i) * cols + block.col + j] = k;
      }
    }
  }
  invariant_pattern_ = SparseSchur::Pattern::Where(
      rows, cols, [&](std::size_t i, std::size_t j) { return source[i * cols + j] != e.size(); });
  std::vector<Expr> outputs(e.begin(), e.begin() + static_cast<long>(prefix));
  const SparseSchur::Pattern& pattern = invariant_pattern_;
  for (std::size_t i = 0; i < rows; ++i) {
    for (int p = pattern.row_start[i]; p < pattern.row_start[i + 1]; ++p) {
      const auto j = static_cast<std::size_t>(pattern.col[static_cast<std::size_t>(p)]);
      outputs.push_back(e[source[i * cols + j]]);
    }
  }
  invariant_prefix_ = prefix;
  // Split after the states: EvaluateInvariantProgram reads a full z where the caller has it.
  invariants_ = expr::Compile(build.context, outputs, build.inputs,
                              {.inputs = num_states_, .outputs = outputs.size()});
}

std::vector<Expr> ReducedModel::ImportOutputs(Context& cx) const {
  std::vector<Expr> outputs;
  for (const model::Output& o : model_->outputs) outputs.push_back(cx.Import(*model_->context, o.value));
  return outputs;
}

void FormulationBuild::Compile(const std::vector<Expr>& stage, const std::vector<Expr>& invariants,
                               const std::vector<Expr>& mass) {
  ImportOutputs();
  reduced.stage_ = expr::Compile(context, stage, inputs);
  invariant_expressions = invariants;  // compiled by Apply, once invariant_blocks are known
  reduced.mass_ = expr::Compile(context, mass, inputs);
  reduced.outputs_ = expr::Compile(context, imported_outputs, inputs);
}

void FormulationBuild::CompileClosedForm(const std::vector<Expr>& stage,
                                         const std::vector<Expr>& plain, Expr alpha,
                                         Expr beta) {
  std::vector<Expr> closed_inputs = inputs;
  closed_inputs.push_back(alpha);
  closed_inputs.push_back(beta);
  reduced.closed_stage_ = expr::Compile(context, stage, closed_inputs, closed_form->split());
  reduced.closed_plain_ = expr::Compile(context, plain, closed_inputs, closed_form->split());
}

void FormulationBuild::ImportOutputs() {
  if (outputs_imported) return;
  imported_outputs = reduced.ImportOutputs(context);
  outputs_imported = true;
}

}  // namespace tether::reduce
