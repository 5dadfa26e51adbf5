#include "expr_vs_hand/reduced_step.h"

namespace tether::bench {

ReducedStep::ReducedStep(reduce::ReducedModel& reduced, double tolerance, int max_iterations)
    : reduced_(reduced), tolerance_(tolerance), max_iterations_(max_iterations) {
  const auto n = static_cast<Eigen::Index>(reduced.ode_size());
  const auto m = static_cast<Eigen::Index>(reduced.num_invariants());
  for (Eigen::VectorXd* v : {&k1_, &k2_, &k3_, &k4_, &stage_, &target_, &gap_}) v->resize(n);
  h_.resize(m);
  mu_.resize(m);
  h_z_.resize(m, n);
  schur_.resize(m, m);
  ldlt_ = Eigen::LDLT<Eigen::MatrixXd>(m);
}

int ReducedStep::Project(std::span<double> z_span) {
  Eigen::Map<Eigen::VectorXd> z(z_span.data(), static_cast<Eigen::Index>(z_span.size()));
  target_ = z;
  for (int iteration = 0; iteration <= max_iterations_; ++iteration) {
    if (!reduced_.Invariants(0.0, z_span, {h_.data(), static_cast<std::size_t>(h_.size())},
                             {h_z_.data(), static_cast<std::size_t>(h_z_.size())})) {
      return -1;
    }
    if (h_.lpNorm<Eigen::Infinity>() <= tolerance_) return iteration;
    if (iteration == max_iterations_) break;
    gap_ = target_ - z;
    schur_.noalias() = h_z_ * h_z_.transpose();
    ldlt_.compute(schur_);
    mu_.noalias() = -h_;
    mu_.noalias() -= h_z_ * gap_;
    mu_ = ldlt_.solve(mu_);
    z = target_;
    z.noalias() += h_z_.transpose() * mu_;  // z ← z + δz = z̃ + H_zᵀ μ
  }
  return -1;
}

int ReducedStep::Step(double h, std::span<double> z_span) {
  return Advance(h, z_span) ? Project(z_span) : -1;
}

bool ReducedStep::Advance(double h, std::span<double> z_span) {
  Eigen::Map<Eigen::VectorXd> z(z_span.data(), static_cast<Eigen::Index>(z_span.size()));
  const std::size_t n = z_span.size();
  auto rhs = [&](const Eigen::VectorXd& at, Eigen::VectorXd& out) {
    return reduced_.Rhs(0.0, {at.data(), n}, {out.data(), n});
  };
  stage_ = z;
  if (!rhs(stage_, k1_)) return false;
  stage_ = z + (0.5 * h) * k1_;
  if (!rhs(stage_, k2_)) return false;
  stage_ = z + (0.5 * h) * k2_;
  if (!rhs(stage_, k3_)) return false;
  stage_ = z + h * k3_;
  if (!rhs(stage_, k4_)) return false;
  z += (h / 6.0) * (k1_ + 2.0 * k2_ + 2.0 * k3_ + k4_);
  return true;
}

}  // namespace tether::bench
