// Symbolic side of ReducedModel: every derivative comes from expr::Context::Diff on the
// model's expressions, imported into a context of our own (the Model is shared read-only
// across sessions and threads).
#include <string>
#include <utility>
#include <vector>

#include "tether/reduce/reduced_model.h"

namespace tether::reduce {
namespace {

using expr::Context;
using expr::Expr;

// Σ_j a_j b_j over the structurally non-zero a_j (Jacobian entries), simplified by the
// context's constructors. Leaving out 0·b_j is sound where the context would keep it (b_j not
// total, expr.h): b_j is a force, a right-hand side or a state, evaluated on its own.
Expr Dot(Context& cx, const std::vector<Expr>& a, const std::vector<Expr>& b) {
  Expr sum = cx.Constant(0.0);
  for (std::size_t j = 0; j < a.size(); ++j) {
    if (!cx.is_constant(a[j], 0.0)) sum = cx.Add(sum, cx.Mul(a[j], b[j]));
  }
  return sum;
}

// J[i][j] = ∂e_i/∂s_j.
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

// name0, name1, …: symbols no user name can spell ('$' is not an identifier character).
std::vector<Expr> NewSymbols(Context& cx, const std::string& name, std::size_t count) {
  std::vector<Expr> symbols;
  for (std::size_t k = 0; k < count; ++k) symbols.push_back(cx.Symbol(name + std::to_string(k)));
  return symbols;
}

template <typename T>
void Append(std::vector<T>* out, const std::vector<T>& e) {
  out->insert(out->end(), e.begin(), e.end());
}

void Append(std::vector<Expr>* out, const std::vector<std::vector<Expr>>& rows) {
  for (const auto& row : rows) Append(out, row);
}

struct Imported {
  std::shared_ptr<Context> context = std::make_shared<Context>();
  std::vector<Expr> coordinates;  // q or x
  std::vector<Expr> velocities;   // v or y
  std::vector<Expr> inputs;       // [states, t, parameters]
  Expr time;
};

Imported ImportSymbols(const model::Model& model) {
  Imported imported;
  Context& cx = *imported.context;
  const Context& from = *model.context;
  const bool mechanical = model.form == model::Form::kMechanical;
  for (const model::Variable& v : mechanical ? model.coordinates : model.differential) {
    imported.coordinates.push_back(cx.Import(from, v.symbol));
  }
  for (const model::Variable& v : mechanical ? model.velocities : model.algebraic) {
    imported.velocities.push_back(cx.Import(from, v.symbol));
  }
  imported.time = cx.Import(from, model.time);
  Append(&imported.inputs, imported.coordinates);
  Append(&imported.inputs, imported.velocities);
  imported.inputs.push_back(imported.time);
  for (const model::Parameter& p : model.parameters) {
    imported.inputs.push_back(cx.Import(from, p.symbol));
  }
  return imported;
}

std::vector<Expr> ImportAll(Context& cx, const Context& from, const std::vector<Expr>& e) {
  std::vector<Expr> out;
  out.reserve(e.size());
  for (Expr x : e) out.push_back(cx.Import(from, x));
  return out;
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
  const bool mechanical = model->form == model::Form::kMechanical;
  const std::size_t n = mechanical ? model->coordinates.size() : model->differential.size();
  const std::size_t m = model->constraints.size();
  if (mechanical && (model->velocities.size() != n || model->mass.size() != n * n ||
                     model->forces.size() != n)) {
    result.error = "model '" + model->name + "': mechanical sizes are inconsistent";
    return result;
  }
  if (model->form == model::Form::kImplicit &&
      (model->implicit == nullptr || options.algebraic == AlgebraicMode::kOde)) {
    result.error = "model '" + model->name +
                   "': the implicit form solves its algebraic unknowns in every stage; algebraic "
                   "mode 'ode' is not available for it";
    return result;
  }
  if (mechanical && options.algebraic == AlgebraicMode::kStage) {
    result.error = "model '" + model->name +
                   "': the mechanical form has no algebraic variables for algebraic mode 'stage'";
    return result;
  }
  if (!mechanical && (model->rhs.size() != n || model->algebraic.size() != m)) {
    result.error = "model '" + model->name +
                   "': index1/index2 need one rhs per differential variable and one constraint "
                   "per algebraic variable";
    return result;
  }

  std::unique_ptr<ReducedModel> reduced(new ReducedModel());
  reduced->model_ = model;
  reduced->options_ = options;
  reduced->n_ = n;
  reduced->m_ = m;
  Imported imported = ImportSymbols(*model);
  if (mechanical) {
    reduced->BuildMechanical(*imported.context, imported.inputs);
  } else {
    reduced->BuildIndex(*imported.context, imported.inputs);
  }
  reduced->context_ = imported.context;
  reduced->Allocate();
  result.reduced = std::move(reduced);
  return result;
}

void ReducedModel::BuildMechanical(Context& cx, const std::vector<Expr>& inputs) {
  const model::Model& model = *model_;
  const std::size_t n = n_;
  const std::vector<Expr> q(inputs.begin(), inputs.begin() + static_cast<long>(n));
  const std::vector<Expr> v(inputs.begin() + static_cast<long>(n),
                            inputs.begin() + static_cast<long>(2 * n));
  const Expr t = inputs[2 * n];
  const std::vector<Expr> mass = ImportAll(cx, *model.context, model.mass);
  const std::vector<Expr> forces = ImportAll(cx, *model.context, model.forces);
  const std::vector<Expr> phi = ImportAll(cx, *model.context, model.constraints);

  const auto phi_q = JacobianOf(cx, phi, q);
  const std::vector<Expr> phi_t = Diffs(cx, phi, t);
  std::vector<Expr> h;  // h = Φ_q v + Φ_t
  for (std::size_t i = 0; i < phi.size(); ++i) h.push_back(cx.Add(Dot(cx, phi_q[i], v), phi_t[i]));
  const auto h_q = JacobianOf(cx, h, q);
  const std::vector<Expr> h_t = Diffs(cx, h, t);
  std::vector<Expr> a;  // a = h_q v + h_t
  for (std::size_t i = 0; i < h.size(); ++i) a.push_back(cx.Add(Dot(cx, h_q[i], v), h_t[i]));

  std::vector<Expr> stage = mass;
  Append(&stage, forces);
  Append(&stage, phi_q);
  Append(&stage, a);
  Append(&stage, phi);
  Append(&stage, h);
  std::vector<Expr> invariants = phi;
  Append(&invariants, h);
  Append(&invariants, phi_q);
  Append(&invariants, h_q);
  Compile(cx, inputs, stage, invariants, mass, ImportOutputs(cx));
  if (options_.jacobian) {
    StageEquations eq;
    eq.z.assign(inputs.begin(), inputs.begin() + static_cast<long>(2 * n));
    const std::vector<Expr> vdot = NewSymbols(cx, "$vdot", n);
    const std::vector<Expr> lambda = NewSymbols(cx, "$lambda", phi.size());
    const Expr alpha = cx.Symbol("$alpha");
    const Expr beta = cx.Symbol("$beta");
    eq.w = vdot;
    Append(&eq.w, lambda);
    eq.phi = v;
    Append(&eq.phi, vdot);
    for (std::size_t k = 0; k < n; ++k) {  // M v' − Φ_qᵀ λ − f
      std::vector<Expr> mass_row(mass.begin() + static_cast<long>(k * n),
                                 mass.begin() + static_cast<long>((k + 1) * n));
      Expr row = cx.Sub(Dot(cx, mass_row, vdot), forces[k]);
      for (std::size_t i = 0; i < phi.size(); ++i) row = cx.Sub(row, cx.Mul(phi_q[i][k], lambda[i]));
      eq.g.push_back(row);
    }
    for (std::size_t i = 0; i < phi.size(); ++i) {  // Φ_q v' + a + 2αh + β²Φ
      Expr row = cx.Add(Dot(cx, phi_q[i], vdot), a[i]);
      row = cx.Add(row, cx.Mul(cx.Mul(cx.Constant(2.0), alpha), h[i]));
      row = cx.Add(row, cx.Mul(cx.Mul(beta, beta), phi[i]));
      eq.g.push_back(row);
    }
    eq.extra_inputs = eq.w;
    eq.extra_inputs.push_back(alpha);
    eq.extra_inputs.push_back(beta);
    CompileJacobian(cx, inputs, eq);
  }

  ode_size_ = 2 * n;
  position_size_ = n;
  num_pos_inv_ = m_;
  num_vel_inv_ = m_;
  mass_size_ = n;
  invariant_names_ = model.constraint_names;
  Append(&invariant_names_, model.constraint_names);
}

void ReducedModel::BuildIndex(Context& cx, const std::vector<Expr>& inputs) {
  const model::Model& model = *model_;
  const std::size_t nx = n_;
  const std::size_t m = m_;
  const std::vector<Expr> x(inputs.begin(), inputs.begin() + static_cast<long>(nx));
  const std::vector<Expr> y(inputs.begin() + static_cast<long>(nx),
                            inputs.begin() + static_cast<long>(nx + m));
  const Expr t = inputs[nx + m];
  const std::vector<Expr> f = ImportAll(cx, *model.context, model.rhs);
  const std::vector<Expr> g = ImportAll(cx, *model.context, model.constraints);
  const auto g_x = JacobianOf(cx, g, x);
  const auto g_y = JacobianOf(cx, g, y);
  const std::vector<Expr> g_t = Diffs(cx, g, t);
  const bool index1 = model.form != model::Form::kIndex2;  // the implicit stage is index1's
  const bool ode = options_.algebraic == AlgebraicMode::kOde;
  const bool stage_mode = options_.algebraic == AlgebraicMode::kStage;

  std::vector<Expr> h;  // index 2: h = g_x f + g_t
  if (!index1) {
    for (std::size_t i = 0; i < m; ++i) h.push_back(cx.Add(Dot(cx, g_x[i], f), g_t[i]));
  }
  const std::vector<Expr>& c = index1 ? g : h;  // the level y is solved from
  std::vector<Expr> stage = f;
  Append(&stage, c);
  Append(&stage, JacobianOf(cx, c, x));
  Append(&stage, JacobianOf(cx, c, y));
  Append(&stage, Diffs(cx, c, t));
  if (options_.jacobian) {  // the implicit form's z, w, φ, G are x, y, f, c too
    StageEquations eq;
    eq.phi = f;
    if (ode) {  // z = (x, y), w = y', G = c_x f + c_y y' + c_t
      eq.z.assign(inputs.begin(), inputs.begin() + static_cast<long>(nx + m));
      eq.w = NewSymbols(cx, "$ydot", m);
      Append(&eq.phi, eq.w);
      const auto c_x = JacobianOf(cx, c, x);
      const auto c_y = JacobianOf(cx, c, y);
      const std::vector<Expr> c_t = Diffs(cx, c, t);
      for (std::size_t i = 0; i < m; ++i) {
        eq.g.push_back(cx.Add(cx.Add(Dot(cx, c_x[i], f), Dot(cx, c_y[i], eq.w)), c_t[i]));
      }
      eq.extra_inputs = eq.w;
    } else if (stage_mode) {  // z = (x, y), no w, φ = (f, c)
      eq.z.assign(inputs.begin(), inputs.begin() + static_cast<long>(nx + m));
      Append(&eq.phi, c);
    } else {  // z = x, w = y, G = c
      eq.z = x;
      eq.w = y;
      eq.g = c;
    }
    CompileJacobian(cx, inputs, eq);
  }
  if (model.form == model::Form::kImplicit) {
    Compile(cx, inputs, stage, BuildImplicitInvariants(cx, inputs), {}, ImportOutputs(cx));
    if (stage_mode) ode_size_ = nx + m;  // (z, w); the invariants stay on z
    return;
  }

  std::vector<Expr> invariants = g;
  if (index1) {
    Append(&invariants, g_x);
    Append(&invariants, g_y);
  } else {
    Append(&invariants, h);
    Append(&invariants, g_x);
    Append(&invariants, JacobianOf(cx, h, x));
    Append(&invariants, JacobianOf(cx, h, y));
  }
  Compile(cx, inputs, stage, invariants, {}, ImportOutputs(cx));

  ode_size_ = ode || stage_mode ? nx + m : nx;
  if (index1) {
    position_size_ = ode_size_;
    num_pos_inv_ = ode ? m : 0;  // kStage has kSolve's invariants: none here, g on x below
    num_vel_inv_ = 0;
  } else {
    position_size_ = nx;
    num_pos_inv_ = m;
    num_vel_inv_ = ode ? m : 0;
  }
  invariant_names_ = model.constraint_names;
  if (num_vel_inv_ > 0) Append(&invariant_names_, model.constraint_names);
  if (num_pos_inv_ == 0) invariant_names_.clear();
}

std::vector<Expr> ReducedModel::ImportOutputs(Context& cx) const {
  std::vector<Expr> outputs;
  for (const model::Output& o : model_->outputs) outputs.push_back(cx.Import(*model_->context, o.value));
  return outputs;
}

void ReducedModel::Compile(Context& cx, const std::vector<Expr>& inputs,
                           const std::vector<Expr>& stage, const std::vector<Expr>& invariants,
                           const std::vector<Expr>& mass, const std::vector<Expr>& outputs) {
  stage_ = expr::Compile(cx, stage, inputs);
  invariants_ = expr::Compile(cx, invariants, inputs);
  mass_ = expr::Compile(cx, mass, inputs);
  outputs_ = expr::Compile(cx, outputs, inputs);
}

}  // namespace tether::reduce
