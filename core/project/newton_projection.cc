#include "tether/project/newton_projection.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>

#include "tether/expr/number_text.h"
#include "tether/reduce/rank.h"
#include "tether/reduce/small_dense.h"

namespace tether::project {

// A scaled residual this small is round-off already: a polishing correction cannot improve
// it (64 ulp of the terms that cancel in H_i, whose size the scale s_i measures).
constexpr double kRoundOff = 64 * std::numeric_limits<double>::epsilon();
namespace {

using ConstRowMap = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic,
                                                   Eigen::RowMajor>>;

Eigen::Index Ix(std::size_t i) { return static_cast<Eigen::Index>(i); }

std::string Num(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", x);
  return buffer;
}

// Times print as every message of tether prints them (tether/expr/number_text.h).
std::string TimeText(double t) { return expr::ShortestText(t); }

}  // namespace

void NewtonProjection::Resize(const reduce::ReducedModel& model, const Block& block,
                              const ProjectorOptions& options, reduce::dense::Kernels kernels) {
  block_ = block;
  options_ = options;
  const std::size_t cols = model.ode_size();
  rows_ = model.num_invariants();
  n_ = options.metric == Metric::kMass ? model.mass_size() : 0;
  const std::size_t nb = block.col_end - block.col_begin;
  const std::size_t rb = block.row_end - block.row_begin;
  h_.assign(rows_, 0.0);
  target_.assign(block.col_end - block.col_begin, 0.0);
  inverse_weights_.clear();
  block_atol_.clear();
  if (options.metric == Metric::kWeighted) {
    inverse_weights_.assign(nb, 1.0);
    const std::vector<double>& atol = options.weight_atol;
    for (std::size_t j = block.col_begin; j < block.col_end; ++j) {
      block_atol_.push_back(atol.size() == cols ? atol[j] : atol.front());
    }
  }
  // H_b's entries: H_z's structural non-zeros in the block's rows and columns, in CSR order.
  const reduce::SparseSchur::Pattern& h_z = model.invariant_jacobian_pattern();
  reduce::SparseSchur::Pattern h_b;
  h_b.rows = rb;
  h_b.cols = nb;
  h_b.row_start.push_back(0);
  h_b_source_.clear();
  h_b_target_.clear();
  for (std::size_t i = block.row_begin; i < block.row_end; ++i) {
    for (int p = h_z.row_start[i]; p < h_z.row_start[i + 1]; ++p) {
      const auto j = static_cast<std::size_t>(h_z.col[static_cast<std::size_t>(p)]);
      if (j < block.col_begin || j >= block.col_end) continue;
      h_b.col.push_back(static_cast<int>(j - block.col_begin));
      h_b_source_.push_back(static_cast<std::size_t>(p));
      h_b_target_.push_back((i - block.row_begin) * nb + (j - block.col_begin));
    }
    h_b.row_start.push_back(static_cast<int>(h_b.col.size()));
  }
  sparse_.reset();
  if (model.sparse_linear_algebra()) sparse_.emplace(std::move(h_b));
  // The sparse path's M is diagonal (file comment): its diagonal is all the metric needs.
  mass_.assign(sparse_ ? n_ : n_ * n_, 0.0);
  h_z_.assign(h_z.col.size(), 0.0);  // H_z's structural non-zeros
  const std::size_t dense_rb = sparse_ ? 0 : rb;  // the dense path's arrays
  h_b_.assign(dense_rb * nb, 0.0);
  x_t_.assign(dense_rb * nb, 0.0);
  schur_.assign(dense_rb * dense_rb, 0.0);
  h_b_values_.assign(h_b_source_.size(), 0.0);
  w_inverse_.assign(sparse_ ? nb : 0, 1.0);
  h_b_d_.assign(rb, 0.0);
  schur_d_.assign(rb, 0.0);
  schur_perm_.assign(rb, 0);
  solve_work_.assign(rb, 0.0);
  mass_factor_.Resize(sparse_ ? 0 : n_);
  dense_ = DenseKernelsFor(nb, rb, kernels);
  pivot_threshold_ = reduce::RelativePivotThreshold(nb);
  d_.assign(nb, 0.0);
  polish_from_.assign(nb, 0.0);
  mu_.assign(rb, 0.0);
  scale_.assign(rb, 1.0);
  delta_.assign(nb, 0.0);
}

void NewtonProjection::SetInverseWeights(std::span<const double> inverse_weights) {
  inverse_weights_.assign(inverse_weights.begin(), inverse_weights.end());
}

bool NewtonProjection::Fail(ProjectionStatus status, std::string message,
                            ProjectionReport* report) {
  report->status = status;
  report->message = std::move(message);
  return false;
}

// H and H_z's structural non-zeros into h_, h_z_.
bool NewtonProjection::EvaluateInvariants(reduce::ReducedModel& model, double t,
                                          std::span<const double> z) {
  return model.InvariantValues(t, z, h_, h_z_);
}

// H, H_z at z; the scaled residual over the block's rows; the unscaled residual norms.
bool NewtonProjection::Evaluate(reduce::ReducedModel& model, double t,
                                std::span<const double> z, ProjectionReport* report) {
  if (!EvaluateInvariants(model, t, z)) {
    return Fail(ProjectionStatus::kNonFinite,
                "projection at t = " + TimeText(t) + ": " + model.failure().message, report);
  }
  // Accumulated in locals: the members and the report may alias the values read.
  double residual = 0.0;
  const reduce::SparseSchur::Pattern& pattern = model.invariant_jacobian_pattern();
  for (std::size_t i = block_.row_begin; i < block_.row_end; ++i) {
    double scale = 0.0;
    for (int p = pattern.row_start[i]; p < pattern.row_start[i + 1]; ++p) {
      const auto k = static_cast<std::size_t>(p);
      scale += std::abs(h_z_[k] * z[static_cast<std::size_t>(pattern.col[k])]);
    }
    scale = std::max(1.0, 0.5 * scale);
    scale_[i - block_.row_begin] = scale;
    residual = std::max(residual, std::abs(h_[i]) / scale);
  }
  residual_ = residual;
  const std::size_t m1 = std::min(model.num_position_invariants(), rows_);
  double position = 0.0;
  double velocity = 0.0;
  for (std::size_t i = 0; i < m1; ++i) position = std::max(position, std::abs(h_[i]));
  for (std::size_t i = m1; i < rows_; ++i) velocity = std::max(velocity, std::abs(h_[i]));
  report->residual_position = position;
  report->residual_velocity = velocity;
  report->scaled_residual = residual;
  if (!std::isfinite(residual_)) {
    return Fail(ProjectionStatus::kNonFinite,
                "projection at t = " + TimeText(t) + ": the constraint residual is not finite",
                report);
  }
  return true;
}

// W⁻¹_j = (atol_j + rtol·|x̃_j|)² over the block, divided by the largest (S's pivots then stay
// on the scale of H_b H_bᵀ, and the rank test is relative anyway).
void NewtonProjection::SetErrorWeights() {
  double largest = 0.0;
  for (std::size_t j = 0; j < target_.size(); ++j) {
    const double allowance = block_atol_[j] + options_.weight_rtol * std::abs(target_[j]);
    inverse_weights_[j] = allowance * allowance;
    largest = std::max(largest, inverse_weights_[j]);
  }
  if (!(largest > 0.0) || !std::isfinite(largest)) return;  // non-finite x̃: Evaluate reports it
  for (double& w : inverse_weights_) w /= largest;
}

void NewtonProjection::ApplyInverseMetric() {
  const std::size_t nb = d_.size();
  const std::size_t rb = mu_.size();
  for (std::size_t i = 0; i < rb; ++i) {
    double* row = x_t_.data() + i * nb;
    if (n_ > 0) {
      // Xᵀ row ← M⁻¹ on each n-long chunk (W⁻¹ = diag(M⁻¹, M⁻¹, …) is symmetric).
      for (std::size_t r = 0; r + n_ <= nb; r += n_) mass_factor_.Solve(row + r);
    } else if (!inverse_weights_.empty()) {
      for (std::size_t j = 0; j < nb; ++j) row[j] *= inverse_weights_[j];
    }
  }
}

void NewtonProjection::BuildSchur() {
  if (sparse_) {
    for (std::size_t p = 0; p < h_b_source_.size(); ++p) h_b_values_[p] = h_z_[h_b_source_[p]];
    sparse_->Form(h_b_values_.data(), w_inverse_.data());
    return;
  }
  (this->*dense_.build)();
}

template <std::size_t NB, std::size_t RB>
void NewtonProjection::BuildDenseSchur() {
  const std::size_t nb = reduce::dense::SizeOf<NB>(d_.size());
  const std::size_t rb = reduce::dense::SizeOf<RB>(mu_.size());
  double* h_b = h_b_.data();
  double* x_t = x_t_.data();
  for (std::size_t k = 0; k < rb * nb; ++k) h_b[k] = 0.0;
  for (std::size_t p = 0; p < h_b_source_.size(); ++p) h_b[h_b_target_[p]] = h_z_[h_b_source_[p]];
  for (std::size_t k = 0; k < rb * nb; ++k) x_t[k] = h_b[k];
  ApplyInverseMetric();
  reduce::dense::SymmetricProduct<NB, RB>(h_b, x_t, rb, nb, schur_.data());  // S = H_b X
}

// W⁻¹ = diag(M⁻¹, M⁻¹, …) with M diagonal (the sparse path's models), the weights, or I.
void NewtonProjection::SetSparseInverseMetric() {
  const std::size_t nb = w_inverse_.size();
  if (n_ > 0) {
    for (std::size_t j = 0; j < nb; ++j) w_inverse_[j] = 1.0 / mass_[j % n_];
  } else if (!inverse_weights_.empty()) {
    std::copy(inverse_weights_.begin(), inverse_weights_.end(), w_inverse_.begin());
  }
}

double NewtonProjection::SchurDiagonal(std::size_t i) const {
  return sparse_ ? sparse_->diagonal(i) : schur_[i * mu_.size() + i];
}

void NewtonProjection::MultiplyHb(const double* delta, double* out) const {
  if (sparse_) {
    sparse_->Multiply(h_b_values_.data(), delta, out);
    return;
  }
  const std::size_t nb = d_.size();
  for (std::size_t i = 0; i < mu_.size(); ++i) {
    double sum = 0.0;
    for (std::size_t j = 0; j < nb; ++j) sum += h_b_[i * nb + j] * delta[j];
    out[i] = sum;
  }
}

Eigen::MatrixXd NewtonProjection::DenseHb() const {
  if (sparse_) return sparse_->Dense(h_b_values_.data());
  return Eigen::MatrixXd(ConstRowMap(h_b_.data(), Ix(mu_.size()), Ix(d_.size())));
}

template <std::size_t NB, std::size_t RB>
bool NewtonProjection::FactorDense(double threshold) {
  const std::size_t rb = reduce::dense::SizeOf<RB>(mu_.size());
  reduce::dense::Ldlt<RB>(schur_.data(), rb, schur_d_.data(), schur_perm_.data());
  return !reduce::dense::LdltIsRankDeficient<RB>(schur_d_.data(), rb, threshold);
}

bool NewtonProjection::Factor(reduce::ReducedModel& model, double t,
                              ProjectionReport* report) {
  BuildSchur();
  const bool regular = sparse_ ? sparse_->Factor(pivot_threshold_)
                               : (this->*dense_.factor)(pivot_threshold_);
  if (!regular) {
    std::vector<std::size_t> rows = reduce::DependentRows(DenseHb());
    for (std::size_t& r : rows) r += block_.row_begin;
    return Fail(ProjectionStatus::kSingular,
                "constraint Jacobian is rank-deficient at t = " + TimeText(t) + ": constraints " +
                    reduce::NameList(rows, model.invariant_names()) +
                    " are dependent or have a vanishing gradient (or the fixed values leave "
                    "them no freedom)",
                report);
  }
  return true;
}

void NewtonProjection::FactorRegularized(double nu) {
  const std::size_t rb = mu_.size();
  BuildSchur();
  if (sparse_) {
    for (std::size_t i = 0; i < rb; ++i) sparse_->AddToDiagonal(i, nu * scale_[i] * scale_[i]);
    sparse_->Factor(0.0);  // positive definite: no rank test
    return;
  }
  for (std::size_t i = 0; i < rb; ++i) schur_[i * rb + i] += nu * scale_[i] * scale_[i];
  reduce::dense::Ldlt(schur_.data(), rb, schur_d_.data(), schur_perm_.data());
}

// Newton: δ from S μ = −H_r − H_b d, δ = d + X μ. LM (no target): d = 0.
void NewtonProjection::ComputeStep(std::span<const double> z, bool toward_target) {
  if (!sparse_) {
    (this->*dense_.step)(z, toward_target);
    return;
  }
  const std::size_t nb = d_.size();
  const std::size_t rb = mu_.size();
  const std::size_t c0 = block_.col_begin;
  for (std::size_t j = 0; j < nb; ++j) d_[j] = toward_target ? target_[j] - z[c0 + j] : 0.0;
  MultiplyHb(d_.data(), h_b_d_.data());
  for (std::size_t i = 0; i < rb; ++i) mu_[i] = -h_[block_.row_begin + i] - h_b_d_[i];
  sparse_->Solve(mu_.data());
  std::copy(d_.begin(), d_.end(), delta_.begin());
  sparse_->AddX(mu_.data(), delta_.data());
}

template <std::size_t NB, std::size_t RB>
void NewtonProjection::DenseStep(std::span<const double> z, bool toward_target) {
  const std::size_t nb = reduce::dense::SizeOf<NB>(d_.size());
  const std::size_t rb = reduce::dense::SizeOf<RB>(mu_.size());
  const double* zb = z.data() + block_.col_begin;
  const double* h = h_.data() + block_.row_begin;
  double* d = d_.data();
  double* mu = mu_.data();
  for (std::size_t j = 0; j < nb; ++j) d[j] = toward_target ? target_[j] - zb[j] : 0.0;
  for (std::size_t i = 0; i < rb; ++i) {
    double rhs = -h[i];
    for (std::size_t j = 0; j < nb; ++j) rhs -= h_b_[i * nb + j] * d[j];
    mu[i] = rhs;
  }
  reduce::dense::LdltSolve<RB>(schur_.data(), schur_d_.data(), schur_perm_.data(), rb, mu,
                               solve_work_.data());
  for (std::size_t j = 0; j < nb; ++j) {
    double delta = d[j];
    for (std::size_t i = 0; i < rb; ++i) delta += x_t_[i * nb + j] * mu[i];
    delta_[j] = delta;
  }
}

namespace {

constexpr std::size_t kNb = NewtonProjection::kMaxFixedColumns;
constexpr std::size_t kRb = NewtonProjection::kMaxFixedRows;

}  // namespace

NewtonProjection::DenseKernels NewtonProjection::DenseKernelsFor(
    std::size_t nb, std::size_t rb, reduce::dense::Kernels kernels) {
  // table[rb - 1][nb - 1] = the kernels for <nb, rb>.
  static constexpr auto table = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<DenseKernels, sizeof...(I)>{
        DenseKernels{&NewtonProjection::BuildDenseSchur<I % kNb + 1, I / kNb + 1>,
                     &NewtonProjection::FactorDense<I % kNb + 1, I / kNb + 1>,
                     &NewtonProjection::DenseStep<I % kNb + 1, I / kNb + 1>}...};
  }(std::make_index_sequence<kNb * kRb>{});
  if (kernels == reduce::dense::Kernels::kGeneral || nb == 0 || rb == 0 || nb > kNb ||
      rb > kRb) {
    return {&NewtonProjection::BuildDenseSchur<0, 0>, &NewtonProjection::FactorDense<0, 0>,
            &NewtonProjection::DenseStep<0, 0>};
  }
  return table[(rb - 1) * kNb + (nb - 1)];
}

