// ∂F/∂z of the reduced ODE by the implicit function theorem (reduced_model.h): the symbolic
// blocks φ_z, φ_w, G_z, G_w are compiled once; each evaluation solves G_w X = G_z by LU:
// Eigen's dense LU, or KLU for a large sparse G_w, one column of G_z at a time. The sparse
// path pays where the dense one's O(|w|³ + |z| |w|²) dominates (bench/expr_vs_hand, an
// index-1 ladder of m = 256 with c_y bidiagonal as G_w: 6.6 ms dense, 1.1 ms sparse).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "reduce/formulation_build.h"
#include "tether/reduce/rank.h"
#include "tether/reduce/reduced_model.h"

namespace tether::reduce {
namespace {

using expr::Context;
using expr::Expr;

Eigen::Index Ix(std::size_t i) { return static_cast<Eigen::Index>(i); }

std::string Num(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", x);
  return buffer;
}

}  // namespace

void FormulationBuild::CompileJacobian(const StageEquations& eq) {
  Context& cx = context;
  ReducedModel& r = reduced;
  const std::size_t big_n = eq.z.size();
  const std::size_t nw = eq.w.size();
  std::vector<Expr> outputs;
  r.jacobian_blocks_.clear();
  std::vector<bool> phi_w_row(big_n, false);
  std::vector<bool> g_z_col(big_n, false);
  std::vector<bool> phi_z_nonzero(big_n * big_n, false);
  auto add_block = [&](std::uint8_t block, const std::vector<Expr>& rows,
                       const std::vector<Expr>& cols) {
    for (std::size_t i = 0; i < rows.size(); ++i) {
      for (std::size_t j = 0; j < cols.size(); ++j) {
        const Expr d = cx.Diff(rows[i], cols[j]);
        if (cx.is_constant(d, 0.0)) continue;
        outputs.push_back(d);
        r.jacobian_blocks_.push_back(
            {block, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j)});
        if (block == 0) phi_z_nonzero[i * big_n + j] = true;
        if (block == 1) phi_w_row[i] = true;
        if (block == 2) g_z_col[j] = true;
      }
    }
  };
  add_block(0, eq.phi, eq.z);
  add_block(1, eq.phi, eq.w);
  add_block(2, eq.g, eq.z);
  add_block(3, eq.g, eq.w);

  std::vector<Expr> all_inputs = inputs;
  all_inputs.insert(all_inputs.end(), eq.extra_inputs.begin(), eq.extra_inputs.end());
  r.jacobian_ = expr::Compile(cx, outputs, all_inputs);
  r.jacobian_in_.assign(all_inputs.size(), 0.0);
  r.jacobian_out_.assign(outputs.size(), 0.0);

  r.jacobian_pattern_.clear();
  for (std::size_t i = 0; i < big_n; ++i) {
    for (std::size_t j = 0; j < big_n; ++j) {
      if (phi_z_nonzero[i * big_n + j] || (phi_w_row[i] && g_z_col[j])) {
        r.jacobian_pattern_.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j)});
      }
    }
  }
  r.num_stage_unknowns_ = nw;
  r.rhs_work_.assign(big_n, 0.0);
  r.phi_z_.setZero(Ix(big_n), Ix(big_n));
  const auto g_w_entries = static_cast<std::size_t>(std::count_if(
      r.jacobian_blocks_.begin(), r.jacobian_blocks_.end(),
      [](const ReducedModel::BlockEntry& e) { return e.block == 3; }));
  // ReduceOptions::linear_algebra decides as for c_y: kAuto takes the sparse path where
  // SparseAlgebraic's crossover holds for G_w.
  const bool pays = SparseAlgebraic::Pays(nw, g_w_entries);
  const LinearAlgebra choice = options.linear_algebra;
  r.sparse_jacobian_.reset();
  if (nw > 0 && (choice == LinearAlgebra::kSparse || (choice == LinearAlgebra::kAuto && pays))) {
    r.sparse_jacobian_ = ReducedModel::SparseJacobianOf(r.jacobian_blocks_, big_n, nw);
    return;
  }
  r.phi_w_.setZero(Ix(big_n), Ix(nw));
  r.g_z_.setZero(Ix(nw), Ix(big_n));
  r.g_w_.setZero(Ix(nw), Ix(nw));
  r.g_w_lu_ = Eigen::PartialPivLU<Eigen::MatrixXd>(Ix(nw));
}

// [states, t, parameters] as the other programs take them, then the values of the new stage
// unknowns (mechanical: v' and λ, then α and β; kOde: y'), from z, Rhs's z' and auxiliary().
void ReducedModel::LoadJacobianInputs(std::span<const double> z, std::span<const double> zdot) {
  const std::size_t states = model_->num_states();
  std::copy(in_.begin(), in_.begin() + Ix(states + 1 + model_->parameters.size()),
            jacobian_in_.begin());
  FullState(z, std::span<double>(jacobian_in_).first(states));
  auto extra = jacobian_in_.begin() + Ix(states + 1 + model_->parameters.size());
  if (kernel_ == StageKernel::kMultipliers) {
    extra = std::copy_n(zdot.begin() + Ix(n_), n_, extra);
    extra = std::copy(aux_.begin(), aux_.end(), extra);
    *extra++ = alpha_;
    *extra = beta_;
  } else if (options_.algebraic == AlgebraicMode::kOde) {
    std::copy_n(zdot.begin() + Ix(n_), m_, extra);
  }
}

