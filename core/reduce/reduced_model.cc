// Evaluation side of ReducedModel: stage solves, invariants, outputs. The symbolic side
// (Build) is in reduction.cc.
#include "tether/reduce/reduced_model.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

#include "tether/expr/number_text.h"
#include "tether/reduce/rank.h"
#include "tether/reduce/small_dense.h"

namespace tether::reduce {
namespace {

using ConstRowMap = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic,
                                                   Eigen::RowMajor>>;
using ConstVecMap = Eigen::Map<const Eigen::VectorXd>;

Eigen::Index Ix(std::size_t i) { return static_cast<Eigen::Index>(i); }

// Value by value, as AllFinite reads (dense::CopyScalars says why).
bool SameBits(std::span<const double> a, std::span<const double> b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::bit_cast<std::uint64_t>(a[i]) != std::bit_cast<std::uint64_t>(b[i])) return false;
  }
  return true;
}

// Element by element: the values were just stored one by one (the programs' machine code), and
// wider loads would wait for those stores to retire instead of taking their values.
bool AllFinite(std::span<const double> values) {
  bool finite = true;  // no early exit: one branch instead of one per value
  for (double v : values) finite &= std::isfinite(v);
  return finite;
}

double MaxAbs(std::span<const double> values) {
  double largest = 0.0;
  for (double x : values) largest = std::max(largest, std::abs(x));
  return largest;
}

std::string Num(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", x);
  return buffer;
}

// Times print as every message of tether prints them (tether/expr/number_text.h).
std::string TimeText(double t) { return expr::ShortestText(t); }

}  // namespace

bool ReduceOptions::IsValid(std::string* why) const {
  if (!(newton_tolerance > 0.0)) {
    if (why) *why = "ReduceOptions::newton_tolerance = " + Num(newton_tolerance) + "; must be > 0";
    return false;
  }
  if (max_newton_iterations < 1) {
    if (why) {
      *why = "ReduceOptions::max_newton_iterations = " + std::to_string(max_newton_iterations) +
             "; must be >= 1";
    }
    return false;
  }
  return true;
}

ReducedModel::~ReducedModel() = default;

void ReducedModel::Allocate() {
  const std::size_t states = model_->num_states();
  model_inputs_ = states + 1 + model_->parameters.size();
  in_.assign(model_inputs_ + 2, 0.0);  // [states, t, parameters, α, β]
  for (std::size_t k = 0; k < model_->parameters.size(); ++k) {
    in_[states + 1 + k] = model_->parameters[k].value;
  }
  in_[model_inputs_] = alpha_;
  in_[model_inputs_ + 1] = beta_;
  stage_out_.assign(stage_.num_outputs(), 0.0);
  closed_out_.assign(closed_ ? closed_->tail_size() : 0, 0.0);
  invariants_out_.assign(invariants_.num_outputs(), 0.0);
  invariants_at_.assign(num_states_ + 1, 0.0);
  invariants_cached_ = false;
  mass_out_.assign(mass_.num_outputs(), 0.0);
  aux_.assign(m_, 0.0);
  const Eigen::Index m = Ix(m_);
  // The dense multiplier kernel's arrays, O(n² + m·n): none on the sparse path.
  const bool dense = kernel_ == StageKernel::kMultipliers && !sparse_;
  dense_ = dense ? DenseMultipliers(n_, m_) : DenseMultipliers();
  lambda_.assign(m_, 0.0);
  const Eigen::Index dense_m = sparse_algebraic_ ? 0 : m;  // the dense LU's, O(m²)
  c_y_.setZero(dense_m, dense_m);
  lu_ = Eigen::PartialPivLU<Eigen::MatrixXd>(dense_m);
  work_m_.setZero(m);
  solve_m_.setZero(m);
}

void ReducedModel::SetParameters(std::span<const double> values) {
  invariants_cached_ = false;
  const std::size_t offset = num_states_ + 1;
  for (std::size_t k = 0; k < values.size() && offset + k < model_inputs_; ++k) {
    in_[offset + k] = values[k];
  }
}

std::span<const double> ReducedModel::parameters() const {
  return model_in().subspan(num_states_ + 1);
}