// z_b ← z_b + δ.
void NewtonProjection::Correct(std::span<double> z) {
  ComputeStep(z, true);
  for (std::size_t j = 0; j < delta_.size(); ++j) z[block_.col_begin + j] += delta_[j];
}

// x̃_b, the error weights and M at x̃: what every iteration of one projection shares.
bool NewtonProjection::Prepare(reduce::ReducedModel& model, double t, std::span<const double> z,
                               ProjectionReport* report) {
  const std::size_t c0 = block_.col_begin;
  reduce::dense::CopyScalars(z.subspan(c0, target_.size()), target_.data());  // x̃_b
  if (options_.metric == Metric::kWeighted) SetErrorWeights();
  if (n_ > 0) {
    if (!(sparse_ ? model.MassDiagonal(t, z, mass_) : model.Mass(t, z, mass_))) {
      return Fail(ProjectionStatus::kNonFinite,
                  "projection at t = " + TimeText(t) + ": " + model.failure().message, report);
    }
    const bool definite = sparse_ ? std::all_of(mass_.begin(), mass_.end(),
                                                [](double m_kk) { return m_kk > 0.0; })
                                  : mass_factor_.Factor(mass_.data());
    if (!definite) {
      return Fail(ProjectionStatus::kSingular,
                  "the mass matrix is not positive definite at t = " + TimeText(t) +
                      "; the mass metric needs it",
                  report);
    }
  }
  if (sparse_) SetSparseInverseMetric();
  return true;
}

