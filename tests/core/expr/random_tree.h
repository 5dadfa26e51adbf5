// Random expression trees for the tests, with a direct evaluation that carries a running
// rounding-error bound (Higham, "Accuracy and Stability of Numerical Algorithms", §3.3): each
// operation contributes u·|result| (u = 2⁻⁵³, the unit roundoff of a correctly rounded
// operation; 2u for libm functions, which are within one ulp) and propagates its operands'
// errors through its derivative. Two computations of the same value that each stay within
// `bound` of the exact result differ by at most 2·bound.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "tether/expr/expr.h"

namespace tether::expr::testing {

inline constexpr double kUnitRoundoff = 0x1p-53;

// Node kinds of a test tree. The operations are chosen so that every value stays finite and
// moderate on the sample domain: quotients divide by 1 + b² ≥ 1, exp takes sin(·).
enum class TreeOp {
  kConstant,
  kVariable,
  kAdd,
  kSub,
  kMul,
  kQuotient,
  kNeg,
  kSin,
  kCos,
  kAtan,
  kSquare,
  kCube,
  kExpSin,
  // Patterns the Context must simplify away (value unchanged):
  kZeroTimes,
  kSelfMinus,
  kOneTimes,
  kPlusZero,
  kPowOne,
  kSelfQuotient,
  kNegNeg,
};

struct Tree {
  TreeOp op = TreeOp::kConstant;
  double constant = 0.0;
  int variable = 0;
  std::vector<std::unique_ptr<Tree>> children;
};

struct Bounded {
  double value = 0.0;
  double error = 0.0;  // bound on |computed − exact|
};

class TreeFactory {
 public:
  TreeFactory(std::uint32_t seed, int num_variables, bool with_simplifiable)
      : rng_(seed), num_variables_(num_variables), with_simplifiable_(with_simplifiable) {}

  std::unique_ptr<Tree> Make(int depth) {
    auto tree = std::make_unique<Tree>();
    if (depth == 0 || Uniform(0, 5) == 0) {
      if (Uniform(0, 2) == 0) {
        tree->op = TreeOp::kConstant;
        tree->constant = std::uniform_real_distribution<double>(-2.0, 2.0)(rng_);
      } else {
        tree->op = TreeOp::kVariable;
        tree->variable = Uniform(0, num_variables_ - 1);
      }
      return tree;
    }
    const int last =
        with_simplifiable_ ? static_cast<int>(TreeOp::kNegNeg) : static_cast<int>(TreeOp::kExpSin);
    tree->op = static_cast<TreeOp>(Uniform(static_cast<int>(TreeOp::kAdd), last));
    const int arity = Arity(tree->op);
    for (int i = 0; i < arity; ++i) tree->children.push_back(Make(depth - 1));
    return tree;
  }

  static int Arity(TreeOp op) {
    switch (op) {
      case TreeOp::kAdd:
      case TreeOp::kSub:
      case TreeOp::kMul:
      case TreeOp::kQuotient: return 2;
      case TreeOp::kConstant:
      case TreeOp::kVariable: return 0;
      default: return 1;
    }
  }