void ReducedModel::SetBaumgarte(double alpha, double beta) {
  alpha_ = alpha;
  beta_ = beta;
  if (in_.size() == model_inputs_ + 2) {
    in_[model_inputs_] = alpha;
    in_[model_inputs_ + 1] = beta;
  }
}

void ReducedModel::SetAuxiliary(std::span<const double> values) {
  std::copy_n(values.begin(), std::min(values.size(), aux_.size()), aux_.begin());
}

bool ReducedModel::Fail(EvalStatus status, std::string message) {
  failure_.status = status;
  failure_.message = std::move(message);
  return false;
}

bool ReducedModel::FailNonFinite(double t, const char* what) {
  const std::string state = NonFiniteState();
  if (!state.empty()) {
    return Fail(EvalStatus::kNonFinite,
                "non-finite state handed to " + std::string(what) + " at t = " + TimeText(t) +
                    " (" + state + "): the method's own arithmetic overflowed, not the model's "
                    "expressions; the state or its rate is near the largest double (1.8e308)");
  }
  const std::string where = DescribeNonFinite();
  return Fail(EvalStatus::kNonFinite,
              "non-finite value in " + std::string(what) + " at t = " + TimeText(t) +
                  (where.empty() ? "; the expressions are finite but a derivative of them is not"
                                 : ": " + where) +
                  "; a parameter or the state makes the model's expressions overflow or "
                  "leave their domain");
}

std::string ReducedModel::NonFiniteState() const {
  const std::vector<const model::Variable*> states = model_->states();
  const std::size_t given = std::min({ode_size_, num_states_, states.size()});
  for (std::size_t i = 0; i < given; ++i) {
    if (!std::isfinite(in_[i])) return states[i]->name + " = " + expr::ShortestText(in_[i]);
  }
  return {};
}

std::string ReducedModel::DescribeNonFinite() const {
  const model::Model& model = *model_;
  const expr::Context& cx = *model.context;
  const std::vector<const model::Variable*> states = model.states();
  // in_ starts [states, t, parameters]; a name that is none of them (der(x) of an implicit
  // model's equations) has no value here.
  auto input = [&](std::size_t i) {
    return i < model_inputs_ ? in_[i] : std::numeric_limits<double>::quiet_NaN();
  };
  auto value_of = [&](expr::Expr symbol) {
    const std::string& name = cx.symbol_name(symbol);
    if (name == "t") return input(states.size());
    for (std::size_t i = 0; i < states.size(); ++i) {
      if (states[i]->name == name) return input(i);
    }
    for (std::size_t k = 0; k < model.parameters.size(); ++k) {
      if (model.parameters[k].name == name) return input(states.size() + 1 + k);
    }
    return std::numeric_limits<double>::quiet_NaN();
  };
  std::vector<std::pair<std::string, expr::Expr>> expressions;
  const std::size_t n = model.coordinates.size();
  for (std::size_t i = 0; i < model.mass.size() && n > 0; ++i) {
    expressions.emplace_back("mass[" + std::to_string(i / n) + "][" + std::to_string(i % n) + "]",
                             model.mass[i]);
  }
  for (std::size_t i = 0; i < model.forces.size(); ++i) {
    expressions.emplace_back("forces[" + std::to_string(i) + "]", model.forces[i]);
  }
  for (std::size_t i = 0; i < model.rhs.size(); ++i) {
    expressions.emplace_back("rhs[" + std::to_string(i) + "]", model.rhs[i]);
  }
  for (std::size_t i = 0; i < model.constraints.size(); ++i) {
    // The name the spec gave (an implicit model's "equations[1]", with primes where the
    // analysis differentiated it), else the field's.
    const bool named = i < model.constraint_names.size() && !model.constraint_names[i].empty();
    expressions.emplace_back(named ? model.constraint_names[i]
                                   : "constraints[" + std::to_string(i) + "]",
                             model.constraints[i]);
  }
  constexpr std::size_t kQuoted = 60;    // characters of the expression quoted
  constexpr std::size_t kMaxNames = 8;  // names whose values are listed
  for (const auto& [path, e] : expressions) {
    const double value = cx.Evaluate(e, value_of);
    if (std::isfinite(value)) continue;
    std::string text = path + " = '" + cx.ToString(e, kQuoted) + "' is " +
                       expr::ShortestText(value) + " with ";
    const std::vector<expr::Expr> names = cx.FreeSymbols(e);
    for (std::size_t k = 0; k < names.size() && k < kMaxNames; ++k) {
      text += (k == 0 ? "" : ", ") + cx.symbol_name(names[k]) + " = " +
              expr::ShortestText(value_of(names[k]));
    }
    if (names.empty()) text += "no names";
    return text;
  }
  return {};
}

