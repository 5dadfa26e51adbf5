#include "tether/expr/program.h"

#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
#include <unordered_map>

#include "expr/invariant.h"
#include "expr/native_code.h"
#include "expr/ops.h"
#include "expr/traverse.h"

namespace tether::expr {

namespace {

using internal::Fatal;

// Integer exponents up to this magnitude are evaluated by binary powering (at most
// 2·log₂ 16 = 8 multiplications). Its relative error is at most (|n| − 1)·u to first order (a
// squaring doubles the relative error of its operand), so ≤ 15u here; larger exponents, rare
// in models, go to std::pow (within 1 ulp).
constexpr double kMaxIntegerExponent = 16.0;

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
    case Op::kFloor: return Code::kFloor;
    case Op::kMin: return Code::kMin;
    case Op::kMax: return Code::kMax;
    case Op::kSelect: return Code::kSelect;
    default: break;
  }
  Fatal("Compile: a leaf node has no instruction");
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

namespace internal {

// Builds a Program in four passes: lower every operation node to an instruction, fuse
// single-use products into the sum or negation that consumes them, give every leaf that is
// read a register, then allocate temporaries by liveness.
class ProgramCompiler {
 public:
  ProgramCompiler(const Context& context, std::span<const Expr> outputs,
                  std::span<const Expr> inputs)
      : context_(context), outputs_(outputs), inputs_(inputs) {}

  // The lowered instructions (fused ones removed) and the node each computes.
  void Lower() {
    for (Expr e : internal::TopologicalOrder(context_, outputs_)) {
      const Op op = context_.op(e);
      if (op == Op::kSymbol || op == Op::kConstant) continue;
      index_of_.emplace(e.id, lowered_.size());
      lowered_.push_back(Lowering{tether::expr::Lower(context_, e), e, 0, false});
    }
    for (const Lowering& l : lowered_) {
      for (std::size_t k = 0; k < l.code.num_args; ++k) CountUse(l.code.args[k]);
    }
    for (Expr e : outputs_) CountUse(e, /*is_output=*/true);
  }

  // a·b + c → MulAdd(a, b, c), a·b − c → MulSub, c − a·b → SubMul, −(a·b) → NegMul, when the
  // product is used only there: one dispatch instead of two, and the same roundings (the
  // product is rounded before the sum, as in the tree).
  void Fuse() {
    for (Lowering& l : lowered_) {
      Lowered& code = l.code;
      if (code.code == Code::kNeg) {
        if (Lowering* mul = FusableProduct(code.args[0])) {
          code = Lowered{Code::kNegMul, {mul->code.args[0], mul->code.args[1]}, 2};
          mul->fused = true;
        }
      } else if (code.code == Code::kAdd || code.code == Code::kSub) {
        const bool add = code.code == Code::kAdd;
        for (std::size_t k = 0; k < 2; ++k) {
          Lowering* mul = FusableProduct(code.args[k]);
          if (mul == nullptr) continue;
          const Code fused = add ? Code::kMulAdd : (k == 0 ? Code::kMulSub : Code::kSubMul);
          code = Lowered{fused, {mul->code.args[0], mul->code.args[1], code.args[1 - k]}, 3};
          mul->fused = true;
          break;
        }
      }
    }
  }

  Program Emit(Split split) {
    Program program;
    program.num_inputs_ = inputs_.size();
    program.split_ = split;
    program.registers_.assign(inputs_.size(), 0.0);
    for (std::size_t i = 0; i < inputs_.size(); ++i) {
      if (context_.op(inputs_[i]) != Op::kSymbol)
        Fatal("Compile: input " + std::to_string(i) + " is not a symbol");
      register_of_.try_emplace(inputs_[i].id, static_cast<std::uint32_t>(i));
    }
    std::vector<std::size_t> emitted;  // indices into lowered_ of the instructions kept
    for (std::size_t i = 0; i < lowered_.size(); ++i) {
      if (lowered_[i].fused) continue;
      emitted.push_back(i);
      for (std::size_t k = 0; k < lowered_[i].code.num_args; ++k)
        LeafRegister(lowered_[i].code.args[k], &program);
    }
    for (Expr e : outputs_) LeafRegister(e, &program);
    Allocate(emitted, &program);
    for (Expr e : outputs_) program.output_registers_.push_back(RegisterOf(e));
    return program;
  }