bool ReducedModel::Jacobian(double t, std::span<const double> z, std::span<double> values) {
  if (jacobian_in_.empty()) {
    return Fail(EvalStatus::kSingular, "the reduced model was built without its Jacobian");
  }
  if (!Rhs(t, z, rhs_work_)) return false;
  in_[model_->num_states()] = t;
  LoadJacobianInputs(z, rhs_work_);
  jacobian_.Evaluate(jacobian_in_, jacobian_out_);
  if (!std::all_of(jacobian_out_.begin(), jacobian_out_.end(),
                   [](double x) { return std::isfinite(x); })) {
    return FailNonFinite(t, "the Jacobian of the right-hand side");
  }
  if (num_stage_unknowns_ == 0) {  // F = φ: the outputs are φ_z's entries in pattern order
    std::copy(jacobian_out_.begin(), jacobian_out_.end(), values.begin());
    return true;
  }
  phi_z_.setZero();
  if (sparse_jacobian_) {
    for (std::size_t k = 0; k < jacobian_blocks_.size(); ++k) {
      const BlockEntry& e = jacobian_blocks_[k];
      if (e.block == 0) phi_z_(e.row, e.col) = jacobian_out_[k];
    }
    if (!SubtractSparseCoupling()) return FailSingularGw(t);
  } else {
    phi_w_.setZero();
    g_z_.setZero();
    g_w_.setZero();
    Eigen::MatrixXd* const blocks[] = {&phi_z_, &phi_w_, &g_z_, &g_w_};
    for (std::size_t k = 0; k < jacobian_blocks_.size(); ++k) {
      const BlockEntry& e = jacobian_blocks_[k];
      (*blocks[e.block])(e.row, e.col) = jacobian_out_[k];
    }
    g_w_lu_.compute(g_w_);
    if (LuIsRankDeficient(g_w_lu_, RelativePivotThreshold(num_stage_unknowns_))) {
      return FailSingularGw(t);
    }
    phi_z_.noalias() -= phi_w_ * g_w_lu_.solve(g_z_);  // ∂F/∂z = φ_z − φ_w G_w⁻¹ G_z
  }
  for (std::size_t k = 0; k < jacobian_pattern_.size(); ++k) {
    values[k] = phi_z_(jacobian_pattern_[k].row, jacobian_pattern_[k].col);
  }
  return true;
}

ReducedModel::SparseJacobian ReducedModel::SparseJacobianOf(
    const std::vector<BlockEntry>& blocks, std::size_t big_n, std::size_t nw) {
  // Block `block`'s entries sorted by column (a counting sort).
  const auto columns_of = [&](std::uint8_t block, std::size_t columns) {
    SparseJacobian::Columns c;
    c.start.assign(columns + 1, 0);
    for (const BlockEntry& e : blocks) {
      if (e.block == block) ++c.start[e.col + 1];
    }
    for (std::size_t j = 0; j < columns; ++j) c.start[j + 1] += c.start[j];
    const auto count = static_cast<std::size_t>(c.start.back());
    c.row.assign(count, 0);
    c.source.assign(count, 0);
    std::vector<int> next(c.start.begin(), c.start.end() - 1);
    for (std::size_t k = 0; k < blocks.size(); ++k) {
      if (blocks[k].block != block) continue;
      const auto p = static_cast<std::size_t>(next[blocks[k].col]++);
      c.row[p] = static_cast<int>(blocks[k].row);
      c.source[p] = k;
    }
    return c;
  };
  SparseJacobian sparse;
  sparse.g_w = columns_of(3, nw);
  sparse.g_z = columns_of(2, big_n);
  sparse.g_w_values.assign(sparse.g_w.source.size(), 0.0);
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    if (blocks[k].block == 1) sparse.phi_w.push_back(k);
  }
  sparse.column.assign(nw, 0.0);
  return sparse;
}

bool ReducedModel::FailSingularGw(double t) {
  return Fail(EvalStatus::kSingular, "the stage unknowns' Jacobian G_w is singular at t = " +
                                         Num(t) + " (the constraints are dependent there)");
}

// Column by column of G_z; G_w's rank test is the dense path's, with KLU's pivots as
// SparseAlgebraic has them.
bool ReducedModel::SubtractSparseCoupling() {
  SparseJacobian& s = *sparse_jacobian_;
  for (std::size_t p = 0; p < s.g_w_values.size(); ++p) {
    s.g_w_values[p] = jacobian_out_[s.g_w.source[p]];
  }
  if (!s.lu.FactorRegular(s.g_w.start, s.g_w.row, s.g_w_values,
                          RelativePivotThreshold(num_stage_unknowns_))) {
    return false;
  }
  for (std::size_t j = 0; j + 1 < s.g_z.start.size(); ++j) {
    const auto begin = static_cast<std::size_t>(s.g_z.start[j]);
    const auto end = static_cast<std::size_t>(s.g_z.start[j + 1]);
    if (begin == end) continue;
    std::fill(s.column.begin(), s.column.end(), 0.0);
    for (std::size_t p = begin; p < end; ++p) {
      s.column[static_cast<std::size_t>(s.g_z.row[p])] = jacobian_out_[s.g_z.source[p]];
    }
    s.lu.Solve(s.column);
    for (const std::size_t k : s.phi_w) {
      const BlockEntry& e = jacobian_blocks_[k];
      phi_z_(e.row, Ix(j)) -= jacobian_out_[k] * s.column[e.col];
    }
  }
  return true;
}

}  // namespace tether::reduce