bool ReducedModel::FailSingularRows(double t, const Eigen::MatrixXd& rows, const char* what) {
  const std::vector<std::size_t> dependent = DependentRows(rows);
  return Fail(EvalStatus::kSingular,
              std::string(what) + " is rank-deficient at t = " + TimeText(t) + ": constraints " +
                  NameList(dependent, model_->constraint_names) +
                  " are dependent or have a vanishing gradient");
}

void ReducedModel::LoadState(double t, std::span<const double> state) {
  std::copy(state.begin(), state.end(), in_.begin());
  in_[state.size()] = t;
}

void ReducedModel::LoadZ(double t, std::span<const double> z) {
  dense::CopyScalars(z, in_.data());
  if (kernel_ == StageKernel::kAlgebraicNewton && options_.algebraic == AlgebraicMode::kSolve) {
    std::copy(aux_.begin(), aux_.end(), in_.begin() + Ix(n_));
  }
  in_[num_states_] = t;
}

bool ReducedModel::Rhs(double t, std::span<const double> z, std::span<double> zdot) {
  return kernel_ == StageKernel::kMultipliers ? RhsMechanical(t, z, zdot) : RhsIndex(t, z, zdot);
}

bool ReducedModel::RhsMechanical(double t, std::span<const double> z, std::span<double> zdot) {
  if (closed_) {  // z in, z' out where the caller keeps them; [t, parameters, α, β] from in_
    in_[num_states_] = t;
    expr::Program& program = alpha_ == 0.0 && beta_ == 0.0 ? closed_plain_ : closed_stage_;
    program.Evaluate(z, std::span<const double>(in_).subspan(num_states_), zdot, closed_out_);
    ++stage_evaluations_;
    if (closed_->Holds(zdot.data() + n_, closed_out_.data())) {  // tail [λ, S, d]
      const std::span<const double> lambda = std::span<const double>(closed_out_).first(m_);
      dense::CopyScalars(lambda, lambda_.data());
      dense::CopyScalars(lambda, aux_.data());
      return true;
    }
    // The dense layout names what failed (closed_form_multipliers.h).
  }
  LoadZ(t, z);
  stage_.Evaluate(model_in(), stage_out_);
  ++stage_evaluations_;
  if (!AllFinite(stage_out_)) return FailNonFinite(t, "the mass matrix, forces or constraints");
  double* vdot = zdot.data() + n_;
  const MultiplierStatus status =
      sparse_ ? sparse_->Solve(stage_out_.data(), alpha_, beta_, vdot, lambda_.data())
              : dense_.Solve(stage_out_.data(), alpha_, beta_, vdot, lambda_.data());
  switch (status) {
    case MultiplierStatus::kOk: break;
    case MultiplierStatus::kMassNotPositive: return FailMassNotPositive(t);
    case MultiplierStatus::kSingular:
      return FailSingularRows(t, JacobianOfStage(), "Φ_q M⁻¹ Φ_qᵀ");
  }
  dense::CopyScalars(lambda_, aux_.data());
  dense::CopyScalars(z.subspan(n_, n_), zdot.data());  // q' = v
  return true;
}

bool ReducedModel::FailMassNotPositive(double t) {
  return Fail(EvalStatus::kSingular,
              "the mass matrix is not symmetric positive definite at t = " + TimeText(t));
}

// Φ_q (m × n) from the last stage values, in either layout: for the failure message only.
Eigen::MatrixXd ReducedModel::JacobianOfStage() const {
  if (sparse_) return sparse_->DenseJacobian(stage_out_.data());
  return ConstRowMap(stage_out_.data() + n_ * n_ + n_, Ix(m_), Ix(n_));
}

