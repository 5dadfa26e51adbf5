// Symbolic differentiation (Context::Diff). The rules are the textbook ones, written so that
// they reuse the node being differentiated where it appears in its own derivative
// (d eˣ = eˣ dx, d tan x = (1 + tan²x) dx, d √x = dx / (2√x)), which keeps derivatives small.

#include <array>
#include <string>
#include <unordered_map>

#include "expr/invariant.h"
#include "expr/traverse.h"
#include "tether/expr/expr.h"

namespace tether::expr {
namespace {

// The derivative of `e` given the derivatives `d` of its operands (`args`), for a node that is
// neither a constant nor a symbol.
Expr DiffNode(Context& c, Expr e, Op op, std::span<const Expr> args, std::span<const Expr> d) {
  const Expr zero = c.Constant(0.0);
  const Expr one = c.Constant(1.0);
  const Expr two = c.Constant(2.0);
  const Expr a = args[0];
  const Expr da = d[0];
  auto square = [&](Expr x) { return c.Pow(x, two); };
  // f·dx, left out when dx is structurally zero (0·f is not simplified for a non-total f).
  auto times = [&](Expr f, Expr dx) { return dx == zero ? zero : c.Mul(f, dx); };
  switch (op) {
    case Op::kAdd: return c.Add(da, d[1]);
    case Op::kSub: return c.Sub(da, d[1]);
    case Op::kNeg: return c.Neg(da);
    case Op::kMul: return c.Add(times(args[1], da), times(a, d[1]));
    case Op::kDiv:  // d(a/b) = (da − (a/b) db) / b
      return c.Div(c.Sub(da, times(e, d[1])), args[1]);
    case Op::kPow: {  // d(aᵇ) = b aᵇ⁻¹ da + aᵇ log(a) db
      const Expr b = args[1];
      Expr result = zero;
      if (da != zero) result = c.Mul(c.Mul(b, c.Pow(a, c.Sub(b, one))), da);
      if (d[1] != zero) result = c.Add(result, c.Mul(c.Mul(e, c.Unary(Op::kLog, a)), d[1]));
      return result;
    }
    case Op::kSin: return c.Mul(c.Unary(Op::kCos, a), da);
    case Op::kCos: return c.Neg(c.Mul(c.Unary(Op::kSin, a), da));
    case Op::kTan: return c.Mul(c.Add(one, square(e)), da);
    case Op::kAsin: return c.Div(da, c.Unary(Op::kSqrt, c.Sub(one, square(a))));
    case Op::kAcos: return c.Neg(c.Div(da, c.Unary(Op::kSqrt, c.Sub(one, square(a)))));
    case Op::kAtan: return c.Div(da, c.Add(one, square(a)));
    case Op::kAtan2: {  // d atan2(y, x) = (x dy − y dx) / (x² + y²)
      const Expr y = a;
      const Expr x = args[1];
      return c.Div(c.Sub(times(x, da), times(y, d[1])), c.Add(square(x), square(y)));
    }
    case Op::kSinh: return c.Mul(c.Unary(Op::kCosh, a), da);
    case Op::kCosh: return c.Mul(c.Unary(Op::kSinh, a), da);
    case Op::kTanh: return c.Mul(c.Sub(one, square(e)), da);
    case Op::kExp: return c.Mul(e, da);
    case Op::kLog: return c.Div(da, a);
    case Op::kSqrt: return c.Div(da, c.Mul(two, e));
    case Op::kAbs: return c.Mul(c.Unary(Op::kSign, a), da);
    case Op::kSign:
    case Op::kFloor: return zero;
    // min(a, b) = a iff a ≤ b, i.e. unless a − b > 0; max(a, b) = a iff a ≥ b.
    case Op::kMin: return c.Select(c.Sub(a, args[1]), d[1], da);
    case Op::kMax: return c.Select(c.Sub(args[1], a), d[1], da);
    case Op::kSelect: return c.Select(a, d[1], d[2]);
    default: break;
  }
  internal::Fatal("Diff: unexpected node kind " + std::to_string(static_cast<int>(op)));
}

}  // namespace

Expr Context::Diff(Expr e, Expr symbol) {
  internal::CheckInvariant(op(symbol) == Op::kSymbol, "Diff: the variable is not a symbol");
  const Expr zero = Constant(0.0);
  const Expr one = Constant(1.0);
  const std::array<Expr, 1> roots = {e};
  // Operands come first in this order, so each derivative is computed once from theirs.
  std::unordered_map<std::uint32_t, Expr> derivative;
  for (Expr node : internal::TopologicalOrder(*this, roots)) {
    Expr result = zero;
    const Op kind = op(node);
    if (kind == Op::kSymbol) {
      result = node == symbol ? one : zero;
    } else if (kind != Op::kConstant) {
      std::array<Expr, 3> args{};
      std::array<Expr, 3> d{};
      const std::span<const Expr> operand_list = operands(node);
      bool all_zero = true;
      for (std::size_t i = 0; i < operand_list.size(); ++i) {
        args[i] = operand_list[i];
        d[i] = derivative.at(args[i].id);
        all_zero = all_zero && d[i] == zero;
      }
      const std::size_t n = operand_list.size();
      if (!all_zero) {
        result = DiffNode(*this, node, kind, std::span<const Expr>(args.data(), n),
                          std::span<const Expr>(d.data(), n));
      }
    }
    derivative.emplace(node.id, result);
  }
  return derivative.at(e.id);
}

}  // namespace tether::expr
