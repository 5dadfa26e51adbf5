#include "reduce/formulations/mechanical.h"

#include <optional>
#include <vector>

#include "reduce/formulation_build.h"

namespace tether::reduce {

using expr::Expr;
using namespace symbolic;

std::string MechanicalFormulation::Check(const model::Model& model,
                                         const ReduceOptions& options) const {
  const std::size_t n = model.coordinates.size();
  if (model.velocities.size() != n || model.mass.size() != n * n || model.forces.size() != n) {
    return "model '" + model.name + "': mechanical sizes are inconsistent";
  }
  if (options.algebraic == AlgebraicMode::kStage) {
    return "model '" + model.name +
           "': the mechanical form has no algebraic variables for algebraic mode 'stage'";
  }
  if (options.linear_algebra == LinearAlgebra::kSparse &&
      !SparseMultipliers::IsDiagonal(*model.context, model.mass, n)) {
    return "model '" + model.name +
           "': sparse linear algebra needs a diagonal mass matrix (every off-diagonal entry 0)";
  }
  return {};
}

namespace {

// The sparse multiplier solve when `choice` asks for it (kSparse, checked to have a diagonal
// M) or when it pays (kAuto), else none: the dense kernel.
std::optional<SparseMultipliers> SparseKernel(LinearAlgebra choice, const expr::Context& cx,
                                              const std::vector<Expr>& mass,
                                              const std::vector<std::vector<Expr>>& phi_q,
                                              std::size_t n) {
  if (choice == LinearAlgebra::kDense || !SparseMultipliers::IsDiagonal(cx, mass, n)) {
    return std::nullopt;
  }
  SparseMultipliers sparse(SparseMultipliers::PatternOf(cx, phi_q, n));
  if (choice == LinearAlgebra::kAuto && !sparse.Pays()) return std::nullopt;
  return sparse;
}

}  // namespace

void MechanicalFormulation::Build(FormulationBuild& b) const {
  const model::Model& model = b.model;
  expr::Context& cx = b.context;
  const std::size_t n = model.coordinates.size();
  const std::size_t m = model.constraints.size();
  const std::vector<Expr> q = Slice(b.inputs, 0, n);
  const std::vector<Expr> v = Slice(b.inputs, n, 2 * n);
  const Expr t = b.inputs[2 * n];
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

  // Where it applies the closed form is the fastest kernel with native code (bench/expr_vs_hand:
  // one program call against the dense and sparse solves' loops). It is chosen whether native
  // code is on or not, so that switching native code off changes no result.
  const bool closed_form = b.options.linear_algebra == LinearAlgebra::kAuto &&
                           ClosedFormMultipliers::Applies(cx, mass, n, m);
  if (closed_form) {
    const Expr alpha = cx.Symbol("$alpha");
    const Expr beta = cx.Symbol("$beta");
    b.closed_form = ClosedFormMultipliers(n, m);
    const Expr zero = cx.Constant(0.0);  // α = β = 0: the Baumgarte terms fold away
    b.CompileClosedForm(
        ClosedFormMultipliers::StageOutputs(cx, v, mass, forces, phi_q, a, phi, h, alpha, beta),
        ClosedFormMultipliers::StageOutputs(cx, v, mass, forces, phi_q, a, phi, h, zero, zero),
        alpha, beta);
  } else {
    b.sparse_multipliers = SparseKernel(b.options.linear_algebra, cx, mass, phi_q, n);
  }
  std::vector<Expr> stage;
  if (b.sparse_multipliers) {
    stage = b.sparse_multipliers->StageOutputs(mass, forces, phi_q, a, phi, h);
  } else {  // the dense layout: M, f, Φ_q, a, Φ, h (also the closed form's diagnosis)
    stage = mass;
    Append(&stage, forces);
    Append(&stage, phi_q);
    Append(&stage, a);
    Append(&stage, phi);
    Append(&stage, h);
  }
  std::vector<Expr> invariants = phi;  // Φ, h, Φ_q, h_q
  Append(&invariants, h);
  Append(&invariants, phi_q);
  Append(&invariants, h_q);
  // M is diagonal where its multipliers are sparse: its program computes the n diagonal
  // entries, O(n) where the full matrix is O(n²) (the mass metric's projection needs only them).
  b.mass_diagonal = b.sparse_multipliers.has_value();
  std::vector<Expr> mass_program = mass;
  if (b.mass_diagonal) {
    mass_program.clear();
    for (std::size_t k = 0; k < n; ++k) mass_program.push_back(mass[k * n + k]);
  }
  b.Compile(stage, invariants, mass_program);
  if (b.options.jacobian) {
    FormulationBuild::StageEquations eq;
    eq.z = Slice(b.inputs, 0, 2 * n);
    const std::vector<Expr> vdot = NewSymbols(cx, "$vdot", n);
    const std::vector<Expr> lambda = NewSymbols(cx, "$lambda", phi.size());
    const Expr alpha = cx.Symbol("$alpha");
    const Expr beta = cx.Symbol("$beta");
    eq.w = vdot;
    Append(&eq.w, lambda);
    eq.phi = v;
    Append(&eq.phi, vdot);
    for (std::size_t k = 0; k < n; ++k) {  // M v' − Φ_qᵀ λ − f
      const std::vector<Expr> mass_row = Slice(mass, k * n, (k + 1) * n);
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
    b.CompileJacobian(eq);
  }

  b.kernel = StageKernel::kMultipliers;
  b.n = n;
  b.m = m;
  b.ode_size = 2 * n;
  b.position_size = n;
  b.num_position_invariants = m;
  b.num_velocity_invariants = m;
  b.mass_size = n;
  b.invariant_names = model.constraint_names;
  Append(&b.invariant_names, model.constraint_names);
  b.invariant_blocks = {
      {.source = 2 * m, .row = 0, .col = 0, .rows = m, .width = n},          // Φ_q
      {.source = 2 * m + m * n, .row = m, .col = 0, .rows = m, .width = n},  // h_q
      {.source = 2 * m, .row = m, .col = n, .rows = m, .width = n},          // h_v = Φ_q
  };
  b.residual_levels = {{.offset = 0, .count = m}, {.offset = m, .count = m}};  // Φ, h
}

}  // namespace tether::reduce