bool ReducedModel::SolveAlgebraic(double t, std::span<const double> x, std::span<double> y,
                                  int* iterations) {
  const std::size_t nx = n_;
  const std::size_t m = m_;
  double previous = 0.0;
  for (int iteration = 0;; ++iteration) {
    std::copy(x.begin(), x.end(), in_.begin());
    std::copy(y.begin(), y.end(), in_.begin() + Ix(nx));
    in_[nx + m] = t;
    stage_.Evaluate(model_in(), stage_out_);
    ++stage_evaluations_;
    if (!AllFinite(stage_out_)) return FailNonFinite(t, "the right-hand side or constraints");
    const double residual = AlgebraicResidual(x, y);
    if (iterations) *iterations = iteration;
    if (residual <= options_.newton_tolerance) return true;
    const bool grew = iteration > 0 && residual > previous;
    if (grew || iteration >= options_.max_newton_iterations) {
      return Fail(EvalStatus::kNotConverged,
                  "the algebraic equations did not converge at t = " + TimeText(t) + " after " +
                      std::to_string(iteration) + " Newton iterations, scaled residual " +
                      Num(residual) + (grew ? " (growing)" : "") +
                      "; the step may be too large for the algebraic variables to follow");
    }
    previous = residual;
    if (!FactorCy(t)) return false;
    std::copy_n(stage_out_.begin() + Ix(nx), m, work_m_.data());
    SolveCy(work_m_);
    for (std::size_t j = 0; j < m; ++j) y[j] -= work_m_(Ix(j));  // y ← y − c_y⁻¹ c
  }
}

// Scaled residual max_i |c_i| / max(1, ½(Σ_j |c_x,ij x_j| + Σ_j |c_y,ij y_j|)) of the stage
// values at (x, y).
double ReducedModel::AlgebraicResidual(std::span<const double> x, std::span<const double> y) {
  const double* out = stage_out_.data();
  if (sparse_algebraic_) return sparse_algebraic_->ScaledResidual(out, x, y);
  const std::size_t nx = n_;
  const std::size_t m = m_;
  const ConstVecMap c(out + nx, Ix(m));
  const ConstRowMap c_x(out + nx + m, Ix(m), Ix(nx));
  const ConstRowMap c_y(out + nx + m + m * nx, Ix(m), Ix(m));
  double residual = 0.0;
  for (std::size_t i = 0; i < m; ++i) {
    double scale = 0.0;
    for (std::size_t j = 0; j < nx; ++j) scale += std::abs(c_x(Ix(i), Ix(j)) * x[j]);
    for (std::size_t j = 0; j < m; ++j) scale += std::abs(c_y(Ix(i), Ix(j)) * y[j]);
    residual = std::max(residual, std::abs(c(Ix(i))) / std::max(1.0, 0.5 * scale));
  }
  return residual;
}

// Factors c_y from the stage values; false (the failure set, naming the dependent rows) when
// it is singular.
bool ReducedModel::FactorCy(double t) {
  double* out = stage_out_.data();
  if (sparse_algebraic_) {
    if (sparse_algebraic_->Factor(out)) return true;
    return FailSingularRows(t, sparse_algebraic_->DenseCy(out), algebraic_jacobian_name_.c_str());
  }
  c_y_ = ConstRowMap(out + n_ + m_ + m_ * n_, Ix(m_), Ix(m_));
  lu_.compute(c_y_);
  if (LuIsRankDeficient(lu_, RelativePivotThreshold(m_))) {
    return FailSingularRows(t, c_y_, algebraic_jacobian_name_.c_str());
  }
  return true;
}

// b ← c_y⁻¹ b with the last FactorCy.
void ReducedModel::SolveCy(Eigen::VectorXd& b) {
  if (sparse_algebraic_) {
    sparse_algebraic_->Solve(b.data());
    return;
  }
  solve_m_ = lu_.solve(b);
  b = solve_m_;
}

bool ReducedModel::SolveAlgebraicPart(double t, std::span<double> z) {
  if (options_.algebraic != AlgebraicMode::kStage || m_ == 0) return true;
  const std::span<double> y = z.subspan(n_, m_);
  if (!SolveAlgebraic(t, z.first(n_), y, nullptr)) return false;
  std::copy(y.begin(), y.end(), aux_.begin());
  return true;
}

