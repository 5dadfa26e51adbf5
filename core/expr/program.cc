#include "tether/expr/program.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <unordered_map>

#include "expr/ops.h"
#include "expr/traverse.h"

namespace tether::expr {

// Instruction codes: the operations of `Op` plus cheaper forms of common powers.
enum class Program::Code : std::uint8_t {
  kAdd, kSub, kMul, kDiv, kNeg,
  kSquare,     // a²  = a·a
  kCube,       // a³  = a·a·a
  kPowInt,     // aⁿ by repeated squaring, n = int32 in `c`
  kRecip,      // a⁻¹ = 1/a
  kSqrt,       // a^½ (and sqrt)
  kRecipSqrt,  // a^−½ = 1/√a
  kPow,
  kSin, kCos, kTan, kAsin, kAcos, kAtan, kAtan2, kSinh, kCosh, kTanh, kExp, kLog,
  kAbs, kSign, kMin, kMax, kSelect,
};

namespace {

void Fatal(const std::string& what) {
  std::fprintf(stderr, "tether::expr: %s\n", what.c_str());
  std::abort();
}

// Integer exponents up to this magnitude are evaluated by repeated squaring (at most
// 2·log₂(64) = 12 multiplications, each within half an ulp), beyond it by std::pow.
constexpr double kMaxIntegerExponent = 64.0;

}  // namespace

namespace {

using Code = Program::Code;

struct Lowered {
  Code code;
  std::array<Expr, 3> args{};  // operands actually read, in order
  std::size_t num_args = 0;
  std::int32_t immediate = 0;  // exponent of kPowInt
};

Code CodeOf(Op op) {
  switch (op) {
    case Op::kAdd: return Code::kAdd;
    case Op::kSub: return Code::kSub;
    case Op::kMul: return Code::kMul;
    case Op::kDiv: return Code::kDiv;
    case Op::kPow: return Code::kPow;
    case Op::kNeg: return Code::kNeg;
    case Op::kSin: return Code::kSin;
    case Op::kCos: return Code::kCos;
    case Op::kTan: return Code::kTan;
    case Op::kAsin: return Code::kAsin;
    case Op::kAcos: return Code::kAcos;
    case Op::kAtan: return Code::kAtan;
    case Op::kAtan2: return Code::kAtan2;
    case Op::kSinh: return Code::kSinh;
    case Op::kCosh: return Code::kCosh;
    case Op::kTanh: return Code::kTanh;
    case Op::kExp: return Code::kExp;
    case Op::kLog: return Code::kLog;
    case Op::kSqrt: return Code::kSqrt;
    case Op::kAbs: return Code::kAbs;
    case Op::kSign: return Code::kSign;
    case Op::kMin: return Code::kMin;
    case Op::kMax: return Code::kMax;
    case Op::kSelect: return Code::kSelect;
    default: break;
  }
  Fatal("Compile: a leaf node has no instruction");
  return Code::kAdd;
}

// The instruction for node `e`, with powers of constant exponent in their cheap forms.
Lowered Lower(const Context& context, Expr e) {
  const Op op = context.op(e);
  const std::span<const Expr> operands = context.operands(e);
  Lowered l{CodeOf(op)};
  for (Expr operand : operands) l.args[l.num_args++] = operand;
  if (op != Op::kPow || context.op(operands[1]) != Op::kConstant) return l;
  const double n = context.constant_value(operands[1]);
  l.num_args = 1;
  if (n == 2.0) {
    l.code = Code::kSquare;
  } else if (n == 3.0) {
    l.code = Code::kCube;
  } else if (n == -1.0) {
    l.code = Code::kRecip;
  } else if (n == 0.5) {
    l.code = Code::kSqrt;
  } else if (n == -0.5) {
    l.code = Code::kRecipSqrt;
  } else if (n == std::trunc(n) && std::fabs(n) <= kMaxIntegerExponent) {
    l.code = Code::kPowInt;
    l.immediate = static_cast<std::int32_t>(n);
  } else {
    l.num_args = 2;
  }
  return l;
}

// xⁿ for |n| ≤ kMaxIntegerExponent by binary powering.
inline double PowInt(double x, std::int32_t n) {
  std::uint32_t k = static_cast<std::uint32_t>(n < 0 ? -n : n);
  double result = 1.0;
  while (k != 0) {
    if ((k & 1u) != 0) result *= x;
    x *= x;
    k >>= 1;
  }
  return n < 0 ? 1.0 / result : result;
}

}  // namespace

Program Compile(const Context& context, std::span<const Expr> outputs,
                std::span<const Expr> inputs) {
  Program program;
  program.num_inputs_ = inputs.size();

  // Register of every leaf: inputs by position, then the constants that are read.
  std::unordered_map<std::uint32_t, std::uint32_t> register_of;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (context.op(inputs[i]) != Op::kSymbol) Fatal("Compile: input " + std::to_string(i) + " is not a symbol");
    register_of.try_emplace(inputs[i].id, static_cast<std::uint32_t>(i));
  }
  program.registers_.assign(inputs.size(), 0.0);
  auto leaf_register = [&](Expr e) -> std::uint32_t {
    auto it = register_of.find(e.id);
    if (it != register_of.end()) return it->second;
    if (context.op(e) == Op::kSymbol) {
      Fatal("Compile: symbol '" + context.symbol_name(e) + "' is not among the inputs");
    }
    const auto r = static_cast<std::uint32_t>(program.registers_.size());
    program.registers_.push_back(context.constant_value(e));
    register_of.emplace(e.id, r);
    return r;
  };

