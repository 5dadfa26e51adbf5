#include "tether/expr/expr.h"

#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "expr/invariant.h"
#include "expr/ops.h"
#include "expr/traverse.h"

namespace tether::expr {
namespace {

using internal::ApplyBinary;
using internal::ApplySelect;
using internal::ApplyUnary;
using internal::Arity;

using internal::CheckInvariant;

struct Node {
  Op op = Op::kConstant;
  std::array<Expr, 3> operands{};
  double value = 0.0;        // kConstant
  std::uint32_t symbol = 0;  // kSymbol: index into Impl::names
  bool total = false;        // finite whenever its symbols are (see expr.h, "total")
};

// Identity of a node for hash-consing: its kind, operands and payload (constant bits or
// symbol index).
struct Key {
  Op op;
  std::array<std::uint32_t, 3> operands;
  std::uint64_t payload;

  friend bool operator==(const Key&, const Key&) = default;
};

struct KeyHash {
  std::size_t operator()(const Key& k) const {
    // 64-bit mix of the fields (splitmix64 finalizer per step).
    std::uint64_t h = static_cast<std::uint64_t>(k.op);
    auto mix = [&h](std::uint64_t v) {
      h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
      h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
      h ^= h >> 31;
    };
    for (std::uint32_t o : k.operands) mix(o);
    mix(k.payload);
    return static_cast<std::size_t>(h);
  }
};

// A rewrite that combines constants into a new one (c₁·(c₂·x) → (c₁c₂)·x) is only a
// reassociation; it is applied when the combined constant is finite, so that it never creates a
// non-finite constant that the text did not contain.
bool Foldable(double value) { return std::isfinite(value); }

// Whether a non-negative integer, so that xⁿ is a polynomial (finite for every finite x).
bool IsNaturalNumber(double value) {
  return value >= 0.0 && value == std::floor(value) && std::isfinite(value);
}

}  // namespace

struct Context::Impl {
  std::vector<Node> nodes;
  std::unordered_map<Key, std::uint32_t, KeyHash> index;
  std::vector<std::string> names;
  std::unordered_map<std::string, std::uint32_t> symbol_of_name;

  // Returns the node with this identity, creating it if new. No simplification here.
  Expr Intern(const Node& node) {
    Key key{node.op, {node.operands[0].id, node.operands[1].id, node.operands[2].id}, 0};
    if (node.op == Op::kConstant) key.payload = std::bit_cast<std::uint64_t>(node.value);
    if (node.op == Op::kSymbol) key.payload = node.symbol;
    auto [it, inserted] = index.try_emplace(key, static_cast<std::uint32_t>(nodes.size()));
    if (inserted) {
      CheckInvariant(nodes.size() < Expr::kInvalid, "too many nodes in one Context");
      nodes.push_back(node);
      nodes.back().total = IsTotalNode(node);
    }
    return Expr{it->second};
  }

  Expr Make(Op op, Expr a, Expr b = {}, Expr c = {}) {
    Node node;
    node.op = op;
    node.operands = {a, b, c};
    return Intern(node);
  }

  // The classification of expr.h: constants when finite, symbols, and the operations that
  // are defined for every finite operand, over total operands.
  bool IsTotalNode(const Node& node) const {
    auto operand_total = [&](std::size_t i) { return at(node.operands[i]).total; };
    switch (node.op) {
      case Op::kConstant: return std::isfinite(node.value);
      case Op::kSymbol: return true;
      case Op::kAdd:
      case Op::kSub:
      case Op::kMul:
      case Op::kAtan2:
      case Op::kMin:
      case Op::kMax: return operand_total(0) && operand_total(1);
      case Op::kNeg:
      case Op::kSin:
      case Op::kCos:
      case Op::kAtan:
      case Op::kTanh:
      case Op::kAbs:
      case Op::kSign:
      case Op::kFloor: return operand_total(0);
      case Op::kSelect: return operand_total(0) && operand_total(1) && operand_total(2);
      case Op::kPow: {  // xⁿ with n ∈ ℕ
        const Node& exponent = at(node.operands[1]);
        return operand_total(0) && exponent.op == Op::kConstant && IsNaturalNumber(exponent.value);
      }
      default: return false;  // / log sqrt asin acos tan exp sinh cosh
    }
  }
  bool IsTotal(Expr e) const { return at(e).total; }