 private:
  struct Lowering {
    Lowered code;
    Expr node;
    int uses = 0;        // instructions and outputs reading the node
    bool fused = false;  // computed inside its only consumer instead
  };

  void CountUse(Expr e, bool is_output = false) {
    auto it = index_of_.find(e.id);
    if (it == index_of_.end()) return;
    // An output counts twice so that it is never fused away.
    lowered_[it->second].uses += is_output ? 2 : 1;
  }

  Lowering* FusableProduct(Expr e) {
    auto it = index_of_.find(e.id);
    if (it == index_of_.end()) return nullptr;
    Lowering& l = lowered_[it->second];
    return l.code.code == Code::kMul && l.uses == 1 && !l.fused ? &l : nullptr;
  }

  // Register of an input or constant, creating constant registers on first read.
  void LeafRegister(Expr e, Program* program) {
    const Op op = context_.op(e);
    if (op != Op::kSymbol && op != Op::kConstant) return;
    if (register_of_.contains(e.id)) return;
    if (op == Op::kSymbol)
      Fatal("Compile: symbol '" + context_.symbol_name(e) + "' is not among the inputs");
    register_of_.emplace(e.id, static_cast<std::uint32_t>(program->registers_.size()));
    program->registers_.push_back(context_.constant_value(e));
  }

  std::uint32_t RegisterOf(Expr e) const { return register_of_.at(e.id); }

