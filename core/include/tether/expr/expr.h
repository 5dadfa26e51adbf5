// Symbolic expressions: a hash-consed DAG with constant folding, simplification and exact
// symbolic differentiation. Every model equation in tether is an `Expr` in a `Context`.
//
// Structural sharing: a `Context` interns every node, so two structurally equal expressions
// have the same id and equality is `a == b`. Nodes are immutable; an `Expr` is a 32-bit handle
// valid only together with the `Context` that created it.
//
// IEEE 754 semantics survive simplification. Two parts:
//
// 1. Constant folding follows IEEE 754: every operation on constants becomes the constant it
//    evaluates to, non-finite results included (0/0 → NaN, 1/0 → inf, log(0) → −inf,
//    sqrt(−1) → NaN, 0·(1/0) → NaN, exp(1000) → inf). `Parse` refuses a text in which a
//    sub-expression folds to NaN or ±inf (a spec error at its column; see parse.h).
//
// 2. No rewrite turns an expression that can be NaN or infinite into a finite number that
//    IEEE evaluation of the original would not give. The rules that drop an operand e and
//    whose result IEEE evaluation contradicts when e is non-finite (0·e → 0, where 0·NaN and
//    0·inf are NaN; e − e → 0, where inf − inf is NaN) apply only when e is *total*: finite
//    whenever its symbols are finite. Total are finite constants, symbols (states, parameters
//    and t are finite: the steppers and the spec reader check them), and +, −, ·, negation,
//    sin, cos, atan, atan2, tanh, |·|, sign, min, max, Select and xⁿ (n a non-negative integer
//    constant) over total operands. Not total: / (x/0), log, sqrt, asin, acos, tan (domain),
//    exp, sinh, cosh and other powers (they overflow at moderate arguments). The overflow of +
//    and · on huge finite values is not tracked: every rule would otherwise be unusable.
//    Rules that need e ≠ 0 (0/e → 0, e/e → 1) are not applied at all: 0 is an ordinary value
//    of a total e; a constant divisor is folded instead. x⁰ → 1, 1ˣ → 1 and Select(c, p, p) → p
//    give IEEE's own value for every x and c (pow(NaN, 0) = pow(1, NaN) = 1, and NaN > 0 is
//    false), so they apply to any operand.
//
//    text                  result           why
//    0*x, x*0              0                x total
//    x - x                 0                x total
//    (x*y - y*x)*z + w     w                x·y total, and canonical order makes y·x the same node
//    0*sin(x)*y, 0*min(x,y), 0*select(x,y,z)   0   total operands
//    0*log(x)              0*log(x)         log(0) = −inf and 0·(−inf) is NaN: kept
//    0*(1/x), 0*sqrt(x)    kept             NaN at x = 0, resp. x < 0
//    log(x) - log(x)       kept             NaN for x < 0
//    0/x, x/x, log(x)/log(x)   kept         NaN at x = 0 (resp. x = 1)
//    0/(x-x)               NaN              x − x → 0, then 0/0 folds to NaN: a parse error
//    0*(1/0)               NaN              1/0 folds to inf: a parse error at '1/0'
//    x + 0, x*1, x/1, x^1, -(-x)   x        the value is x's, non-finite or not
//
// The other rewrites keep the value (non-finite or not) and only reshape:
//   0 + x → x, x − 0 → x, 0 − x → −x, 1·x → x, −1·x → −x, x / 1 → x, x^1 → x, −(−x) → x,
//   commutative operands of + and · put in a canonical order (constants first, then by id);
// and, to keep chains short: x + x → 2·x, a + (−b) → a − b, a − (−b) → a + b,
// x − c → (−c) + x, −(a − b) → b − a, negations pulled out of · and /, c₁·(c₂·x) → (c₁c₂)·x and
// c₁ + (c₂ + x) → (c₁+c₂) + x (only when the combined constant is finite), x·(1/y) → x/y,
// |−x| → |x|, ||x|| → |x|, sign(sign x) → sign x, min(x, x) → x, max(x, x) → x, Select of a
// constant condition → branch.
// The rewrites are idempotent: rebuilding a node from its own operands gives the same node,
// which is what lets `ToString` text parse back to the same id.
// Derivatives: `Diff` leaves out the terms whose factor is a structurally zero derivative
// (d/dx of log(y)·x is log(y), not log(y) + 0·x…): the function itself is evaluated wherever
// its derivative is, so a non-finite value it has stays visible there.
//
// Derivatives of the non-smooth functions (documented choice, used consistently):
//   d|x|/dx = sign(x) (0 at x = 0);   d sign(x)/dx = 0;
//   d min(a,b) = (a ≤ b ? da : db) = Select(a − b, db, da);
//   d max(a,b) = (a ≥ b ? da : db) = Select(b − a, db, da)   — one-sided at ties,
//   with the node `Select(c, p, q) = c > 0 ? p : q` (written `select(c, p, q)` in text).
//   min(a,b) itself is a ≤ b ? a : b and max(a,b) a ≥ b ? a : b; NaN operands propagate.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tether::expr {

