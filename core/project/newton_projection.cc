#include "tether/project/newton_projection.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "tether/reduce/rank.h"

namespace tether::project {
namespace {

using ConstRowMap = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic,
                                                   Eigen::RowMajor>>;

Eigen::Index Ix(std::size_t i) { return static_cast<Eigen::Index>(i); }

std::string Num(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", x);
  return buffer;
}

}  // namespace

void NewtonProjection::Resize(const reduce::ReducedModel& model, const Block& block,
                              const ProjectorOptions& options) {
  block_ = block;
  options_ = options;
  cols_ = model.ode_size();
  rows_ = model.num_invariants();
  n_ = options.metric == Metric::kMass ? model.mass_size() : 0;
  const Eigen::Index nb = Ix(block.col_end - block.col_begin);
  const Eigen::Index rb = Ix(block.row_end - block.row_begin);
  h_.assign(rows_, 0.0);
  h_z_.assign(rows_ * cols_, 0.0);
  target_.assign(block.col_end - block.col_begin, 0.0);
  mass_.assign(n_ * n_, 0.0);
  inverse_weights_.clear();
  h_b_.setZero(rb, nb);
  x_.setZero(nb, rb);
  schur_.setZero(rb, rb);
  ldlt_ = Eigen::LDLT<Eigen::MatrixXd>(rb);
  mass_matrix_.setZero(Ix(n_), Ix(n_));
  mass_llt_ = Eigen::LLT<Eigen::MatrixXd>(Ix(n_));
  d_.setZero(nb);
  rhs_.setZero(rb);
  mu_.setZero(rb);
  delta_.setZero(nb);
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

// H, H_z at z; the scaled residual over the block's rows; the unscaled residual norms.
bool NewtonProjection::Evaluate(reduce::ReducedModel& model, double t,
                                std::span<const double> z, ProjectionReport* report) {
  if (!model.Invariants(t, z, h_, h_z_)) {
    return Fail(ProjectionStatus::kNonFinite,
                "projection at t = " + Num(t) + ": " + model.failure().message, report);
  }
  residual_ = 0.0;
  for (std::size_t i = block_.row_begin; i < block_.row_end; ++i) {
    double scale = 0.0;
    const double* row = h_z_.data() + i * cols_;
    for (std::size_t j = 0; j < cols_; ++j) scale += std::abs(row[j] * z[j]);
    residual_ = std::max(residual_, std::abs(h_[i]) / std::max(1.0, 0.5 * scale));
  }
  const std::size_t m1 = model.num_position_invariants();
  report->residual_position = 0.0;
  report->residual_velocity = 0.0;
  for (std::size_t i = 0; i < rows_; ++i) {
    double& norm = i < m1 ? report->residual_position : report->residual_velocity;
    norm = std::max(norm, std::abs(h_[i]));
  }
  report->scaled_residual = residual_;
  if (!std::isfinite(residual_)) {
    return Fail(ProjectionStatus::kNonFinite,
                "projection at t = " + Num(t) + ": the constraint residual is not finite",
                report);
  }
  return true;
}

void NewtonProjection::ApplyInverseMetric() {
  if (n_ > 0) {
    // X ← diag(M⁻¹, M⁻¹, …) X on each n-row chunk of the block.
    for (Eigen::Index r = 0; r + Ix(n_) <= x_.rows(); r += Ix(n_)) {
      auto chunk = x_.middleRows(r, Ix(n_));
      mass_llt_.solveInPlace(chunk);
    }
  } else if (!inverse_weights_.empty()) {
    for (Eigen::Index r = 0; r < x_.rows(); ++r) x_.row(r) *= inverse_weights_[static_cast<std::size_t>(r)];
  }
}

bool NewtonProjection::Factor(reduce::ReducedModel& model, double t,
                              ProjectionReport* report) {
  const ConstRowMap h_z(h_z_.data(), Ix(rows_), Ix(cols_));
  h_b_ = h_z.block(Ix(block_.row_begin), Ix(block_.col_begin), h_b_.rows(), h_b_.cols());
  x_.noalias() = h_b_.transpose();
  ApplyInverseMetric();
  schur_.noalias() = h_b_ * x_;
  ldlt_.compute(schur_);
  if (reduce::LdltIsRankDeficient(ldlt_, reduce::RelativePivotThreshold(
                                             static_cast<std::size_t>(h_b_.cols())))) {
    std::vector<std::size_t> rows = reduce::DependentRows(h_b_);
    for (std::size_t& r : rows) r += block_.row_begin;
    return Fail(ProjectionStatus::kSingular,
                "constraint Jacobian is rank-deficient at t = " + Num(t) + ": constraints " +
                    reduce::NameList(rows, model.invariant_names()) +
                    " are dependent or have a vanishing gradient (or the fixed values leave "
                    "them no freedom)",
                report);
  }
  return true;
}

bool NewtonProjection::Project(reduce::ReducedModel& model, double t, std::span<double> z,
                               ProjectionReport* report) {
  report->status = ProjectionStatus::kConverged;
  report->iterations = 0;
  report->message.clear();
  if (block_.row_end == block_.row_begin) return Evaluate(model, t, z, report);
  const std::size_t c0 = block_.col_begin;
  std::copy(z.begin() + Ix(c0), z.begin() + Ix(block_.col_end), target_.begin());  // x̃_b
  if (n_ > 0) {
    if (!model.Mass(t, z, mass_)) {
      return Fail(ProjectionStatus::kNonFinite,
                  "projection at t = " + Num(t) + ": " + model.failure().message, report);
    }
    mass_matrix_ = ConstRowMap(mass_.data(), Ix(n_), Ix(n_));
    mass_llt_.compute(mass_matrix_);
    if (mass_llt_.info() != Eigen::Success) {
      return Fail(ProjectionStatus::kSingular,
                  "the mass matrix is not positive definite at t = " + Num(t) +
                      "; the mass metric needs it",
                  report);
    }
  }
  double previous = 0.0;
  for (int iteration = 0;; ++iteration) {
    if (!Evaluate(model, t, z, report)) return false;
    report->iterations = iteration;
    if (residual_ <= options_.tolerance) return true;
    const bool grew = iteration > 0 && residual_ > previous;
    if (grew || iteration >= options_.max_iterations) {
      return Fail(ProjectionStatus::kNotConverged,
                  "projection did not converge at t = " + Num(t) + " after " +
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
    for (Eigen::Index j = 0; j < d_.size(); ++j) {
      d_(j) = target_[static_cast<std::size_t>(j)] - z[c0 + static_cast<std::size_t>(j)];
    }
    for (Eigen::Index i = 0; i < rhs_.size(); ++i) {
      rhs_(i) = -h_[block_.row_begin + static_cast<std::size_t>(i)];
    }
    rhs_.noalias() -= h_b_ * d_;  // S μ = −H_r − H_b d
    mu_ = ldlt_.solve(rhs_);
    delta_ = d_;
    delta_.noalias() += x_ * mu_;  // δ = d + W⁻¹ H_bᵀ μ
    for (Eigen::Index j = 0; j < delta_.size(); ++j) {
      z[c0 + static_cast<std::size_t>(j)] += delta_(j);  // z_b ← z_b + δ
    }
  }
}

}  // namespace tether::project