  // Temporaries reuse the registers of dead values (a free list, last freed first, so that the
  // working set stays small and in cache). A value dies at its last reader; outputs never die.
  void Allocate(const std::vector<std::size_t>& emitted, Program* program) {
    constexpr std::size_t kForever = std::numeric_limits<std::size_t>::max();
    std::unordered_map<std::uint32_t, std::size_t> last_use;
    for (std::size_t i = 0; i < emitted.size(); ++i) {
      const Lowered& code = lowered_[emitted[i]].code;
      for (std::size_t k = 0; k < code.num_args; ++k) last_use[code.args[k].id] = i;
    }
    for (Expr e : outputs_) last_use[e.id] = kForever;
    const std::size_t first_temporary = program->registers_.size();
    std::size_t num_temporaries = 0;
    std::vector<std::uint32_t> free_registers;
    program->code_.reserve(emitted.size());
    for (std::size_t i = 0; i < emitted.size(); ++i) {
      const Lowering& l = lowered_[emitted[i]];
      std::array<std::uint32_t, 3> reg{};
      for (std::size_t k = 0; k < l.code.num_args; ++k) reg[k] = RegisterOf(l.code.args[k]);
      for (std::size_t k = 0; k < l.code.num_args; ++k) {
        const Expr arg = l.code.args[k];
        const bool repeated =
            (k >= 1 && arg == l.code.args[0]) || (k == 2 && arg == l.code.args[1]);
        if (!repeated && index_of_.contains(arg.id) && last_use.at(arg.id) == i) {
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
      register_of_.emplace(l.node.id, dst);
      const std::uint32_t c =
          l.code.code == Code::kPowInt ? static_cast<std::uint32_t>(l.code.immediate) : reg[2];
      program->code_.push_back({l.code.code, dst, reg[0], reg[1], c});
    }
    program->registers_.resize(first_temporary + num_temporaries, 0.0);
  }

  const Context& context_;
  std::span<const Expr> outputs_;
  std::span<const Expr> inputs_;
  std::vector<Lowering> lowered_;
  std::unordered_map<std::uint32_t, std::size_t> index_of_;       // node id → lowered_ index
  std::unordered_map<std::uint32_t, std::uint32_t> register_of_;  // node id → register
};

}  // namespace internal

namespace {

std::atomic<bool> native_code_enabled{internal::NativeCodeAvailable()};
std::atomic<std::uint64_t> native_compiled{0};
std::atomic<std::uint64_t> native_fallbacks{0};
std::atomic<std::uint64_t> native_bytes{0};

[[noreturn, gnu::noinline]] void FailSizes(const char* who, std::size_t num_in,
                                           std::size_t num_out, std::size_t inputs,
                                           std::size_t outputs) {
  Fatal(std::string(who) + ": got " + std::to_string(num_in) + " inputs and " +
        std::to_string(num_out) + " outputs, expected " + std::to_string(inputs) + " and " +
        std::to_string(outputs));
}

// The check of every evaluation, inlined; the message is built out of line.
inline void CheckSizes(const char* who, std::size_t num_in, std::size_t num_out,
                       std::size_t inputs, std::size_t outputs) {
  if (num_in != inputs || num_out != outputs) [[unlikely]] {
    FailSizes(who, num_in, num_out, inputs, outputs);
  }
}

}  // namespace

void SetNativeCodeEnabled(bool enabled) {
  native_code_enabled.store(enabled && internal::NativeCodeAvailable());
}

bool NativeCodeEnabled() { return native_code_enabled.load(); }

NativeCodeCounts GetNativeCodeCounts() {
  return {native_compiled.load(), native_fallbacks.load(), native_bytes.load()};
}

Program Compile(const Context& context, std::span<const Expr> outputs,
                std::span<const Expr> inputs) {
  return Compile(context, outputs, inputs, {.inputs = inputs.size(), .outputs = outputs.size()});
}

Program Compile(const Context& context, std::span<const Expr> outputs,
                std::span<const Expr> inputs, Split split) {
  if (split.inputs > inputs.size() || split.outputs > outputs.size()) {
    Fatal("Compile: split after input " + std::to_string(split.inputs) + " and output " +
          std::to_string(split.outputs) + " of " + std::to_string(inputs.size()) + " and " +
          std::to_string(outputs.size()));
  }
  internal::ProgramCompiler compiler(context, outputs, inputs);
  compiler.Lower();
  compiler.Fuse();
  Program program = compiler.Emit(split);
  // A program without instructions only copies; the interpreter's loop is as fast.
  if (NativeCodeEnabled() && program.num_instructions() > 0) program.AttachNativeCode();
  return program;
}

bool Program::AttachNativeCode() {
  if (native_ != nullptr || !internal::NativeCodeAvailable()) return native_ != nullptr;
  native_ = internal::CompileNativeCode(*this);
  entry_ = native_ != nullptr ? native_->entry : nullptr;
  if (native_ != nullptr) {
    native_compiled.fetch_add(1);
    native_bytes.fetch_add(native_->bytes);
  } else {
    native_fallbacks.fetch_add(1);
  }
  return native_ != nullptr;
}

void Program::Evaluate(std::span<const double> in, std::span<double> out) {
  CheckSizes("Program::Evaluate", in.size(), out.size(), num_inputs_, output_registers_.size());
  EvaluateParts(in.first(split_.inputs), in.subspan(split_.inputs), out.first(split_.outputs),
                out.subspan(split_.outputs));
}

void Program::Interpret(std::span<const double> in, std::span<double> out) {
  CheckSizes("Program::Evaluate", in.size(), out.size(), num_inputs_, output_registers_.size());
  InterpretParts(in.first(split_.inputs), in.subspan(split_.inputs), out.first(split_.outputs),
                 out.subspan(split_.outputs));
}

void Program::FailParts(std::size_t in, std::size_t in_tail, std::size_t out,
                        std::size_t out_tail) const {
  Fatal("Program::Evaluate: got " + std::to_string(in) + " + " + std::to_string(in_tail) +
        " inputs and " + std::to_string(out) + " + " + std::to_string(out_tail) +
        " outputs, expected " + std::to_string(split_.inputs) + " + " +
        std::to_string(num_inputs_ - split_.inputs) + " and " + std::to_string(split_.outputs) +
        " + " + std::to_string(num_outputs() - split_.outputs));
}

void Program::Interpret(std::span<const double> in, std::span<const double> in_tail,
                        std::span<double> out, std::span<double> out_tail) {
  if (!PartsFit(in, in_tail, out, out_tail)) [[unlikely]] {
    FailParts(in.size(), in_tail.size(), out.size(), out_tail.size());
  }
  InterpretParts(in, in_tail, out, out_tail);
}

void Program::InterpretParts(std::span<const double> in, std::span<const double> in_tail,
                             std::span<double> out, std::span<double> out_tail) {
  double* r = registers_.data();
  for (std::size_t i = 0; i < in.size(); ++i) r[i] = in[i];
  for (std::size_t i = 0; i < in_tail.size(); ++i) r[in.size() + i] = in_tail[i];
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
      case Code::kFloor: v = std::floor(a); break;
      case Code::kMin: v = internal::MinOf(a, r[ins.b]); break;
      case Code::kMax: v = internal::MaxOf(a, r[ins.b]); break;
      case Code::kSelect: v = a > 0.0 ? r[ins.b] : r[ins.c]; break;
      case Code::kMulAdd: v = a * r[ins.b] + r[ins.c]; break;
      case Code::kMulSub: v = a * r[ins.b] - r[ins.c]; break;
      case Code::kSubMul: v = r[ins.c] - a * r[ins.b]; break;
      case Code::kNegMul: v = -(a * r[ins.b]); break;
      default: __builtin_unreachable();  // Compile emits only the codes above
    }
    r[ins.dst] = v;
  }
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = r[output_registers_[k]];
  for (std::size_t k = 0; k < out_tail.size(); ++k) {
    out_tail[k] = r[output_registers_[out.size() + k]];
  }
}

int Program::NumOperands(Code code) {
  switch (code) {
    case Code::kSelect:
    case Code::kMulAdd:
    case Code::kMulSub:
    case Code::kSubMul: return 3;
    case Code::kAdd:
    case Code::kSub:
    case Code::kMul:
    case Code::kDiv:
    case Code::kPow:
    case Code::kAtan2:
    case Code::kMin:
    case Code::kMax:
    case Code::kNegMul: return 2;
    default: return 1;
  }
}

std::string Program::Disassemble() const {
  static constexpr auto kNames = std::to_array<const char*>({
      "add",   "sub",    "mul",    "div",    "neg",    "square", "cube", "powi", "recip",
      "sqrt",  "rsqrt",  "pow",    "sin",    "cos",    "tan",    "asin", "acos", "atan",
      "atan2", "sinh",   "cosh",   "tanh",   "exp",    "log",    "abs",  "sign", "floor",
      "min",   "max",    "select", "muladd", "mulsub", "submul", "negmul"});
  static_assert(kNames.size() == static_cast<std::size_t>(Code::kNegMul) + 1,
                "one name per instruction code, in Code's order (kNegMul is the last)");
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
    if (ins.code == Code::kPowInt) text += ", " + std::to_string(static_cast<std::int32_t>(ins.c));
    if (NumOperands(ins.code) >= 2) text += ", r" + std::to_string(ins.b);
    if (NumOperands(ins.code) == 3) text += ", r" + std::to_string(ins.c);
    text += '\n';
  }
  for (std::size_t k = 0; k < output_registers_.size(); ++k) {
    text += "out[" + std::to_string(k) + "] = r" + std::to_string(output_registers_[k]) + '\n';
  }
  return text;
}

}  // namespace tether::expr
