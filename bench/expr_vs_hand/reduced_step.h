// The same RK4 + coupled-projection step as HandPendulum, but with every model quantity from
// tether's compiled programs through reduce::ReducedModel (Rhs: one program evaluation plus
// the Schur solve for λ; Invariants: H and H_z), and the KKT solve in Eigen. The algorithm is
// line for line that of HandPendulum, so the ratio of their times is the price of generality.
#pragma once

#include <span>

#include <Eigen/Dense>

#include "tether/reduce/reduced_model.h"

namespace tether::bench {

class ReducedStep {
 public:
  // Keeps a reference to `reduced`, which must outlive this object.
  explicit ReducedStep(reduce::ReducedModel& reduced, double tolerance = 1e-12,
                       int max_iterations = 10);

  // One RK4 step of size h then the projection; the Newton iterations used, −1 on failure.
  int Step(double h, std::span<double> z);
  // The RK4 step alone; false when an evaluation fails.
  bool Advance(double h, std::span<double> z);
  int Project(std::span<double> z);

 private:
  reduce::ReducedModel& reduced_;
  double tolerance_;
  int max_iterations_;
  Eigen::VectorXd k1_, k2_, k3_, k4_, stage_, target_, gap_, h_, mu_;
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> h_z_;
  Eigen::MatrixXd schur_;
  Eigen::LDLT<Eigen::MatrixXd> ldlt_;
};

}  // namespace tether::bench