 private:
  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  std::mt19937 rng_;
  int num_variables_;
  bool with_simplifiable_;
};

// The tree as a node of `c`; variable i is the symbol `names[i]`.
inline Expr Build(Context& c, const Tree& t, const std::vector<std::string>& names) {
  auto child = [&](std::size_t i) { return Build(c, *t.children[i], names); };
  const Expr one = c.Constant(1.0);
  switch (t.op) {
    case TreeOp::kConstant: return c.Constant(t.constant);
    case TreeOp::kVariable: return c.Symbol(names[static_cast<std::size_t>(t.variable)]);
    case TreeOp::kAdd: return c.Add(child(0), child(1));
    case TreeOp::kSub: return c.Sub(child(0), child(1));
    case TreeOp::kMul: return c.Mul(child(0), child(1));
    case TreeOp::kQuotient: return c.Div(child(0), c.Add(one, c.Pow(child(1), c.Constant(2.0))));
    case TreeOp::kNeg: return c.Neg(child(0));
    case TreeOp::kSin: return c.Unary(Op::kSin, child(0));
    case TreeOp::kCos: return c.Unary(Op::kCos, child(0));
    case TreeOp::kAtan: return c.Unary(Op::kAtan, child(0));
    case TreeOp::kSquare: return c.Pow(child(0), c.Constant(2.0));
    case TreeOp::kCube: return c.Pow(child(0), c.Constant(3.0));
    case TreeOp::kExpSin: return c.Unary(Op::kExp, c.Unary(Op::kSin, child(0)));
    case TreeOp::kZeroTimes: return c.Mul(c.Constant(0.0), child(0));
    case TreeOp::kSelfMinus: return c.Sub(child(0), child(0));
    case TreeOp::kOneTimes: return c.Mul(child(0), one);
    case TreeOp::kPlusZero: return c.Add(child(0), c.Constant(0.0));
    case TreeOp::kPowOne: return c.Pow(child(0), one);
    case TreeOp::kSelfQuotient: {
      const Expr d = c.Add(one, c.Pow(child(0), c.Constant(2.0)));
      return c.Div(d, d);
    }
    case TreeOp::kNegNeg: return c.Neg(c.Neg(child(0)));
  }
  return {};
}

// Direct evaluation of the unsimplified tree with its running error bound.
inline Bounded EvaluateTree(const Tree& t, const std::vector<double>& x) {
  constexpr double u = kUnitRoundoff;
  auto child = [&](std::size_t i) { return EvaluateTree(*t.children[i], x); };
  auto square = [u](Bounded a) {  // a² with error 2|a|e + e² + u a²
    const double v = a.value * a.value;
    return Bounded{v, 2 * std::fabs(a.value) * a.error + a.error * a.error + u * v};
  };
  switch (t.op) {
    case TreeOp::kConstant: return {t.constant, 0.0};
    case TreeOp::kVariable: return {x[static_cast<std::size_t>(t.variable)], 0.0};
    case TreeOp::kAdd:
    case TreeOp::kSub: {
      const Bounded a = child(0), b = child(1);
      const double v = t.op == TreeOp::kAdd ? a.value + b.value : a.value - b.value;
      // u(|a| + |b|) rather than u|a ± b|: reassociated sums (c₁ + (c₂ + x) → (c₁+c₂) + x)
      // round other partial sums, each still bounded by the magnitudes of the terms.
      return {v, a.error + b.error + u * (std::fabs(a.value) + std::fabs(b.value))};
    }
    case TreeOp::kMul: {
      const Bounded a = child(0), b = child(1);
      const double v = a.value * b.value;
      return {v, a.error * std::fabs(b.value) + b.error * std::fabs(a.value) + a.error * b.error +
                     u * std::fabs(v)};
    }
    case TreeOp::kQuotient: {
      const Bounded a = child(0);
      const Bounded b2 = square(child(1));
      const double d = 1.0 + b2.value;  // ≥ 1
      const double d_error = b2.error + u * d;
      const double v = a.value / d;
      return {v, (a.error + std::fabs(v) * d_error) / (d - d_error) + u * std::fabs(v)};
    }
    case TreeOp::kNeg: {
      const Bounded a = child(0);
      return {-a.value, a.error};
    }
    case TreeOp::kSin:
    case TreeOp::kCos:
    case TreeOp::kAtan: {  // Lipschitz constant 1, values ≤ π/2 in magnitude
      const Bounded a = child(0);
      const double v = t.op == TreeOp::kSin   ? std::sin(a.value)
                       : t.op == TreeOp::kCos ? std::cos(a.value)
                                              : std::atan(a.value);
      return {v, a.error + 2 * u * 2.0};
    }
    case TreeOp::kSquare: return square(child(0));
    case TreeOp::kCube: {
      const Bounded a = child(0);
      const double v = a.value * a.value * a.value;
      const double e = a.error;
      const double m = std::fabs(a.value) + e;
      return {v, 3 * m * m * e + 4 * u * std::fabs(v)};
    }
    case TreeOp::kExpSin: {
      const Bounded a = child(0);
      const double s_error = a.error + 4 * u;
      const double v = std::exp(std::sin(a.value));
      return {v, v * std::expm1(s_error) + 2 * u * v};
    }
    case TreeOp::kZeroTimes:
    case TreeOp::kSelfMinus: return {0.0, 0.0};
    case TreeOp::kSelfQuotient: return {1.0, 0.0};
    case TreeOp::kOneTimes:
    case TreeOp::kPlusZero:
    case TreeOp::kPowOne:
    case TreeOp::kNegNeg: {
      const Bounded a = child(0);
      return a;
    }
  }
  return {};
}

// Evaluation of a node of `c` (built from +, −, ·, /, negation, constant powers with positive
// integer exponents, sin, cos, atan, exp: what trees and their derivatives contain) with the
// same running error bound as EvaluateTree. `value_of` gives each symbol's value (exact).
template <typename ValueOf>
Bounded EvaluateBounded(const Context& c, Expr e, const ValueOf& value_of,
                        std::unordered_map<std::uint32_t, Bounded>* memo) {
  constexpr double u = kUnitRoundoff;
  if (auto it = memo->find(e.id); it != memo->end()) return it->second;
  const auto args = c.operands(e);
  auto arg = [&](std::size_t i) { return EvaluateBounded(c, args[i], value_of, memo); };
  Bounded r{std::nan(""), std::nan("")};
  switch (c.op(e)) {
    case Op::kConstant: r = {c.constant_value(e), 0.0}; break;
    case Op::kSymbol: r = {value_of(e), 0.0}; break;
    case Op::kAdd:
    case Op::kSub: {
      const Bounded a = arg(0), b = arg(1);
      const double v = c.op(e) == Op::kAdd ? a.value + b.value : a.value - b.value;
      r = {v, a.error + b.error + u * (std::fabs(a.value) + std::fabs(b.value))};
      break;
    }
    case Op::kMul: {
      const Bounded a = arg(0), b = arg(1);
      const double v = a.value * b.value;
      r = {v, a.error * std::fabs(b.value) + b.error * std::fabs(a.value) + a.error * b.error +
                  u * std::fabs(v)};
      break;
    }
    case Op::kDiv: {  // requires |b| > its error, true for the 1 + x² denominators of trees
      const Bounded a = arg(0), b = arg(1);
      const double v = a.value / b.value;
      r = {v, (a.error + std::fabs(v) * b.error) / (std::fabs(b.value) - b.error) + u * std::fabs(v)};
      break;
    }
    case Op::kNeg: r = {-arg(0).value, arg(0).error}; break;
    case Op::kPow: {  // xⁿ, n a positive integer: n(|x| + e)ⁿ⁻¹ e, plus 2 log₂ n + 2 roundings
      const Bounded a = arg(0);
      const double n = c.constant_value(args[1]);
      const double v = std::pow(a.value, n);
      r = {v, n * std::pow(std::fabs(a.value) + a.error, n - 1) * a.error +
                  (2 * std::log2(n) + 2) * u * std::fabs(v)};
      break;
    }
    case Op::kSin:
    case Op::kCos:
    case Op::kAtan: {  // Lipschitz constant 1, |value| ≤ π/2, libm within 1 ulp
      const Bounded a = arg(0);
      const double v = c.op(e) == Op::kSin   ? std::sin(a.value)
                       : c.op(e) == Op::kCos ? std::cos(a.value)
                                             : std::atan(a.value);
      r = {v, a.error + 4 * u};
      break;
    }
    case Op::kExp: {
      const Bounded a = arg(0);
      const double v = std::exp(a.value);
      r = {v, v * std::expm1(a.error) + 2 * u * v};
      break;
    }
    default: break;  // not produced by trees: NaN bound fails the comparison
  }
  memo->emplace(e.id, r);
  return r;
}

}  // namespace tether::expr::testing