bool NewtonProjection::Project(reduce::ReducedModel& model, double t, std::span<double> z,
                               ProjectionReport* report) {
  report->status = ProjectionStatus::kConverged;
  report->iterations = 0;
  report->message.clear();
  if (block_.row_end == block_.row_begin) return Evaluate(model, t, z, report);
  if (!Prepare(model, t, z, report)) return false;
  double previous = 0.0;
  for (int iteration = 0;; ++iteration) {
    if (!Evaluate(model, t, z, report)) return false;
    report->iterations = iteration;
    if (residual_ <= options_.tolerance) {
      if (!options_.polish || residual_ <= kRoundOff) return true;
      return Polish(model, t, z, report);
    }
    const bool grew = iteration > 0 && residual_ > previous;
    if (grew || iteration >= options_.max_iterations) {
      return Fail(ProjectionStatus::kNotConverged,
                  "projection did not converge at t = " + TimeText(t) + " after " +
                      std::to_string(iteration) + " iterations, scaled residual " +
                      Num(residual_) + (grew ? " and growing" : "") +
                      " (tolerance " + Num(options_.tolerance) +
                      "); the step may be too large for this constraint curvature",
                  report);
    }
    previous = residual_;
    if ((iteration == 0 || options_.newton == NewtonVariant::kFull) &&
        !Factor(model, t, report)) {
      return false;
    }
    Correct(z);
  }
}