  // One instruction per operation node, operands before users.
  std::vector<Lowered> lowered;
  std::vector<Expr> lowered_node;
  for (Expr e : internal::TopologicalOrder(context, outputs)) {
    const Op op = context.op(e);
    if (op == Op::kSymbol || op == Op::kConstant) continue;
    lowered.push_back(Lower(context, e));
    lowered_node.push_back(e);
    for (std::size_t k = 0; k < lowered.back().num_args; ++k) {
      const Expr arg = lowered.back().args[k];
      const Op arg_op = context.op(arg);
      if (arg_op == Op::kSymbol || arg_op == Op::kConstant) leaf_register(arg);
    }
  }
  for (Expr e : outputs) {
    const Op op = context.op(e);
    if (op == Op::kSymbol || op == Op::kConstant) leaf_register(e);
  }

  // Liveness: the last instruction reading each temporary; outputs live to the end.
  constexpr std::size_t kForever = std::numeric_limits<std::size_t>::max();
  std::unordered_map<std::uint32_t, std::size_t> instruction_of;
  for (std::size_t i = 0; i < lowered.size(); ++i) instruction_of.emplace(lowered_node[i].id, i);
  std::vector<std::size_t> last_use(lowered.size(), 0);
  for (std::size_t i = 0; i < lowered.size(); ++i) {
    for (std::size_t k = 0; k < lowered[i].num_args; ++k) {
      auto it = instruction_of.find(lowered[i].args[k].id);
      if (it != instruction_of.end()) last_use[it->second] = i;
    }
  }
  for (Expr e : outputs) {
    auto it = instruction_of.find(e.id);
    if (it != instruction_of.end()) last_use[it->second] = kForever;
  }

  // Temporaries reuse the registers of values that are dead (a free list, last freed first
  // so that the working set stays small and in cache).
  const std::size_t first_temporary = program.registers_.size();
  std::size_t num_temporaries = 0;
  std::vector<std::uint32_t> free_registers;
  std::vector<std::uint32_t> temporary_register(lowered.size(), 0);
  program.code_.reserve(lowered.size());
  for (std::size_t i = 0; i < lowered.size(); ++i) {
    const Lowered& l = lowered[i];
    std::array<std::uint32_t, 3> reg{};
    for (std::size_t k = 0; k < l.num_args; ++k) {
      auto it = instruction_of.find(l.args[k].id);
      reg[k] = it == instruction_of.end() ? register_of.at(l.args[k].id) : temporary_register[it->second];
    }
    for (std::size_t k = 0; k < l.num_args; ++k) {
      auto it = instruction_of.find(l.args[k].id);
      const bool repeated = (k >= 1 && l.args[k] == l.args[0]) || (k == 2 && l.args[2] == l.args[1]);
      if (it != instruction_of.end() && last_use[it->second] == i && !repeated) {
        free_registers.push_back(reg[k]);
      }
    }
    std::uint32_t dst = 0;
    if (free_registers.empty()) {
      dst = static_cast<std::uint32_t>(first_temporary + num_temporaries++);
    } else {
      dst = free_registers.back();
      free_registers.pop_back();
    }
    temporary_register[i] = dst;
    const std::uint32_t c = l.code == Code::kPowInt ? static_cast<std::uint32_t>(l.immediate) : reg[2];
    program.code_.push_back({l.code, dst, reg[0], reg[1], c});
  }
  program.registers_.resize(first_temporary + num_temporaries, 0.0);

  for (Expr e : outputs) {
    auto it = instruction_of.find(e.id);
    program.output_registers_.push_back(it == instruction_of.end() ? register_of.at(e.id)
                                                                   : temporary_register[it->second]);
  }
  return program;
}

