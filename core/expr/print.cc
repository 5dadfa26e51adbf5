// Context::ToString: infix text that Parse reads back to the same node.
//
// Sums with a constant print it last ("x - 2" rather than the canonical "(-2) + x").
// Parentheses are conservative: an operand is wrapped whenever its operator binds less
// tightly than its position requires, the right operand of − and / and every operand of ^
// are wrapped unless atomic, and negative constants are always wrapped, so that the text
// parses to the very same tree (which then interns to the same node).

#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "expr/functions.h"
#include "tether/expr/expr.h"

namespace tether::expr {
namespace {

// Binding strength of the text of a node, low to high.
enum Level : int { kSum = 1, kProduct = 2, kUnary = 3, kPower = 4, kAtom = 5 };

Level LevelOf(const Context& c, Expr e) {
  switch (c.op(e)) {
    case Op::kAdd:
    case Op::kSub: return kSum;
    case Op::kMul:
    case Op::kDiv: return kProduct;
    case Op::kNeg: return kUnary;
    case Op::kPow: return kPower;
    default: return kAtom;
  }
}

std::string FormatNumber(double value) {
  if (std::isnan(value)) return "(0/0)";
  if (std::isinf(value)) return value > 0 ? "(1/0)" : "(-1/0)";
  // max_digits10 significant digits read back to the same double.
  std::array<char, 64> buffer{};
  const auto result =
      std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, std::chars_format::general,
                    std::numeric_limits<double>::max_digits10);
  std::string text(buffer.data(), result.ptr);
  if (value < 0) return "(" + text + ")";
  return text;
}

// One step of the printing walk: either literal text or a node printed at a minimum level.
struct Task {
  const char* text = nullptr;
  Expr e;
  Level min_level = kSum;
  bool magnitude = false;  // print |constant| (after the sign of a sum)
};

}  // namespace

std::string Context::ToString(Expr e) const {
  return ToString(e, std::numeric_limits<std::size_t>::max());
}

std::string Context::ToString(Expr e, std::size_t max_length) const {
  std::string out;
  std::vector<Task> stack = {{nullptr, e, kSum}};
  // Tasks are pushed in reverse so that they pop in text order.
  auto push_all = [&stack](std::initializer_list<Task> tasks) {
    for (auto it = std::rbegin(tasks); it != std::rend(tasks); ++it) stack.push_back(*it);
  };
  while (!stack.empty()) {
    if (out.size() > max_length) {
      out.resize(max_length);
      return out + "...";
    }
    const Task task = stack.back();
    stack.pop_back();
    if (task.text != nullptr) {
      out += task.text;
      continue;
    }
    const Expr node = task.e;
    const Op kind = op(node);
    if (LevelOf(*this, node) < task.min_level) {
      push_all({{"(", {}, kSum}, {nullptr, node, kSum}, {")", {}, kSum}});
      continue;
    }
    const std::span<const Expr> args = operands(node);
    switch (kind) {
      case Op::kConstant:
        out += FormatNumber(task.magnitude ? std::fabs(constant_value(node)) : constant_value(node));
        break;
      case Op::kSymbol: out += symbol_name(node); break;
      case Op::kAdd:
        if (op(args[0]) == Op::kConstant && op(args[1]) != Op::kConstant) {
          // c + x prints as x + c or x − |c|, which parse back to it (x − c → (−c) + x).
          const char* sign = constant_value(args[0]) < 0 ? " - " : " + ";
          push_all({{nullptr, args[1], kSum}, {sign, {}, kSum}, {nullptr, args[0], kSum, true}});
          break;
        }
        push_all({{nullptr, args[0], kSum}, {" + ", {}, kSum}, {nullptr, args[1], kProduct}});
        break;
      case Op::kSub:
        push_all({{nullptr, args[0], kSum}, {" - ", {}, kSum}, {nullptr, args[1], kProduct}});
        break;
      case Op::kMul:
        push_all({{nullptr, args[0], kProduct}, {"*", {}, kSum}, {nullptr, args[1], kPower}});
        break;
      case Op::kDiv:
        push_all({{nullptr, args[0], kProduct}, {"/", {}, kSum}, {nullptr, args[1], kPower}});
        break;
      case Op::kNeg: push_all({{"-", {}, kSum}, {nullptr, args[0], kPower}}); break;
      case Op::kPow:
        push_all({{nullptr, args[0], kAtom}, {"^", {}, kSum}, {nullptr, args[1], kAtom}});
        break;
      default: {
        out += internal::FunctionName(kind);
        out += '(';
        std::vector<Task> call;
        for (std::size_t i = 0; i < args.size(); ++i) {
          if (i > 0) call.push_back({", ", {}, kSum});
          call.push_back({nullptr, args[i], kSum});
        }
        call.push_back({")", {}, kSum});
        for (auto it = call.rbegin(); it != call.rend(); ++it) stack.push_back(*it);
      }
    }
  }
  if (out.size() > max_length) {
    out.resize(max_length);
    return out + "...";
  }
  return out;
}

}  // namespace tether::expr