bool NewtonProjection::Polish(reduce::ReducedModel& model, double t, std::span<double> z,
                              ProjectionReport* report) {
  const auto b0 = static_cast<std::ptrdiff_t>(block_.col_begin);
  const auto b1 = static_cast<std::ptrdiff_t>(block_.col_end);
  std::copy(z.begin() + b0, z.begin() + b1, polish_from_.begin());
  const double met = residual_;
  const int iterations = report->iterations;
  bool better = options_.newton != NewtonVariant::kFull || Factor(model, t, report);
  if (better) {
    Correct(z);
    better = Evaluate(model, t, z, report) && residual_ <= met;
  }
  if (better) {
    report->iterations = iterations + 1;
    return true;
  }
  // A failed factorization or evaluation, or rounding that made it worse: the point that met
  // the tolerance stands, as if the correction had not been tried.
  std::copy(polish_from_.begin(), polish_from_.end(), z.begin() + b0);
  report->status = ProjectionStatus::kConverged;
  report->message.clear();
  report->iterations = iterations;
  return Evaluate(model, t, z, report);
}

bool NewtonProjection::Merit(reduce::ReducedModel& model, double t, std::span<const double> z,
                             std::span<const double> scale, double* merit) {
  if (!EvaluateInvariants(model, t, z)) return false;
  double sum = 0.0;
  for (std::size_t i = 0; i < scale.size(); ++i) {
    const double u = h_[block_.row_begin + i] / scale[i];
    sum += u * u;
  }
  *merit = 0.5 * sum;
  return std::isfinite(*merit);
}