void Program::Evaluate(std::span<const double> in, std::span<double> out) {
  if (in.size() != num_inputs_ || out.size() != output_registers_.size()) {
    Fatal("Program::Evaluate: got " + std::to_string(in.size()) + " inputs and " +
          std::to_string(out.size()) + " outputs, expected " + std::to_string(num_inputs_) +
          " and " + std::to_string(output_registers_.size()));
  }
  double* r = registers_.data();
  for (std::size_t i = 0; i < in.size(); ++i) r[i] = in[i];
  using internal::ApplyUnary;
  for (const Instruction& ins : code_) {
    const double a = r[ins.a];
    double v;
    switch (ins.code) {
      case Code::kAdd: v = a + r[ins.b]; break;
      case Code::kSub: v = a - r[ins.b]; break;
      case Code::kMul: v = a * r[ins.b]; break;
      case Code::kDiv: v = a / r[ins.b]; break;
      case Code::kNeg: v = -a; break;
      case Code::kSquare: v = a * a; break;
      case Code::kCube: v = a * a * a; break;
      case Code::kPowInt: v = PowInt(a, static_cast<std::int32_t>(ins.c)); break;
      case Code::kRecip: v = 1.0 / a; break;
      case Code::kSqrt: v = std::sqrt(a); break;
      case Code::kRecipSqrt: v = 1.0 / std::sqrt(a); break;
      case Code::kPow: v = std::pow(a, r[ins.b]); break;
      case Code::kSin: v = std::sin(a); break;
      case Code::kCos: v = std::cos(a); break;
      case Code::kTan: v = std::tan(a); break;
      case Code::kAsin: v = std::asin(a); break;
      case Code::kAcos: v = std::acos(a); break;
      case Code::kAtan: v = std::atan(a); break;
      case Code::kAtan2: v = std::atan2(a, r[ins.b]); break;
      case Code::kSinh: v = std::sinh(a); break;
      case Code::kCosh: v = std::cosh(a); break;
      case Code::kTanh: v = std::tanh(a); break;
      case Code::kExp: v = std::exp(a); break;
      case Code::kLog: v = std::log(a); break;
      case Code::kAbs: v = std::fabs(a); break;
      case Code::kSign: v = internal::SignOf(a); break;
      case Code::kMin: v = internal::MinOf(a, r[ins.b]); break;
      case Code::kMax: v = internal::MaxOf(a, r[ins.b]); break;
      case Code::kSelect: v = a > 0.0 ? r[ins.b] : r[ins.c]; break;
      default: v = std::nan(""); break;
    }
    r[ins.dst] = v;
  }
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = r[output_registers_[k]];
}

std::string Program::Disassemble() const {
  static constexpr std::array<const char*, 29> kNames = {
      "add", "sub", "mul", "div", "neg", "square", "cube", "powi", "recip", "sqrt",
      "rsqrt", "pow", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh",
      "cosh", "tanh", "exp", "log", "abs", "sign", "min", "max", "select"};
  std::string text = "; " + std::to_string(num_inputs_) + " inputs r0..r" +
                     std::to_string(num_inputs_ == 0 ? 0 : num_inputs_ - 1) + ", " +
                     std::to_string(registers_.size()) + " registers, " +
                     std::to_string(code_.size()) + " instructions\n";
  std::unordered_map<std::uint32_t, bool> is_written;
  for (const Instruction& ins : code_) is_written[ins.dst] = true;
  for (std::size_t r = num_inputs_; r < registers_.size(); ++r) {
    if (is_written.contains(static_cast<std::uint32_t>(r))) continue;
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "r%zu = %.17g\n", r, registers_[r]);
    text += buffer;
  }
  for (const Instruction& ins : code_) {
    const auto code = static_cast<std::size_t>(ins.code);
    text += "r" + std::to_string(ins.dst) + " = " + kNames[code] + " r" + std::to_string(ins.a);
    switch (ins.code) {
      case Code::kPowInt: text += ", " + std::to_string(static_cast<std::int32_t>(ins.c)); break;
      case Code::kSelect: text += ", r" + std::to_string(ins.b) + ", r" + std::to_string(ins.c); break;
      case Code::kAdd: case Code::kSub: case Code::kMul: case Code::kDiv: case Code::kPow:
      case Code::kAtan2: case Code::kMin: case Code::kMax:
        text += ", r" + std::to_string(ins.b);
        break;
      default: break;
    }
    text += '\n';
  }
  for (std::size_t k = 0; k < output_registers_.size(); ++k) {
    text += "out[" + std::to_string(k) + "] = r" + std::to_string(output_registers_[k]) + '\n';
  }
  return text;
}

}  // namespace tether::expr