// Node kinds. Unary functions take one operand, binary ones two, `kSelect` three.
enum class Op : std::uint8_t {
  kConstant,
  kSymbol,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kPow,
  kNeg,
  kSin,
  kCos,
  kTan,
  kAsin,
  kAcos,
  kAtan,
  kAtan2,
  kSinh,
  kCosh,
  kTanh,
  kExp,
  kLog,
  kSqrt,
  kAbs,
  kSign,
  kFloor,  // the largest integer ≤ x; its derivative is 0 (between its jumps)
  kMin,
  kMax,
  kSelect,  // Select(c, p, q) = c > 0 ? p : q
};

// Handle to a node of a `Context`. Default-constructed handles are invalid.
struct Expr {
  static constexpr std::uint32_t kInvalid = 0xffffffffu;
  std::uint32_t id = kInvalid;

  [[nodiscard]] bool valid() const { return id != kInvalid; }
  friend bool operator==(Expr a, Expr b) { return a.id == b.id; }
  friend bool operator!=(Expr a, Expr b) { return a.id != b.id; }
};

struct ExprHash {
  std::size_t operator()(Expr e) const { return e.id; }
};

// Owns the nodes. Not thread-safe for construction; const methods may be called concurrently.
// Not copyable (handles would be ambiguous); share it through std::shared_ptr.
class Context {
 public:
  Context();
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  Context(Context&&) noexcept;
  Context& operator=(Context&&) noexcept;

  // Leaves.
  Expr Constant(double value);
  // Returns the symbol for `name`, creating it on first use. Symbols are identified by name.
  Expr Symbol(std::string_view name);

  // Arithmetic with simplification (see file comment).
  Expr Add(Expr a, Expr b);
  Expr Sub(Expr a, Expr b);
  Expr Mul(Expr a, Expr b);
  Expr Div(Expr a, Expr b);
  Expr Pow(Expr base, Expr exponent);
  Expr Neg(Expr a);
  // Unary function (`op` in kSin … kFloor) or binary function (kAtan2, kMin, kMax).
  Expr Unary(Op op, Expr a);
  Expr Binary(Op op, Expr a, Expr b);
  Expr Select(Expr condition, Expr if_positive, Expr otherwise);

  // d e / d symbol, exact, simplified. `symbol` must be a symbol node (else abort). Each node
  // reachable from `e` is differentiated once (memoized within the call), iteratively, so the
  // cost is linear in NodeCount(e) and deep expressions cannot overflow the stack.
  Expr Diff(Expr e, Expr symbol);

  // Copies `e` (a node of another context) into this one, symbols matched by name. Lets a
  // consumer differentiate a shared, read-only model in a context of its own.
  Expr Import(const Context& from, Expr e);

  // Replaces symbols by expressions (all at once, not recursively in the replacements).
  Expr Substitute(Expr e, std::span<const std::pair<Expr, Expr>> replacements);

  // Node inspection.
  [[nodiscard]] Op op(Expr e) const;
  [[nodiscard]] double constant_value(Expr e) const;           // requires op(e) == kConstant
  [[nodiscard]] const std::string& symbol_name(Expr e) const;  // requires op(e) == kSymbol
  [[nodiscard]] std::span<const Expr> operands(Expr e) const;
  [[nodiscard]] bool is_constant(Expr e, double value) const;
  // Whether `e` is total: finite whenever its symbols are (file comment).
  [[nodiscard]] bool is_total(Expr e) const;
  [[nodiscard]] std::size_t size() const;  // number of interned nodes

  // Symbols that `e` depends on, in order of first appearance in the canonical form (the text
  // of ToString; the operand order of + and · is canonical, not that of a parsed text, whose
  // order ParseResult::names keeps).
  [[nodiscard]] std::vector<Expr> FreeSymbols(Expr e) const;
  [[nodiscard]] bool DependsOn(Expr e, Expr symbol) const;
  // Number of distinct nodes reachable from `e` and the longest path to a leaf.
  [[nodiscard]] std::size_t NodeCount(Expr e) const;
  [[nodiscard]] std::size_t Depth(Expr e) const;

  // Direct recursive evaluation, for tests and one-off values (the hot path is `Program`).
  // `value_of` gives the value of each symbol.
  [[nodiscard]] double Evaluate(Expr e, const std::function<double(Expr symbol)>& value_of) const;

  // Infix text that `Parse` reads back to the same expression (the same id in this context).
  // Constants are printed with max_digits10 significant digits, negative ones in parentheses;
  // non-finite constants print as (1/0), (-1/0), (0/0), which parse back to the same constants
  // with ParseOptions::non_finite_constants (and are refused without it).
  [[nodiscard]] std::string ToString(Expr e) const;
  // The same text cut after `max_length` characters, ending in "..." when cut. Use it for
  // messages: the text of a DAG is as long as its tree, which can be exponentially larger
  // than NodeCount(e) (d₂ = d₁·d₁, d₃ = d₂·d₂, …).
  [[nodiscard]] std::string ToString(Expr e, std::size_t max_length) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tether::expr