// "x = 0, y = 0": the block's coordinates by name.
std::string NewtonProjection::Describe(const reduce::ReducedModel& model,
                                       std::span<const double> z) const {
  const std::vector<const model::Variable*> states = model.model().states();
  std::string text;
  for (std::size_t j = block_.col_begin; j < block_.col_end; ++j) {
    if (!text.empty()) text += ", ";
    text += (j < states.size() ? states[j]->name : "z[" + std::to_string(j) + "]") + " = " +
            expr::ShortestText(z[j]);
  }
  return text;
}

bool NewtonProjection::ProjectFromAfar(reduce::ReducedModel& model, double t,
                                       std::span<double> z, ProjectionReport* report) {
  report->status = ProjectionStatus::kConverged;
  report->iterations = 0;
  report->message.clear();
  if (block_.row_end == block_.row_begin) return Evaluate(model, t, z, report);
  if (!Prepare(model, t, z, report)) return false;
  const std::size_t nb = d_.size();
  const std::size_t rb = mu_.size();
  const std::size_t c0 = block_.col_begin;
  std::vector<double> base(z.begin(), z.end());
  std::vector<double> scale(rb);
  std::vector<double> h(rb);
  double nu = 0.0;
  ProjectionReport scratch;
  const auto failed = [&](ProjectionStatus status, const std::string& why) {
    return Fail(status,
                "projection did not converge at t = " + TimeText(t) + " after " +
                    std::to_string(report->iterations) + " iterations, scaled residual " +
                    Num(residual_) + " (tolerance " + Num(options_.tolerance) + "): " + why,
                report);
  };
  // z ← z_k + α δ, evaluated; true iff Armijo's condition holds with this slope.
  const auto try_step = [&](double alpha, double merit, double slope) {
    for (std::size_t j = 0; j < nb; ++j) z[c0 + j] = base[c0 + j] + alpha * delta_[j];
    double trial = 0.0;
    return Merit(model, t, z, scale, &trial) && trial <= merit + kArmijo * alpha * slope;
  };
  for (int iteration = 0;; ++iteration) {
    std::copy(base.begin(), base.end(), z.begin());
    if (!Evaluate(model, t, z, report)) return false;
    report->iterations = iteration;
    if (residual_ <= options_.tolerance) return true;
    if (iteration >= options_.max_iterations) {
      return failed(ProjectionStatus::kNotConverged,
                    "the iteration limit " + std::to_string(options_.max_iterations) +
                        " was reached");
    }
    std::copy(scale_.begin(), scale_.end(), scale.begin());
    double merit = 0.0;
    for (std::size_t i = 0; i < rb; ++i) {
      h[i] = h_[block_.row_begin + i];
      merit += 0.5 * (h[i] / scale[i]) * (h[i] / scale[i]);
    }
    bool accepted = false;
    const bool regular = Factor(model, t, &scratch);
    if (regular) {
      ComputeStep(z, false);  // H_b δ = −H: slope −2φ
      for (double alpha = 1.0; alpha >= kMinStep && !accepted; alpha *= 0.5) {
        accepted = try_step(alpha, merit, -2.0 * merit);
      }
      if (!accepted) {
        std::copy(base.begin(), base.end(), z.begin());
        if (!Evaluate(model, t, z, report)) return false;  // H, H_z at z_k again
      }
    }
    if (!accepted) {
      BuildSchur();
      double largest = 0.0;  // max_i S̃_ii
      for (std::size_t i = 0; i < rb; ++i) {
        largest = std::max(largest, SchurDiagonal(i) / (scale[i] * scale[i]));
      }
      nu = std::max(nu, 1e-3 * largest);
      bool stationary = !(largest > 0.0);
      for (int attempt = 0; attempt < kMaxLmTries && !accepted && !stationary; ++attempt) {
        if (attempt > 0) {
          std::copy(base.begin(), base.end(), z.begin());
          if (!Evaluate(model, t, z, report)) return false;
        }
        FactorRegularized(nu);
        ComputeStep(z, false);
        double slope = 0.0;  // (D⁻²H)ᵀ H_b δ
        MultiplyHb(delta_.data(), h_b_d_.data());
        for (std::size_t i = 0; i < rb; ++i) slope += h[i] / (scale[i] * scale[i]) * h_b_d_[i];
        // Rounding bounds how small a genuine slope can be told from zero: ε·φ.
        stationary = !(slope < -std::numeric_limits<double>::epsilon() * merit);
        if (stationary) break;
        accepted = try_step(1.0, merit, slope);
        nu = accepted ? nu / 10.0 : nu * 10.0;
      }
      if (!accepted) {
        std::copy(base.begin(), base.end(), z.begin());
        Evaluate(model, t, z, report);
        if (stationary) {
          std::vector<std::size_t> rows(rb);
          for (std::size_t i = 0; i < rb; ++i) rows[i] = block_.row_begin + i;
          if (!regular) {
            rows = reduce::DependentRows(DenseHb());
            for (std::size_t& r : rows) r += block_.row_begin;
          }
          return failed(ProjectionStatus::kSingular,
                        "the constraint Jacobian is rank-deficient at " + Describe(model, z) +
                            " (constraints " + reduce::NameList(rows, model.invariant_names()) +
                            " are dependent or have a vanishing gradient, or the fixed values "
                            "leave them no freedom) and no step reduces the residual from there");
        }
        return failed(ProjectionStatus::kNotConverged,
                      "the line search could not reduce the residual at " + Describe(model, z) +
                          " (a local minimum of the residual off the manifold)");
      }
    }
    std::copy(z.begin(), z.end(), base.begin());
  }
}

}  // namespace tether::project
