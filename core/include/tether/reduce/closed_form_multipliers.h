// The multipliers of the mechanical stage kernel (reduced_model.h, StageKernel::kMultipliers)
// in closed form, for one or two constraints and a structurally diagonal mass matrix
// M = diag(d) (a pendulum, a bead on a wire, a particle on a surface, a double pendulum, a
// point on a curve in space): with x_a = M⁻¹ Φ_aᵀ (Φ_a row a of Φ_q) and w = M⁻¹ f,
//   S_ab = Φ_a x_b = Σ_k Φ_ak Φ_bk / d_k,   r_a = −(a_a + 2α h_a + β² Φ_a) − Φ_a w,
//   S λ = r,   v' = w + Σ_a λ_a x_a,
// compiled with the rest of the stage into one program over [states, t, parameters, α, β], so
// that a stage is one call of machine code, as a hand-written right-hand side is; its arrays
// are split (expr::Split) so that it reads the states where the stepper keeps them and writes
// z' = (q', v') where the stepper wants it, with nothing copied in between. One
// constraint: λ = r/s. Two: Cramer's rule, det = S_11 S_22 − S_12², λ_1 = (S_22 r_1 −
// S_12 r_2)/det, λ_2 = (S_11 r_2 − S_12 r_1)/det, which is forward stable for 2 × 2 systems
// (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., §1.10.1).
//
// The program's outputs (its "closed-form layout"): z' = [q' = v (n), v' (n)], then its tail
// [λ (m), S (m = 1: s; m = 2: S_11, S_22, det), d (n)]. A stage holds when v' and the tail are
// finite, every d_k > 0, and S passes
// DenseMultipliers' rank test (rank.h: no LDLᵀ pivot at or below RelativePivotThreshold(n) of
// the largest) with a margin: one constraint, s ≠ 0 (a finite s ≠ 0 passes it); two, the
// pivots small_dense.h's Ldlt would take (the larger diagonal entry D_1, then det/D_1) above
// 2 × the threshold. DenseMultipliers forms S from M's Cholesky factor instead of the
// quotients here and factors it itself, so its pivots differ from these by a few ε of the
// largest; the margin, one more threshold (1000·n·ε of the largest pivot), covers that many
// times over, so every S accepted here is one DenseMultipliers would accept too. Otherwise the
// caller evaluates the dense layout and solves it by DenseMultipliers, which decides and names
// the cause (a non-finite value, an indefinite M, dependent constraints) exactly as it always
// does: a non-finite input reaches an output (0·∞ is NaN), d is checked itself because d_k = ∞
// would make w_k and x_k 0. Results equal DenseMultipliers' to rounding.
#pragma once

#include <cstddef>
#include <vector>

#include "tether/expr/expr.h"
#include "tether/expr/program.h"

namespace tether::reduce {

class ClosedFormMultipliers {
 public:
  static constexpr std::size_t kMaxConstraints = 2;

  // Whether the closed form applies: 1 ≤ m ≤ kMaxConstraints and an M whose off-diagonal
  // entries are all the constant 0.
  static bool Applies(const expr::Context& cx, const std::vector<expr::Expr>& mass, std::size_t n,
                      std::size_t m);

  ClosedFormMultipliers() = default;
  ClosedFormMultipliers(std::size_t n, std::size_t m);

  // The stage outputs in the closed-form layout, from the velocity symbols v, the dense
  // symbolic M (row-major n × n), f, Φ_q's m rows, a, Φ, h (m each) and the symbols α, β.
  static std::vector<expr::Expr> StageOutputs(expr::Context& cx,
                                              const std::vector<expr::Expr>& v,
                                              const std::vector<expr::Expr>& mass,
                                              const std::vector<expr::Expr>& forces,
                                              const std::vector<std::vector<expr::Expr>>& phi_q,
                                              const std::vector<expr::Expr>& a,
                                              const std::vector<expr::Expr>& phi,
                                              const std::vector<expr::Expr>& h, expr::Expr alpha,
                                              expr::Expr beta);

  // The program's split: the states (q, v) in one array, [t, parameters, α, β] in another;
  // z' in one array, the tail in another.
  [[nodiscard]] expr::Split split() const { return {.inputs = 2 * n_, .outputs = 2 * n_}; }
  // The tail's size; λ's m values start it.
  [[nodiscard]] std::size_t tail_size() const { return n_ + m_ + SchurEntries(m_); }
  // True when the stage's v' (n values) and tail hold (file comment).
  [[nodiscard]] bool Holds(const double* vdot, const double* tail) const;

 private:
  // S's entries in the layout (one constraint: s; two: S_11, S_22, det).
  static constexpr std::size_t SchurEntries(std::size_t m) { return m * (m + 1) / 2; }
  [[nodiscard]] bool SchurIsRegular(const double* s) const;

  std::size_t n_ = 0;
  std::size_t m_ = 0;
  double pivot_threshold_ = 0.0;  // RelativePivotThreshold(n)
};

}  // namespace tether::reduce
