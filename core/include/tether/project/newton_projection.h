// The Newton kernel every projecting method (and consistent initialization) uses: project a
// block of z onto a block of the invariants,
//     min ½ ‖z_b − x̃_b‖²_W   s.t.   H_r(z) = 0,   z outside the block held fixed,
// where b = [col_begin, col_end) and r = [row_begin, row_end). Newton on the KKT system
//     [W  −H_bᵀ; −H_b  0] [δ; μ] = [W(x̃_b − z_b); H_r(z)],   H_b = ∂H_r/∂z_b,
// eliminated through the Schur complement (W cancels on the first block):
//     d = x̃_b − z_b,   X = W⁻¹ H_bᵀ,   S = H_b X,
//     S μ = −H_r − H_b d,   δ = d + X μ,   z_b ← z_b + δ.
// S is factored by pivoted LDLT and checked for rank deficiency (tether/reduce/rank.h): a
// dependent set of constraints is reported by name, never divided through. Where the model's
// linear algebra is sparse (ReducedModel::sparse_linear_algebra(): M is diagonal, or there is
// no mass metric, so W⁻¹ is diagonal for every metric) H_b, X and S keep only H_z's
// structural non-zeros and S is
// factored by reduce::SparseSchur, with the same rank test: the work per iteration then grows
// with the non-zeros rather than as rb²·nb.
//
// W⁻¹ is diagonal (Euclidean, optionally with a per-entry weight: 0 holds an entry fixed,
// the limit of an infinite weight, used for the "fixed" initial values; or the error weights
// (atol_j + rtol·|x̃_j|)², scaled so that the largest is 1, which leaves δ unchanged), or
// block-diagonal with M⁻¹ on each n-long chunk of the block (mass metric, M at x̃).
//
// Project is the fast local Newton every step uses: it fails as soon as the scaled residual
// grows, which a step's small correction never does inside Newton's region of convergence.
//
// ProjectFromAfar is the globalized Newton of consistent (re-)initialization, used where
// Project failed: the start may be anywhere (a rod length updated from 0.01 to 10 puts the bob
// 10 m off its circle). It looks for a point on the manifold, not for the closest one: the
// iteration above omits the constraints' curvature μ·H_zz from the KKT matrix, which makes the
// closest point a repelling fixed point once the distance times the curvature exceeds 1 (the
// pendulum projected from radius 2.5 onto radius 0.01 drifts along the circle by 0.1 % per
// iteration). Its steps are minimum-norm corrections (d = 0: δ = X μ, the least ‖δ‖_W with
// H + H_b δ = 0), which from a near start end O(distance² · curvature) from the closest point,
// and along the normal exactly on it for a sphere. Each iteration k decreases the merit
// function, the scaled residual's half square with the scales s_i frozen at the iterate z_k
// (they would otherwise move under the line search):
//     φ_k(z) = ½ Σ_i (H_i(z) / s_i(z_k))²,   i over the block's rows,   D = diag(s_i(z_k)).
//   Newton step (S regular by the rank test of tether/reduce/rank.h): S μ = −H, δ = X μ, so
//     H_b δ = −H and the slope along δ is φ_k'(0) = (D⁻²H)ᵀ H_b δ = −2 φ_k(z_k): always a
//     descent direction. Backtracking α = 1, ½, ¼, … ≥ kMinStep accepts the first α with
//     Armijo's sufficient decrease  φ_k(z_k + αδ) ≤ (1 − 2 c α) φ_k(z_k),  c = kArmijo
//     (Nocedal & Wright, Numerical Optimization, §3.1: c small, so that any step that achieves
//     a fraction of the decrease the linear model promises is taken). A trial point where H is
//     not finite counts as no decrease.
//   Levenberg–Marquardt step, where S is rank-deficient (the constraint gradients are
//     dependent or vanish at z_k) or the Newton direction found no α:
//     (S + ν D²) μ = −H,   δ = X μ.
//     With u = D⁻¹H and S̃ = D⁻¹ S D⁻¹ the slope is −uᵀ S̃ (S̃ + νI)⁻¹ u ≤ 0, zero only where
//     the merit's gradient H_bᵀ D⁻² H vanishes: a descent direction for every ν > 0, turning
//     from Gauss–Newton (ν → 0) to a short steepest-descent step (ν → ∞). The step is taken
//     iff  φ_k(z_k + δ) ≤ φ_k(z_k) + c · slope. ν is multiplied by 10 after each refusal and
//     divided by 10 after each accepted step (Marquardt's update), and never starts an
//     iteration below 10⁻³ max_i S̃_ii (S̃ has unit-scale rows: ν is relative to the largest
//     curvature); after kMaxLmTries refusals no step reduces φ.
// It fails with a reason: the iteration limit (ProjectorOptions::max_iterations accepted
// steps) with the residual reached; "the line search could not reduce the residual" (a local
// minimum of φ off the manifold); or "the constraint Jacobian is rank-deficient at <z>" where
// the merit's gradient vanishes (LM cannot move either), with the constraints and values named.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include <Eigen/Dense>

