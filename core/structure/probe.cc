#include "structure/probe.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace tether::structure {
namespace {

using expr::Expr;
using expr::Op;

constexpr double kUnitRoundoff = 0x1p-53;
// Verdict slack over the first-order bound (see the header).
constexpr double kSlack = 4.0;
// Rounding of one libm function call, in units of u: 2 ulps.
constexpr double kLibmRounding = 4.0;

std::uint64_t SplitMix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// FNV-1a over the name's bytes.
std::uint64_t HashName(const std::string& name) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (char ch : name) {
    h ^= static_cast<unsigned char>(ch);
    h *= 0x100000001b3ull;
  }
  return h;
}

// Uniform in [0, 1) from the top 53 bits.
double Uniform(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1p-53; }

ProbeValue Unreliable() { return {std::numeric_limits<double>::quiet_NaN(), 0.0, false}; }

// v = f(a) with E = |f′(a)|·E_a + kLibmRounding·|v|; `slope` is |f′(a)|.
ProbeValue Smooth(double v, double slope, const ProbeValue& a) {
  if (!std::isfinite(v) || !std::isfinite(slope)) return Unreliable();
  return {v, slope * a.error + kLibmRounding * std::abs(v), true};
}

// True when the sign of `c` is not certain within its error bound.
bool Ambiguous(const ProbeValue& c) { return std::abs(c.value) <= kUnitRoundoff * c.error; }

ProbeValue ApplyUnary(Op op, const ProbeValue& a) {
  const double x = a.value;
  switch (op) {
    case Op::kNeg: return {-x, a.error, true};
    case Op::kAbs: return {std::abs(x), a.error, true};
    case Op::kSign:
      if (Ambiguous(a)) return Unreliable();
      return {x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0), 0.0, true};
    case Op::kFloor:  // a jump at every integer: ambiguous within the error bound of one
      if (Ambiguous({x - std::round(x), a.error, true})) return Unreliable();
      return {std::floor(x), 0.0, true};
    case Op::kSin: return Smooth(std::sin(x), std::abs(std::cos(x)), a);
    case Op::kCos: return Smooth(std::cos(x), std::abs(std::sin(x)), a);
    case Op::kTan: {
      const double v = std::tan(x);
      return Smooth(v, 1.0 + v * v, a);
    }
    case Op::kAsin: return Smooth(std::asin(x), 1.0 / std::sqrt(1.0 - x * x), a);
    case Op::kAcos: return Smooth(std::acos(x), 1.0 / std::sqrt(1.0 - x * x), a);
    case Op::kAtan: return Smooth(std::atan(x), 1.0 / (1.0 + x * x), a);
    case Op::kSinh: return Smooth(std::sinh(x), std::cosh(x), a);
    case Op::kCosh: return Smooth(std::cosh(x), std::abs(std::sinh(x)), a);
    case Op::kTanh: {
      const double v = std::tanh(x);
      return Smooth(v, 1.0 - v * v, a);
    }
    case Op::kExp: {
      const double v = std::exp(x);
      return Smooth(v, v, a);
    }
    case Op::kLog: return Smooth(std::log(x), 1.0 / std::abs(x), a);
    case Op::kSqrt: {
      const double v = std::sqrt(x);
      return Smooth(v, 0.5 / v, a);
    }
    default: return Unreliable();
  }
}

ProbeValue ApplyPow(const ProbeValue& a, const ProbeValue& b) {
  const double v = std::pow(a.value, b.value);
  if (!std::isfinite(v)) return Unreliable();
  if (a.value == 0.0) {
    // 0^b is exact, but its sensitivity to a and b is unbounded unless both are exact.
    if (a.error == 0.0 && b.error == 0.0) return {v, 0.0, true};
    return Unreliable();
  }
  const double slope_a = std::abs(b.value * v / a.value);
  const double slope_b = b.error == 0.0 ? 0.0 : std::abs(v * std::log(std::abs(a.value)));
  const double error = slope_a * a.error + slope_b * b.error + kLibmRounding * std::abs(v);
  if (!std::isfinite(error)) return Unreliable();
  return {v, error, true};
}

