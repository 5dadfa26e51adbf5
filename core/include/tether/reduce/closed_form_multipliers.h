// The multiplier of the mechanical stage kernel (reduced_model.h, StageKernel::kMultipliers) in
// closed form, for one constraint and a structurally diagonal mass matrix M = diag(d) (a
// pendulum, a bead on a wire, a particle on a surface): with x = M⁻¹ Φ_qᵀ and w = M⁻¹ f,
//   s = Φ_q x = Σ_k Φ_k² / d_k,   λ = (−(a + 2αh + β²Φ) − Φ_q w) / s,   v' = w + λ x,
// compiled with the rest of the stage into one program over [states, t, parameters, α, β], so
// that a stage is one call of machine code, as a hand-written right-hand side is.
//
// The program's outputs (its "closed-form layout"): [v' (n), λ, s, d (n)]. A stage holds when
// all of them are finite, s ≠ 0 and every d_k > 0: then S = s is not rank-deficient by the test
// of DenseMultipliers (a finite s ≠ 0 passes it) and M is positive definite. Otherwise the
// caller evaluates the dense layout and solves it by DenseMultipliers, which names the cause
// (a non-finite value, an indefinite M, a vanishing Φ_q) exactly as it always does: a non-finite
// input reaches an output (0·∞ is NaN), d is checked itself because d_k = ∞ would make w_k and
// x_k 0. Results equal DenseMultipliers' to rounding: the same sums, in the expressions' order.
#pragma once

#include <cstddef>
#include <vector>

#include "tether/expr/expr.h"

namespace tether::reduce {

class ClosedFormMultipliers {
 public:
  // Whether the closed form applies: one constraint and an M whose off-diagonal entries are
  // all the constant 0.
  static bool Applies(const expr::Context& cx, const std::vector<expr::Expr>& mass, std::size_t n,
                      std::size_t m);

  ClosedFormMultipliers() = default;
  explicit ClosedFormMultipliers(std::size_t n) : n_(n) {}

  // The stage outputs in the closed-form layout, from the dense symbolic M (row-major n × n),
  // f, Φ_q's one row, a, Φ, h and the symbols α, β.
  static std::vector<expr::Expr> StageOutputs(expr::Context& cx,
                                              const std::vector<expr::Expr>& mass,
                                              const std::vector<expr::Expr>& forces,
                                              const std::vector<expr::Expr>& phi_q, expr::Expr a,
                                              expr::Expr phi, expr::Expr h, expr::Expr alpha,
                                              expr::Expr beta);

  [[nodiscard]] std::size_t stage_size() const { return 2 * n_ + 2; }
  // True when the stage values `out` (closed-form layout) hold (file comment).
  [[nodiscard]] bool Holds(const double* out) const;

 private:
  std::size_t n_ = 0;
};

}  // namespace tether::reduce
