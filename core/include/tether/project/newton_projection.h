// The Newton kernel every projecting method (and consistent initialization) uses: project a
// block of z onto a block of the invariants,
//     min ½ ‖z_b − x̃_b‖²_W   s.t.   H_r(z) = 0,   z outside the block held fixed,
// where b = [col_begin, col_end) and r = [row_begin, row_end). Newton on the KKT system
//     [W  −H_bᵀ; −H_b  0] [δ; μ] = [W(x̃_b − z_b); H_r(z)],   H_b = ∂H_r/∂z_b,
// eliminated through the Schur complement (W cancels on the first block):
//     d = x̃_b − z_b,   X = W⁻¹ H_bᵀ,   S = H_b X,
//     S μ = −H_r − H_b d,   δ = d + X μ,   z_b ← z_b + δ.
// S is factored by pivoted LDLT and checked for rank deficiency (tether/reduce/rank.h): a
// dependent set of constraints is reported by name, never divided through.
//
// W⁻¹ is diagonal (Euclidean, optionally with a per-entry weight: 0 holds an entry fixed,
// the limit of an infinite weight, used for the "fixed" initial values; or the error weights
// (atol_j + rtol·|x̃_j|)², scaled so that the largest is 1, which leaves δ unchanged), or
// block-diagonal with M⁻¹ on each n-long chunk of the block (mass metric, M at x̃).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include <Eigen/Dense>

#include "tether/project/projector.h"
#include "tether/reduce/mass_factor.h"
#include "tether/reduce/reduced_model.h"

namespace tether::project {

struct Block {
  std::size_t col_begin = 0;
  std::size_t col_end = 0;
  std::size_t row_begin = 0;
  std::size_t row_end = 0;
};

class NewtonProjection {
 public:
  // Allocates for `model` and this block; Project then does not allocate (except for the
  // message on failure).
  void Resize(const reduce::ReducedModel& model, const Block& block,
              const ProjectorOptions& options);
  // Optional W⁻¹ diagonal over the block (Euclidean only), empty for W = I.
  void SetInverseWeights(std::span<const double> inverse_weights);

  bool Project(reduce::ReducedModel& model, double t, std::span<double> z,
               ProjectionReport* report);

 private:
  bool Evaluate(reduce::ReducedModel& model, double t, std::span<const double> z,
                ProjectionReport* report);
  bool Factor(reduce::ReducedModel& model, double t, ProjectionReport* report);
  void SetErrorWeights();
  void ApplyInverseMetric();
  void Correct(std::span<double> z);
  bool Fail(ProjectionStatus status, std::string message, ProjectionReport* report);

  Block block_;
  ProjectorOptions options_;
  std::size_t n_ = 0;     // mass-matrix size (0: no mass metric)
  std::size_t cols_ = 0;  // N
  std::size_t rows_ = 0;  // all invariants
  std::vector<double> h_;
  std::vector<double> h_z_;
  std::vector<double> target_;
  std::vector<double> mass_;
  std::vector<double> inverse_weights_;
  std::vector<double> block_atol_;     // kWeighted: atol_j over the block
  // Row-major work arrays for the unblocked kernels of tether/reduce/small_dense.h.
  std::vector<double> h_b_;            // H_b at the last factorization, rb × nb
  std::vector<double> x_t_;            // Xᵀ = H_b W⁻¹, rb × nb
  std::vector<double> schur_;          // S and its LDLᵀ, rb × rb
  std::vector<double> schur_d_;        // D, rb
  std::vector<std::size_t> schur_perm_;
  std::vector<double> solve_work_;     // rb
  reduce::MassFactor mass_factor_;     // M at x̃, refactored only when it changes
  std::vector<double> d_;              // nb
  std::vector<double> mu_;             // right-hand side, then μ, rb
  double residual_ = 0.0;
};

}  // namespace tether::project