ProbeValue ApplyBinary(Op op, const ProbeValue& a, const ProbeValue& b) {
  const double x = a.value;
  const double y = b.value;
  switch (op) {
    case Op::kAdd: {
      const double v = x + y;
      return {v, a.error + b.error + std::abs(v), true};
    }
    case Op::kSub: {
      const double v = x - y;
      return {v, a.error + b.error + std::abs(v), true};
    }
    case Op::kMul: {
      const double v = x * y;
      return {v, std::abs(y) * a.error + std::abs(x) * b.error + std::abs(v), true};
    }
    case Op::kDiv: {
      if (y == 0.0) return Unreliable();
      const double v = x / y;
      return {v, (a.error + std::abs(v) * b.error) / std::abs(y) + std::abs(v), true};
    }
    case Op::kPow: return ApplyPow(a, b);
    case Op::kAtan2: {
      const double r2 = x * x + y * y;
      if (r2 == 0.0) return Unreliable();
      const double v = std::atan2(x, y);  // atan2(a = y-coordinate, b = x-coordinate)
      return {v, (std::abs(y) * a.error + std::abs(x) * b.error) / r2 + kLibmRounding * std::abs(v),
              true};
    }
    // min and max are 1-Lipschitz: the error of either operand bounds theirs.
    case Op::kMin: return {x <= y ? x : y, std::max(a.error, b.error), true};
    case Op::kMax: return {x >= y ? x : y, std::max(a.error, b.error), true};
    default: return Unreliable();
  }
}

}  // namespace

Prober::Prober(const expr::Context& context, int points, std::uint64_t seed)
    : context_(&context),
      points_(std::max(points, 1)),
      seed_(seed),
      memo_(static_cast<std::size_t>(points_)) {}

double Prober::SymbolValue(Expr symbol, int point) const {
  std::uint64_t bits = SplitMix64(seed_ ^ SplitMix64(static_cast<std::uint64_t>(point)));
  bits = SplitMix64(bits ^ HashName(context_->symbol_name(symbol)));
  const double u = Uniform(bits);
  if (point % 2 == 1) return 0.1 + 0.8 * u;
  const double magnitude = 0.5 + 1.5 * u;
  return (SplitMix64(bits) & 1u) ? -magnitude : magnitude;
}

ProbeValue Prober::EvaluateNode(Expr node, int point) {
  auto& memo = memo_[static_cast<std::size_t>(point)];
  const Op op = context_->op(node);
  if (op == Op::kConstant) return {context_->constant_value(node), 0.0, true};
  if (op == Op::kSymbol) return {SymbolValue(node, point), 0.0, true};
  const std::span<const Expr> args = context_->operands(node);
  const ProbeValue& a = memo.at(args[0].id);
  if (op == Op::kSelect) {
    if (!a.reliable || Ambiguous(a)) return Unreliable();
    return memo.at(a.value > 0 ? args[1].id : args[2].id);
  }
  if (!a.reliable) return Unreliable();
  if (args.size() == 1) return ApplyUnary(op, a);
  const ProbeValue& b = memo.at(args[1].id);
  if (!b.reliable) return Unreliable();
  ProbeValue result = ApplyBinary(op, a, b);
  if (!std::isfinite(result.value) || !std::isfinite(result.error)) return Unreliable();
  return result;
}

ProbeValue Prober::Evaluate(Expr e, int point) {
  auto& memo = memo_[static_cast<std::size_t>(point)];
  if (auto it = memo.find(e.id); it != memo.end()) return it->second;
  // Post-order over the nodes not evaluated yet, without recursion.
  std::vector<std::pair<Expr, bool>> stack = {{e, false}};
  while (!stack.empty()) {
    auto [node, expanded] = stack.back();
    if (memo.contains(node.id)) {
      stack.pop_back();
      continue;
    }
    if (expanded) {
      stack.pop_back();
      memo.emplace(node.id, EvaluateNode(node, point));
      continue;
    }
    stack.back().second = true;
    for (Expr operand : context_->operands(node)) {
      if (!memo.contains(operand.id)) stack.push_back({operand, false});
    }
  }
  return memo.at(e.id);
}

ZeroVerdict Prober::IsZero(Expr e) {
  if (context_->is_constant(e, 0.0)) return ZeroVerdict::kZero;
  bool some_reliable = false;
  for (int point = 0; point < points_; ++point) {
    const ProbeValue p = Evaluate(e, point);
    if (!p.reliable) continue;
    some_reliable = true;
    if (std::abs(p.value) > kSlack * kUnitRoundoff * p.error) return ZeroVerdict::kNonZero;
  }
  return some_reliable ? ZeroVerdict::kZero : ZeroVerdict::kUnknown;
}

}  // namespace tether::structure