bool ReducedModel::InitializeAuxiliary(double t, std::span<double> z,
                                       std::span<const double> state, int* iterations) {
  if (kernel_ == StageKernel::kMultipliers) {  // λ at the projected (q, v)
    std::vector<double> zdot(z.size());
    return Rhs(t, z, zdot);
  }
  const std::size_t nx = n_;
  std::vector<double> y(state.begin() + Ix(nx), state.end());  // the Newton's start
  int newton = 0;
  if (!SolveAlgebraic(t, z.first(nx), y, &newton)) return false;
  *iterations += newton;
  SetAuxiliary(y);
  if (z.size() > nx) std::copy(y.begin(), y.end(), z.begin() + Ix(nx));
  return true;
}

bool ReducedModel::RhsIndex(double t, std::span<const double> z, std::span<double> zdot) {
  const std::size_t nx = n_;
  const std::size_t m = m_;
  if (options_.algebraic == AlgebraicMode::kSolve) {
    if (!SolveAlgebraic(t, z.first(nx), aux_, nullptr)) return false;
    std::copy_n(stage_out_.begin(), nx, zdot.begin());  // f at the converged y
    return true;
  }
  LoadZ(t, z);
  stage_.Evaluate(model_in(), stage_out_);
  ++stage_evaluations_;
  if (!AllFinite(stage_out_)) return FailNonFinite(t, "the right-hand side or constraints");
  const double* out = stage_out_.data();
  if (options_.algebraic == AlgebraicMode::kStage) {  // F = (f, c): the stepper solves c = 0
    std::copy_n(out, nx + m, zdot.begin());
    std::copy(z.begin() + Ix(nx), z.end(), aux_.begin());
    return true;
  }
  if (!FactorCy(t)) return false;
  const ConstVecMap c_t(out + stage_out_.size() - m, Ix(m));  // the layouts' last block
  if (sparse_algebraic_) {
    sparse_algebraic_->MultiplyCx(out, out, work_m_.data());
  } else {
    const ConstVecMap f(out, Ix(nx));
    const ConstRowMap c_x(out + nx + m, Ix(m), Ix(nx));
    work_m_.noalias() = c_x * f;
  }
  work_m_ = -(work_m_ + c_t);
  SolveCy(work_m_);  // y' = −c_y⁻¹ (c_x f + c_t)
  std::copy_n(out, nx, zdot.begin());
  std::copy_n(work_m_.data(), m, zdot.begin() + Ix(nx));
  std::copy(z.begin() + Ix(nx), z.end(), aux_.begin());
  return true;
}

bool ReducedModel::Invariants(double t, std::span<const double> z, std::span<double> h,
                              std::span<double> h_z) {
  const std::size_t p = num_invariants();
  if (p == 0) return true;
  if (!EvaluateInvariants(t, z, h)) return false;
  const SparseSchur::Pattern& pattern = invariant_pattern_;
  const double* values = invariants_out_.data() + invariant_prefix_;
  std::fill(h_z.begin(), h_z.end(), 0.0);
  for (std::size_t i = 0; i < p; ++i) {
    double* row = h_z.data() + i * ode_size_;
    for (int k = pattern.row_start[i]; k < pattern.row_start[i + 1]; ++k) {
      row[pattern.col[static_cast<std::size_t>(k)]] = values[k];
    }
  }
  return true;
}

bool ReducedModel::InvariantValues(double t, std::span<const double> z, std::span<double> h,
                                   std::span<double> values) {
  if (num_invariants() == 0) return true;
  if (!EvaluateInvariants(t, z, h)) return false;
  const std::span<const double> out(invariants_out_);
  const std::size_t nonzeros = invariant_pattern_.col.size();
  dense::CopyScalars(out.subspan(invariant_prefix_, nonzeros), values.data());
  return true;
}