#include "tether/project/projector.h"
#include "tether/reduce/mass_factor.h"
#include "tether/reduce/reduced_model.h"
#include "tether/reduce/small_dense.h"
#include "tether/reduce/sparse_schur.h"

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
  // message on failure). Dense blocks up to kMaxFixedColumns × kMaxFixedRows run kernels
  // compiled for their sizes unless `kernels` says general.
  void Resize(const reduce::ReducedModel& model, const Block& block,
              const ProjectorOptions& options,
              reduce::dense::Kernels kernels = reduce::dense::Kernels::kFixedSizeWhereSmall);
  // True when the Schur complement is sparse (file comment).
  [[nodiscard]] bool sparse() const { return sparse_.has_value(); }
  // Optional W⁻¹ diagonal over the block (Euclidean only), empty for W = I.
  void SetInverseWeights(std::span<const double> inverse_weights);

  bool Project(reduce::ReducedModel& model, double t, std::span<double> z,
               ProjectionReport* report);
  // The globalized Newton above (allocates: initialization only). Same contract as Project;
  // `report->iterations` counts accepted steps.
  bool ProjectFromAfar(reduce::ReducedModel& model, double t, std::span<double> z,
                       ProjectionReport* report);

  // Armijo's sufficient-decrease constant c.
  static constexpr double kArmijo = 1e-4;
  // Shortest Newton step fraction tried: below 2⁻²⁰ ≈ 10⁻⁶ of Newton's step the iteration
  // makes no headway within any iteration limit, and LM (which shortens the step along a
  // better direction) takes over.
  static constexpr double kMinStep = 0x1p-20;
  // ν ← 10ν at most this many times per iteration: ν then exceeds S̃'s largest diagonal by
  // 10¹⁷ from its start at 10⁻³ of it, a steepest-descent step shorter than rounding of z.
  static constexpr int kMaxLmTries = 20;
  // Dense blocks up to this size run kernels compiled for their sizes (unrolled loops, the
  // same operations in the same order as the general ones, so bitwise the same results): a
  // pendulum's coupled block is 4 × 2.
  static constexpr std::size_t kMaxFixedColumns = 8;
  static constexpr std::size_t kMaxFixedRows = 4;

 private:
  bool Evaluate(reduce::ReducedModel& model, double t, std::span<const double> z,
                ProjectionReport* report);
  bool EvaluateInvariants(reduce::ReducedModel& model, double t, std::span<const double> z);
  bool Factor(reduce::ReducedModel& model, double t, ProjectionReport* report);
  // The one more correction of ProjectorOptions::polish, from a point that met the tolerance.
  bool Polish(reduce::ReducedModel& model, double t, std::span<double> z,
              ProjectionReport* report);
  // H_b, X and S = H_b X from H_z.
  void BuildSchur();
  // The dense path's kernels with nb = NB and rb = RB fixed at compile time (0: run time):
  // H_b, X, S; S's LDLᵀ and rank test; the Newton or LM step δ.
  template <std::size_t NB, std::size_t RB>
  void BuildDenseSchur();
  template <std::size_t NB, std::size_t RB>
  bool FactorDense(double threshold);
  template <std::size_t NB, std::size_t RB>
  void DenseStep(std::span<const double> z, bool toward_target);
  struct DenseKernels {
    void (NewtonProjection::*build)();
    bool (NewtonProjection::*factor)(double threshold);
    void (NewtonProjection::*step)(std::span<const double> z, bool toward_target);
  };
  static DenseKernels DenseKernelsFor(std::size_t nb, std::size_t rb,
                                      reduce::dense::Kernels kernels);
  // The sparse path's W⁻¹ over the block (w_inverse_), once per projection by Prepare.
  void SetSparseInverseMetric();
  // S_ii after BuildSchur, H_b δ, and H_b as a dense matrix (failure messages).
  [[nodiscard]] double SchurDiagonal(std::size_t i) const;
  void MultiplyHb(const double* delta, double* out) const;
  [[nodiscard]] Eigen::MatrixXd DenseHb() const;
  // S + ν D² over the block's rows (ν > 0: positive definite, no rank test).
  void FactorRegularized(double nu);
  bool Prepare(reduce::ReducedModel& model, double t, std::span<const double> z,
               ProjectionReport* report);
  // δ into delta_: the Newton projection step (toward_target) or the LM step X μ.
  void ComputeStep(std::span<const double> z, bool toward_target);
  // φ_k at z with the frozen scales; false where H is not finite.
  bool Merit(reduce::ReducedModel& model, double t, std::span<const double> z,
             std::span<const double> scale, double* merit);
  std::string Describe(const reduce::ReducedModel& model, std::span<const double> z) const;
  void SetErrorWeights();
  void ApplyInverseMetric();
  void Correct(std::span<double> z);
  bool Fail(ProjectionStatus status, std::string message, ProjectionReport* report);

  Block block_;
  ProjectorOptions options_;
  std::size_t n_ = 0;     // mass-matrix size (0: no mass metric)
  std::size_t rows_ = 0;  // all invariants
  std::vector<double> h_;
  std::vector<double> h_z_;  // H_z's structural non-zeros (ReducedModel::InvariantValues)
  std::vector<double> target_;
  std::vector<double> mass_;           // M at x̃, n × n; on the sparse path its diagonal, n
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
  std::vector<double> polish_from_;    // z_b before the polishing correction, nb
  std::vector<double> d_;              // nb
  std::vector<double> mu_;             // right-hand side, then μ, rb
  std::vector<double> scale_;          // s_i over the block's rows at the last Evaluate
  std::vector<double> delta_;          // δ, nb
  double residual_ = 0.0;
  double pivot_threshold_ = 0.0;       // RelativePivotThreshold(nb)
  DenseKernels dense_{};
  // H_b's structural non-zeros: where each is in h_z_, and (dense path) in the row-major h_b_.
  std::vector<std::size_t> h_b_source_;
  std::vector<std::size_t> h_b_target_;
  // The sparse path (file comment): S, and H_b's non-zeros gathered from h_z_.
  std::optional<reduce::SparseSchur> sparse_;
  std::vector<double> h_b_values_;       // H_b's non-zeros at the last BuildSchur
  std::vector<double> w_inverse_;        // W⁻¹'s diagonal over the block, nb
  std::vector<double> h_b_d_;            // H_b d, rb
};

}  // namespace tether::project
