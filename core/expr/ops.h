// Pointwise meaning of every operation, shared by constant folding, tree evaluation and the
// compiled program so that the three agree to the last bit.
#pragma once

#include <cmath>

#include "tether/expr/expr.h"

namespace tether::expr::internal {

// sign(x) ∈ {−1, 0, 1}; NaN propagates so that a non-finite state is not hidden.
inline double SignOf(double x) {
  if (x > 0.0) return 1.0;
  if (x < 0.0) return -1.0;
  return x;  // ±0 or NaN
}

// min/max as the derivative rules see them (ties pick the first operand); NaN in either
// operand propagates, unlike std::fmin.
inline double MinOf(double a, double b) { return (a <= b || std::isnan(a)) ? a : b; }
inline double MaxOf(double a, double b) { return (a >= b || std::isnan(a)) ? a : b; }

// Value of a one-operand node (`op` in kNeg, kSin … kFloor).
inline double ApplyUnary(Op op, double x) {
  switch (op) {
    case Op::kNeg: return -x;
    case Op::kSin: return std::sin(x);
    case Op::kCos: return std::cos(x);
    case Op::kTan: return std::tan(x);
    case Op::kAsin: return std::asin(x);
    case Op::kAcos: return std::acos(x);
    case Op::kAtan: return std::atan(x);
    case Op::kSinh: return std::sinh(x);
    case Op::kCosh: return std::cosh(x);
    case Op::kTanh: return std::tanh(x);
    case Op::kExp: return std::exp(x);
    case Op::kLog: return std::log(x);
    case Op::kSqrt: return std::sqrt(x);
    case Op::kAbs: return std::fabs(x);
    case Op::kSign: return SignOf(x);
    case Op::kFloor: return std::floor(x);
    default: return std::nan("");
  }
}

// Value of a two-operand node (kAdd … kPow, kAtan2, kMin, kMax).
inline double ApplyBinary(Op op, double a, double b) {
  switch (op) {
    case Op::kAdd: return a + b;
    case Op::kSub: return a - b;
    case Op::kMul: return a * b;
    case Op::kDiv: return a / b;
    case Op::kPow: return std::pow(a, b);
    case Op::kAtan2: return std::atan2(a, b);
    case Op::kMin: return MinOf(a, b);
    case Op::kMax: return MaxOf(a, b);
    default: return std::nan("");
  }
}

// Select(c, p, q) = c > 0 ? p : q.
inline double ApplySelect(double c, double p, double q) { return c > 0.0 ? p : q; }

inline bool IsUnary(Op op) {
  return op == Op::kNeg || (op >= Op::kSin && op <= Op::kFloor && op != Op::kAtan2);
}
inline bool IsBinary(Op op) {
  return (op >= Op::kAdd && op <= Op::kPow) || op == Op::kAtan2 || op == Op::kMin || op == Op::kMax;
}

// Number of operands of a node of kind `op`.
inline int Arity(Op op) {
  if (op == Op::kConstant || op == Op::kSymbol) return 0;
  if (op == Op::kSelect) return 3;
  return IsBinary(op) ? 2 : 1;
}

}  // namespace tether::expr::internal