void ReducedModel::EvaluateInvariantProgram(double t, std::span<const double> z) {
  const bool direct = z.size() == num_states_;  // else LoadZ adds the algebraic variables
  if (!direct) LoadZ(t, z);
  const std::span<const double> states = direct ? z : model_in().first(num_states_);
  if (invariants_cached_ && SameBits(states, std::span(invariants_at_).first(num_states_)) &&
      std::bit_cast<std::uint64_t>(t) == std::bit_cast<std::uint64_t>(invariants_at_.back())) {
    return;
  }
  in_[num_states_] = t;
  if (direct) {
    invariants_.Evaluate(z, model_in().subspan(num_states_), invariants_out_, {});
  } else {
    invariants_.Evaluate(model_in(), invariants_out_);
  }
  dense::CopyScalars(states, invariants_at_.data());
  invariants_at_.back() = t;
  invariants_cached_ = true;
}

bool ReducedModel::EvaluateInvariants(double t, std::span<const double> z, std::span<double> h) {
  EvaluateInvariantProgram(t, z);
  if (!AllFinite(invariants_out_)) {
    LoadZ(t, z);  // the message names the inputs' values
    return FailNonFinite(t, "the constraints or their Jacobian");
  }
  const std::span<const double> values(invariants_out_);
  dense::CopyScalars(values.first(num_invariants()), h.data());  // H
  return true;
}

bool ReducedModel::Mass(double t, std::span<const double> z, std::span<double> m) {
  if (mass_size_ == 0) return true;
  LoadZ(t, z);
  if (!mass_diagonal_) {
    mass_.Evaluate(model_in(), m);
    if (!AllFinite(m)) return FailNonFinite(t, "the mass matrix");
    return true;
  }
  mass_.Evaluate(model_in(), mass_out_);
  if (!AllFinite(mass_out_)) return FailNonFinite(t, "the mass matrix");
  std::fill(m.begin(), m.end(), 0.0);
  for (std::size_t k = 0; k < mass_size_; ++k) m[k * mass_size_ + k] = mass_out_[k];
  return true;
}

bool ReducedModel::MassDiagonal(double t, std::span<const double> z,
                                std::span<double> diagonal) {
  if (mass_size_ == 0) return true;
  LoadZ(t, z);
  if (mass_diagonal_) {
    mass_.Evaluate(model_in(), diagonal);
  } else {
    mass_.Evaluate(model_in(), mass_out_);
    for (std::size_t k = 0; k < mass_size_; ++k) diagonal[k] = mass_out_[k * mass_size_ + k];
  }
  if (!AllFinite(diagonal)) return FailNonFinite(t, "the mass matrix's diagonal");
  return true;
}

bool ReducedModel::Residuals(double t, std::span<const double> z, double* position,
                             double* velocity) {
  *position = 0.0;
  *velocity = 0.0;
  std::size_t rows = 0;
  for (const ResidualLevel& level : residual_levels_) rows += level.count;
  if (rows == 0) return true;
  EvaluateInvariantProgram(t, z);
  const std::span<const double> out(invariants_out_);
  for (std::size_t k = 0; k < residual_levels_.size(); ++k) {
    const ResidualLevel& level = residual_levels_[k];
    double& largest = k == 0 ? *position : *velocity;
    largest = std::max(largest, MaxAbs(out.subspan(level.offset, level.count)));
  }
  if (!std::isfinite(*position) || !std::isfinite(*velocity)) {
    LoadZ(t, z);  // the message names the inputs' values
    return FailNonFinite(t, "the constraint residuals");
  }
  return true;
}

void ReducedModel::FullState(std::span<const double> z, std::span<double> state) const {
  std::copy(z.begin(), z.end(), state.begin());
  if (z.size() < state.size()) std::copy(aux_.begin(), aux_.end(), state.begin() + Ix(z.size()));
}

void ReducedModel::SetFullState(std::span<const double> state, std::span<double> z) {
  std::copy_n(state.begin(), z.size(), z.begin());
  if (kernel_ == StageKernel::kAlgebraicNewton) {
    std::copy_n(state.begin() + Ix(n_), m_, aux_.begin());
  }
}

bool ReducedModel::Outputs(double t, std::span<const double> state, std::span<double> out) {
  if (out.empty()) return true;
  LoadState(t, state);
  outputs_.Evaluate(model_in(), out);
  return true;
}

}  // namespace tether::reduce
