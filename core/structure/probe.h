// Zero tests of expressions by evaluation at random points, with a running error bound.
//
// Whether an expression e(t, x, p) vanishes identically cannot be decided by simplification
// alone: hash-consing cancels x·y − y·x but not x·x − x², nor sin²x + cos²x − 1. A Prober
// evaluates e at a few pseudo-random points π_1 … π_P (every symbol gets a value) and bounds
// the rounding error of each value by running error analysis (Higham, "Accuracy and
// Stability of Numerical Algorithms", 2nd ed., SIAM 2002, §3.3): the computed v comes with E
// such that |v − e(π)| ≤ u·E to first order, u = 2⁻⁵³, propagated node by node:
//   a ± b:  E = E_a + E_b + |v|        a·b: E = |b|·E_a + |a|·E_b + |v|
//   a / b:  E = (E_a + |v|·E_b)/|b| + |v|          −a, |a|, min, max: E = max of the operands'
//   f(a):   E = |f′(a)|·E_a + 4|v|     (libm's functions are within 2 ulps = 4u)
//   aᵇ:     E = |b·v/a|·E_a + |v·log|a||·E_b + 4|v|
//   atan2(y, x): E = (|x|·E_y + |y|·E_x)/(x² + y²) + 4|v|
// Constants and symbols are exact (E = 0): the question is whether the expression as written
// vanishes, not its decimal source. A value that is not finite, a branch (sign, select; floor:
// the distance to the nearest integer) whose condition lies within its own error bound, or a
// derivative that is infinite (√ at 0) makes the point *unreliable*: it says nothing.
//
// Verdict: at a reliable point e "looks zero" iff |v| ≤ K·u·E with K = 4 (room for the
// neglected second-order terms). Then
//   kNonZero  if some reliable point does not look zero — an identically zero e cannot give
//             that, since its computed value is within the bound;
//   kZero     if every reliable point looks zero and there is one;
//   kUnknown  if no point is reliable (e.g. outside the domain of log at every point).
// Probability argument: a non-zero e that is analytic (piecewise analytic across the branches
// of abs, min, max, select) in its symbols vanishes only on a set of measure zero, and it
// looks zero at π only if π falls within about K·u·E/|∇e| of that set, a probability of order
// 10⁻¹⁵ per point for the O(1) values used here; the points are independent, so a non-zero e
// is called kZero with probability below 10⁻³⁰ (Schwartz 1980 and Zippel 1979 give the same
// argument for polynomials over exact arithmetic). Callers treat kUnknown as non-zero, the
// side on which a mistake is reported later (a singular Jacobian) instead of dropping a term.
//
// Points: symbol values are a deterministic function of (seed, point, symbol name), so a
// verdict never depends on the order of questions or on the process. Even points draw
// ±U[0.5, 2] (random sign), odd points U[0.1, 0.9] (positive and below 1, inside the domains
// of log, sqrt, asin, acos); values of order one keep E/|v| small.
//
// Values are memoized per node and point: nodes are immutable, so asking about an expression
// costs only its nodes not seen before.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "tether/expr/expr.h"

namespace tether::structure {

enum class ZeroVerdict { kZero, kNonZero, kUnknown };

struct ProbeValue {
  double value = 0.0;
  double error = 0.0;     // E: |value − exact| ≤ u·E to first order
  bool reliable = false;  // finite, and no branch or singularity within the error
};

class Prober {
 public:
  static constexpr int kDefaultPoints = 4;
  static constexpr std::uint64_t kDefaultSeed = 0x7e7e'5eed'0000'0001ull;

  Prober(const expr::Context& context, int points = kDefaultPoints,
         std::uint64_t seed = kDefaultSeed);

  [[nodiscard]] int points() const { return points_; }
  // The value of `symbol` at `point`.
  [[nodiscard]] double SymbolValue(expr::Expr symbol, int point) const;
  // The value of `e` at `point`, with its error bound.
  ProbeValue Evaluate(expr::Expr e, int point);
  // Exactly zero by construction (the constant 0) → kZero without evaluation; else as above.
  ZeroVerdict IsZero(expr::Expr e);

 private:
  ProbeValue EvaluateNode(expr::Expr node, int point);

  const expr::Context* context_;
  int points_;
  std::uint64_t seed_;
  std::vector<std::unordered_map<std::uint32_t, ProbeValue>> memo_;  // per point
};

}  // namespace tether::structure
