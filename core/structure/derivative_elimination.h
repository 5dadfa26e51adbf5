// Dependent derivative combinations, eliminated symbolically before the structural pass.
//
// Why: the Σ-method (and Pantelides' algorithm) see only which derivatives occur, not how. In
// a circuit whose capacitor equations share a branch voltage,
//     C·(u1′ − u2′) + i1(u) = 0,     −C·(u1′ − u2′) + i2(u) = 0,
// σ has a transversal of value 2 on u1′, u2′, so structurally the system is an ODE (index 0);
// but ∂F/∂x′ = [C −C; −C C] is singular, the true index is 1, and the sum of the rows,
// i1(u) + i2(u) = 0, is a hidden algebraic equation. The method of Tang, Nedialkov & Pryce
// ("Conversion methods for improving structural analysis of differential-algebraic equation
// systems", BIT 57 (2017) 845–865) replaces such a row by a combination that drops the
// dependent derivatives; where the derivatives enter linearly we can find the combination
// exactly, by fraction-free elimination on their coefficients, as ModelingToolkit's alias
// elimination does.
//
// Rows: the equations that are affine in the first derivatives with derivative-free
// coefficients, F_i = Σ_j A_ij(t, x) x_j′ + b_i(t, x) (A_ij = ∂F_i/∂x_j′ free of every
// derivative, b_i = F_i at x′ = 0). Equations without derivatives are already algebraic and
// take no part; equations nonlinear in x′ are left alone.
//
// 1. Generic rank. A is evaluated at random points (probe.h) and its row dependencies found
//    numerically (row_dependencies.h). Full row rank at some point means full rank
//    generically: nothing to do, and no symbolic work is spent. Otherwise the rows in the
//    support of the left null space form the cluster S (any dependency involves only rows of
//    S); the numeric answer only chooses S, the symbolic pass below decides. S splits into
//    connected components (rows sharing a derivative column): a null vector restricted to one
//    component is again one, so each component is eliminated on its own (a block-diagonal S,
//    such as many floating capacitors, costs the sum of its blocks).
// 2. Fraction-free elimination (Bareiss, "Sylvester's identity and multistep integer-
//    preserving Gaussian elimination", Math. Comp. 22 (1968) 565–578) on [A_K | b_K] for each
//    component K, with p₀ = 1 and, at step k with pivot p_k = M_rc^(k−1) moved out of the
//    active rows and columns,
//        M_ij^(k) = (p_k·M_ij^(k−1) − M_ic^(k−1)·M_rj^(k−1)) / p_(k−1)
//    for the active rows i and the active columns j and b. By Sylvester's identity the division
//    is exact: M_ij^(k) is the (k+1)-minor of [A | b] on the pivot rows and i, the pivot
//    columns and j, so entries stay minors instead of growing as products, and the expression
//    DAG grows by O(|K|·|C_K|) nodes per step (C_K the component's columns). A pivot must be
//    non-zero: its zero test is the constant 0, else the random-point probe (probe.h: a
//    non-zero entry is taken for zero with probability below 10⁻³⁰), and an entry the probe
//    cannot decide counts as non-zero.
//    Preferred pivots, in order: constants, then expressions of parameters only (neither can
//    vanish during a run), then definite non-zeros with the fewest nodes, then undecided ones.
// 3. When no non-zero pivot is left after r steps, the A-part of each remaining row i is zero,
//    and its b-part divided by the last pivot p_r = det A_PP (P the pivot rows) is
//        g_i = b_i − A_iP A_PP⁻¹ b_P = F_i − A_iP A_PP⁻¹ F_P,
//    a derivative-free equation with coefficient 1 on F_i (the residual keeps F_i's scale).
//    F_i is replaced by g_i = 0; the pivot rows are kept as written, so the system is
//    equivalent to the original wherever det A_PP ≠ 0. A g_i that is zero (same test) means F_i
//    is a combination of other equations: it is replaced by the constant 0, which the
//    Dulmage–Mendelsohn check then reports as an equation without unknowns.
//
// Out of reach (left to the Σ-method, whose system-Jacobian check reports what it cannot
// handle): derivatives entering nonlinearly (x′² + …) or with coefficients that depend on
// derivatives; dependencies among the differentiated equations that only the Σ-method's
// higher-order system exposes (conversion methods beyond this linear first step); and
// dependencies that hold only on part of the state space (det A_PP vanishing at particular
// states, a rank that changes along a solution) — these surface at run time as singular
// Jacobians at the state where they occur.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "structure/probe.h"
#include "structure/signature_matrix.h"
#include "tether/expr/expr.h"

namespace tether::structure {

struct DerivativeElimination {
  // Per equation: the derivative-free equation g_i replacing F_i, or an invalid Expr if F_i
  // is kept.
  std::vector<expr::Expr> replacement;
  // Per equation: for a replaced one, the kept equations (pivot rows P) its g_i combines.
  std::vector<std::vector<std::size_t>> combined_with;
  // True when the context grew past `node_limit` (the result is then incomplete).
  bool budget_exceeded = false;

  [[nodiscard]] bool replaced(std::size_t equation) const {
    return replacement[equation].valid();
  }
};

// `time` is the symbol t, `first_derivatives[j]` the symbol x_j′; `jets` recognizes every jet
// of the variables.
// Stops with budget_exceeded once context.size() exceeds `node_limit`.
DerivativeElimination EliminateDependentDerivatives(expr::Context& context,
                                                    std::span<const expr::Expr> equations,
                                                    expr::Expr time, const JetIndex& jets,
                                                    std::span<const expr::Expr> first_derivatives,
                                                    Prober& prober, std::size_t node_limit);

}  // namespace tether::structure