  const Node& at(Expr e) const {
    CheckInvariant(e.id < nodes.size(), "invalid Expr handle for this Context");
    return nodes[e.id];
  }
  bool IsConst(Expr e) const { return at(e).op == Op::kConstant; }
  bool IsConst(Expr e, double v) const { return IsConst(e) && at(e).value == v; }
  double Value(Expr e) const { return at(e).value; }
  Op OpOf(Expr e) const { return at(e).op; }
  Expr Arg(Expr e, int i) const { return at(e).operands[static_cast<std::size_t>(i)]; }
};

Context::Context() : impl_(std::make_unique<Impl>()) {}
Context::~Context() = default;
Context::Context(Context&&) noexcept = default;
Context& Context::operator=(Context&&) noexcept = default;

Expr Context::Constant(double value) {
  Node node;
  node.op = Op::kConstant;
  node.value = value == 0.0 ? 0.0 : value;  // −0 and +0 are one node
  if (std::isnan(value)) node.value = std::numeric_limits<double>::quiet_NaN();  // so is NaN
  return impl_->Intern(node);
}

Expr Context::Symbol(std::string_view name) {
  auto it = impl_->symbol_of_name.find(std::string(name));
  std::uint32_t index = 0;
  if (it == impl_->symbol_of_name.end()) {
    index = static_cast<std::uint32_t>(impl_->names.size());
    impl_->names.emplace_back(name);
    impl_->symbol_of_name.emplace(std::string(name), index);
  } else {
    index = it->second;
  }
  Node node;
  node.op = Op::kSymbol;
  node.symbol = index;
  return impl_->Intern(node);
}

Expr Context::Add(Expr a, Expr b) {
  Impl& m = *impl_;
  if (m.IsConst(a) && m.IsConst(b)) return Constant(m.Value(a) + m.Value(b));
  if (m.IsConst(a, 0.0)) return b;
  if (m.IsConst(b, 0.0)) return a;
  if (m.OpOf(b) == Op::kNeg) return Sub(a, m.Arg(b, 0));  // a + (−c) → a − c
  if (m.OpOf(a) == Op::kNeg) return Sub(b, m.Arg(a, 0));  // (−c) + b → b − c
  if (a == b) return Mul(Constant(2.0), a);               // x + x → 2·x
  if (m.IsConst(b) || (!m.IsConst(a) && b.id < a.id)) std::swap(a, b);
  // c₁ + (c₂ + x) → (c₁ + c₂) + x
  if (m.IsConst(a) && m.OpOf(b) == Op::kAdd && m.IsConst(m.Arg(b, 0))) {
    const double sum = m.Value(a) + m.Value(m.Arg(b, 0));
    if (Foldable(sum)) return Add(Constant(sum), m.Arg(b, 1));
  }
  return m.Make(Op::kAdd, a, b);
}

Expr Context::Sub(Expr a, Expr b) {
  Impl& m = *impl_;
  if (m.IsConst(a) && m.IsConst(b)) return Constant(m.Value(a) - m.Value(b));
  if (a == b && m.IsTotal(a)) return Constant(0.0);
  if (m.IsConst(b, 0.0)) return a;
  if (m.IsConst(a, 0.0)) return Neg(b);
  if (m.OpOf(b) == Op::kNeg) return Add(a, m.Arg(b, 0));   // a − (−c) → a + c
  if (m.IsConst(b)) return Add(Constant(-m.Value(b)), a);  // x − c → (−c) + x
  return m.Make(Op::kSub, a, b);
}

Expr Context::Mul(Expr a, Expr b) {
  Impl& m = *impl_;
  if (m.IsConst(a) && m.IsConst(b)) return Constant(m.Value(a) * m.Value(b));
  if (m.IsConst(b) || (!m.IsConst(a) && b.id < a.id)) std::swap(a, b);
  if (m.IsConst(a, 0.0) && m.IsTotal(b)) return a;
  if (m.IsConst(a, 1.0)) return b;
  if (m.IsConst(a, -1.0)) return Neg(b);
  // Negations move outward, where + and − absorb them.
  if (m.OpOf(a) == Op::kNeg && m.OpOf(b) == Op::kNeg) return Mul(m.Arg(a, 0), m.Arg(b, 0));
  if (m.OpOf(b) == Op::kNeg) {
    if (m.IsConst(a)) return Mul(Constant(-m.Value(a)), m.Arg(b, 0));
    return Neg(Mul(a, m.Arg(b, 0)));
  }
  if (m.OpOf(a) == Op::kNeg) return Neg(Mul(m.Arg(a, 0), b));
  // x·(1/y) → x/y
  if (m.OpOf(b) == Op::kDiv && m.IsConst(m.Arg(b, 0), 1.0)) return Div(a, m.Arg(b, 1));
  if (m.OpOf(a) == Op::kDiv && m.IsConst(m.Arg(a, 0), 1.0)) return Div(b, m.Arg(a, 1));
  // c₁·(c₂·x) → (c₁c₂)·x
  if (m.IsConst(a) && m.OpOf(b) == Op::kMul && m.IsConst(m.Arg(b, 0))) {
    const double product = m.Value(a) * m.Value(m.Arg(b, 0));
    if (Foldable(product)) return Mul(Constant(product), m.Arg(b, 1));
  }
  return m.Make(Op::kMul, a, b);
}

Expr Context::Div(Expr a, Expr b) {
  Impl& m = *impl_;
  if (m.IsConst(a) && m.IsConst(b)) return Constant(m.Value(a) / m.Value(b));
  if (m.IsConst(b, 1.0)) return a;
  if (m.IsConst(b, -1.0)) return Neg(a);
  if (m.OpOf(a) == Op::kNeg) return Neg(Div(m.Arg(a, 0), b));
  if (m.OpOf(b) == Op::kNeg) return Neg(Div(a, m.Arg(b, 0)));
  return m.Make(Op::kDiv, a, b);
}

Expr Context::Pow(Expr base, Expr exponent) {
  Impl& m = *impl_;
  if (m.IsConst(base) && m.IsConst(exponent)) {
    return Constant(std::pow(m.Value(base), m.Value(exponent)));
  }
  // IEEE 754 pow: x⁰ = 1 and 1ˣ = 1 for every x, NaN included.
  if (m.IsConst(exponent, 0.0)) return Constant(1.0);
  if (m.IsConst(exponent, 1.0)) return base;
  if (m.IsConst(base, 1.0)) return base;
  return m.Make(Op::kPow, base, exponent);
}

Expr Context::Neg(Expr a) {
  Impl& m = *impl_;
  if (m.IsConst(a)) return Constant(-m.Value(a));
  switch (m.OpOf(a)) {
    case Op::kNeg: return m.Arg(a, 0);
    case Op::kSub: return Sub(m.Arg(a, 1), m.Arg(a, 0));  // −(x − y) → y − x
    case Op::kMul:
      if (m.IsConst(m.Arg(a, 0))) return Mul(Constant(-m.Value(m.Arg(a, 0))), m.Arg(a, 1));
      break;
    default: break;
  }
  return m.Make(Op::kNeg, a);
}

Expr Context::Unary(Op op, Expr a) {
  CheckInvariant(internal::IsUnary(op), "Context::Unary: not a one-operand operation");
  Impl& m = *impl_;
  if (op == Op::kNeg) return Neg(a);
  if (m.IsConst(a)) return Constant(ApplyUnary(op, m.Value(a)));
  // |(|x|)| = |x|, sign(sign x) = sign x, |−x| = |x|.
  if ((op == Op::kAbs || op == Op::kSign || op == Op::kFloor) && m.OpOf(a) == op) return a;
  if (op == Op::kAbs && m.OpOf(a) == Op::kNeg) return Unary(op, m.Arg(a, 0));
  return m.Make(op, a);
}

Expr Context::Binary(Op op, Expr a, Expr b) {
  switch (op) {
    case Op::kAdd: return Add(a, b);
    case Op::kSub: return Sub(a, b);
    case Op::kMul: return Mul(a, b);
    case Op::kDiv: return Div(a, b);
    case Op::kPow: return Pow(a, b);
    case Op::kAtan2:
    case Op::kMin:
    case Op::kMax: break;
    default: CheckInvariant(false, "Context::Binary: not a two-operand operation");
  }
  Impl& m = *impl_;
  if (m.IsConst(a) && m.IsConst(b)) return Constant(ApplyBinary(op, m.Value(a), m.Value(b)));
  if ((op == Op::kMin || op == Op::kMax) && a == b) return a;
  return m.Make(op, a, b);
}

Expr Context::Select(Expr condition, Expr if_positive, Expr otherwise) {
  Impl& m = *impl_;
  if (m.IsConst(condition)) return m.Value(condition) > 0.0 ? if_positive : otherwise;
  if (if_positive == otherwise) return if_positive;  // the value whatever c is, NaN included
  return m.Make(Op::kSelect, condition, if_positive, otherwise);
}

Op Context::op(Expr e) const { return impl_->OpOf(e); }

double Context::constant_value(Expr e) const {
  CheckInvariant(impl_->IsConst(e), "Context::constant_value: not a constant");
  return impl_->Value(e);
}

const std::string& Context::symbol_name(Expr e) const {
  const Node& node = impl_->at(e);
  CheckInvariant(node.op == Op::kSymbol, "Context::symbol_name: not a symbol");
  return impl_->names[node.symbol];
}

std::span<const Expr> Context::operands(Expr e) const {
  const Node& node = impl_->at(e);
  return {node.operands.data(), static_cast<std::size_t>(Arity(node.op))};
}

bool Context::is_constant(Expr e, double value) const { return impl_->IsConst(e, value); }

bool Context::is_total(Expr e) const { return impl_->IsTotal(e); }

std::size_t Context::size() const { return impl_->nodes.size(); }

namespace {

// Rebuilds a node of kind `op` over new operands through the simplifying constructors.
Expr Rebuild(Context& c, Op op, std::span<const Expr> args) {
  if (op == Op::kSelect) return c.Select(args[0], args[1], args[2]);
  if (internal::IsUnary(op)) return c.Unary(op, args[0]);
  return c.Binary(op, args[0], args[1]);
}

}  // namespace

Expr Context::Import(const Context& from, Expr e) {
  const std::array<Expr, 1> roots = {e};
  std::unordered_map<std::uint32_t, Expr> copy;
  for (Expr node : internal::TopologicalOrder(from, roots)) {
    Expr result;
    switch (from.op(node)) {
      case Op::kConstant: result = Constant(from.constant_value(node)); break;
      case Op::kSymbol: result = Symbol(from.symbol_name(node)); break;
      default: {
        std::array<Expr, 3> args{};
        std::size_t n = 0;
        for (Expr operand : from.operands(node)) args[n++] = copy.at(operand.id);
        result = Rebuild(*this, from.op(node), std::span<const Expr>(args.data(), n));
      }
    }
    copy.emplace(node.id, result);
  }
  return copy.at(e.id);
}

Expr Context::Substitute(Expr e, std::span<const std::pair<Expr, Expr>> replacements) {
  std::unordered_map<std::uint32_t, Expr> replacement_of;
  for (const auto& [symbol, value] : replacements) {
    CheckInvariant(op(symbol) == Op::kSymbol, "Context::Substitute: replaced node is not a symbol");
    replacement_of[symbol.id] = value;
  }
  const std::array<Expr, 1> roots = {e};
  std::unordered_map<std::uint32_t, Expr> image;
  for (Expr node : internal::TopologicalOrder(*this, roots)) {
    Expr result = node;
    if (op(node) == Op::kSymbol) {
      auto it = replacement_of.find(node.id);
      if (it != replacement_of.end()) result = it->second;
    } else if (Arity(op(node)) > 0) {
      std::array<Expr, 3> args{};
      std::size_t n = 0;
      bool changed = false;
      for (Expr operand : operands(node)) {
        args[n] = image.at(operand.id);
        changed = changed || args[n] != operand;
        ++n;
      }
      if (changed) result = Rebuild(*this, op(node), std::span<const Expr>(args.data(), n));
    }
    image.emplace(node.id, result);
  }
  return image.at(e.id);
}

std::vector<Expr> Context::FreeSymbols(Expr e) const {
  // Depth-first, left operand first: the order in which the symbols appear in the text.
  std::vector<Expr> symbols;
  std::unordered_set<std::uint32_t> seen;
  std::vector<Expr> stack = {e};
  while (!stack.empty()) {
    const Expr node = stack.back();
    stack.pop_back();
    if (!seen.insert(node.id).second) continue;
    if (op(node) == Op::kSymbol) symbols.push_back(node);
    const std::span<const Expr> args = operands(node);
    for (auto it = args.rbegin(); it != args.rend(); ++it) {
      if (!seen.contains(it->id)) stack.push_back(*it);
    }
  }
  return symbols;
}

bool Context::DependsOn(Expr e, Expr symbol) const {
  const std::array<Expr, 1> roots = {e};
  for (Expr node : internal::TopologicalOrder(*this, roots)) {
    if (node == symbol) return true;
  }
  return false;
}

std::size_t Context::NodeCount(Expr e) const {
  const std::array<Expr, 1> roots = {e};
  return internal::TopologicalOrder(*this, roots).size();
}

std::size_t Context::Depth(Expr e) const {
  const std::array<Expr, 1> roots = {e};
  std::unordered_map<std::uint32_t, std::size_t> depth;
  for (Expr node : internal::TopologicalOrder(*this, roots)) {
    std::size_t d = 0;
    for (Expr operand : operands(node)) d = std::max(d, depth.at(operand.id));
    depth.emplace(node.id, d + 1);
  }
  return depth.at(e.id);
}

double Context::Evaluate(Expr e, const std::function<double(Expr symbol)>& value_of) const {
  const std::array<Expr, 1> roots = {e};
  std::unordered_map<std::uint32_t, double> value;
  for (Expr node : internal::TopologicalOrder(*this, roots)) {
    const Op kind = op(node);
    const std::span<const Expr> args = operands(node);
    auto arg = [&](std::size_t i) { return value.at(args[i].id); };
    double v = 0.0;
    if (kind == Op::kConstant) {
      v = constant_value(node);
    } else if (kind == Op::kSymbol) {
      v = value_of(node);
    } else if (kind == Op::kSelect) {
      v = ApplySelect(arg(0), arg(1), arg(2));
    } else if (args.size() == 1) {
      v = ApplyUnary(kind, arg(0));
    } else {
      v = ApplyBinary(kind, arg(0), arg(1));
    }
    value.emplace(node.id, v);
  }
  return value.at(e.id);
}

}  // namespace tether::expr
