// Compiled evaluation of many expressions at once: the hot path of every simulation.
//
// `Compile` flattens the DAG reachable from a list of outputs into a linear sequence of
// instructions over one register file [inputs | constants | temporaries]. Every node is
// computed once, however many outputs share it (common subexpressions across all outputs).
// Inputs are symbols bound to positions of an input array; constants are preloaded registers.
// `Evaluate` runs the program's machine code when it has some (compiled with it, once:
// core/expr/native_code.h), else `Interpret`, which copies the inputs in, runs the
// instructions in one switch loop and copies the outputs out. Both give the same bits and
// neither allocates.
//
// What Compile does to make the loop short (none of it changes a result bit, except powers):
//   - powers with a constant exponent take cheap forms: x² = x·x, x³ = x·x·x, xⁿ for integer
//     |n| ≤ 16 by binary powering (relative error ≤ (|n| − 1)·u, u = 2⁻⁵³), x⁻¹ = 1/x, x^½ = √x,
//     x^−½ = 1/√x; other exponents call std::pow;
//   - a product used only by one sum, difference or negation is fused into it (a·b + c,
//     a·b − c, c − a·b, −(a·b) are one instruction each, rounded as two operations);
//   - temporaries are allocated by liveness, so the register file stays small.
// An output that is directly an input or a constant reads that register.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tether/expr/expr.h"

namespace tether::expr {

namespace internal {
class ProgramCompiler;  // program.cc
struct NativeCode;      // native_code.h
}  // namespace internal

// Where a program's input and output arrays break in two (the four-array Program::Evaluate):
// inputs [0, inputs) come from one array and the rest from another; outputs likewise. A caller
// whose values already sit in two places (a stepper's stage vector as the states; time and
// parameters elsewhere) then copies nothing in or out.
struct Split {
  std::size_t inputs = 0;
  std::size_t outputs = 0;
};

class Program {
 public:
  // The machine code's entry: in, out, registers, in_tail, out_tail (native_code.h).
  using NativeEntry = void (*)(const double*, double*, double*, const double*, double*);

  // Instruction codes: the operations of `Op` plus cheap forms of powers and fused products.
  // The interpreter (program.cc) and the native code (core/expr/native_code.h) give each the
  // same meaning, operation by operation.
  enum class Code : std::uint8_t {
    kAdd,
    kSub,
    kMul,
    kDiv,
    kNeg,
    kSquare,     // a²  = a·a
    kCube,       // a³  = (a·a)·a
    kPowInt,     // aⁿ by binary powering, n = int32 in `c`
    kRecip,      // a⁻¹ = 1/a
    kSqrt,       // a^½ (and sqrt)
    kRecipSqrt,  // a^−½ = 1/√a
    kPow,
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
    kAbs,
    kSign,
    kFloor,
    kMin,
    kMax,
    kSelect,  // a > 0 ? b : c
    kMulAdd,  // a·b + c
    kMulSub,  // a·b − c
    kSubMul,  // c − a·b
    kNegMul,  // −(a·b)
  };

  // Registers an instruction of `code` reads: a; a, b; or a, b, c (kPowInt's `c` is its
  // exponent, not a register).
  static int NumOperands(Code code);

  // r[dst] ← code(r[a], r[b], r[c]); operands a code does not read are 0.
  struct Instruction {
    Code code;
    std::uint32_t dst;
    std::uint32_t a;
    std::uint32_t b;
    std::uint32_t c;
  };

  Program() = default;

  // Evaluates all outputs, with the native code when there is some (see NativeCodeEnabled),
  // else with the interpreter. `in.size()` must equal `num_inputs()`, `out.size()`
  // `num_outputs()`. Not safe to call concurrently on one object (it owns its register file);
  // copy it per thread (copies share the native code, which is read-only).
  void Evaluate(std::span<const double> in, std::span<double> out);
  // The same with the inputs and outputs in two arrays each, broken where split() says: `in`
  // holds the first split().inputs inputs and `in_tail` the rest, `out` receives the first
  // split().outputs outputs and `out_tail` the rest. Arrays may be anywhere; where an output
  // array overlaps an input array the interpreter runs (the native code stores outputs as it
  // computes them). Inline: it is a stage's whole call overhead.
  [[gnu::always_inline]] void Evaluate(std::span<const double> in,
                                       std::span<const double> in_tail, std::span<double> out,
                                       std::span<double> out_tail) {
    if (!PartsFit(in, in_tail, out, out_tail)) [[unlikely]] {
      FailParts(in.size(), in_tail.size(), out.size(), out_tail.size());
    }
    EvaluateParts(in, in_tail, out, out_tail);
  }

  // Evaluates with the switch interpreter whatever native code exists: the reference the
  // native code is tested against. Same contract as Evaluate.
  void Interpret(std::span<const double> in, std::span<double> out);
  void Interpret(std::span<const double> in, std::span<const double> in_tail,
                 std::span<double> out, std::span<double> out_tail);

  [[nodiscard]] std::size_t num_inputs() const { return num_inputs_; }
  [[nodiscard]] std::size_t num_outputs() const { return output_registers_.size(); }
  [[nodiscard]] std::size_t num_instructions() const { return code_.size(); }
  // Where the arrays break (Compile's `split`; else after the last input and output).
  [[nodiscard]] Split split() const { return split_; }
  // True when Evaluate runs machine code compiled for this program.
  [[nodiscard]] bool has_native_code() const { return native_ != nullptr; }
  // Compiles this program's native code now, unless it has some or the platform has no
  // backend; Compile calls it when NativeCodeEnabled(). Counted in GetNativeCodeCounts (a
  // failure as a fallback). Returns has_native_code().
  bool AttachNativeCode();

  // The compiled form, for code generators: instructions in execution order over the register
  // file [inputs | constants | temporaries], whose initial values (constants set, the rest 0)
  // `initial_registers` gives, and the register each output reads.
  [[nodiscard]] std::span<const Instruction> instructions() const { return code_; }
  [[nodiscard]] std::span<const double> initial_registers() const { return registers_; }
  [[nodiscard]] std::span<const std::uint32_t> output_registers() const {
    return output_registers_;
  }

  // Human-readable listing, for debugging and docs: a header line ("; 8 inputs r0..r7,
  // 16 registers, 14 instructions"), the constant registers ("r8 = 2"), one line per
  // instruction ("r11 = muladd r3, r12, r13") and one per output ("out[0] = r5").
  [[nodiscard]] std::string Disassemble() const;

 private:
  friend class internal::ProgramCompiler;

  // Evaluate and Interpret on arrays already checked against the split.
  [[gnu::always_inline]] void EvaluateParts(std::span<const double> in,
                                            std::span<const double> in_tail,
                                            std::span<double> out, std::span<double> out_tail) {
    // The native code stores each output as soon as it is computed, so outputs that overlap
    // inputs take the interpreter, which reads every input first.
    if (entry_ == nullptr || (Overlap(in, out) | Overlap(in, out_tail) | Overlap(in_tail, out) |
                              Overlap(in_tail, out_tail))) {
      InterpretParts(in, in_tail, out, out_tail);
      return;
    }
    entry_(in.data(), out.data(), registers_.data(), in_tail.data(), out_tail.data());
  }
  void InterpretParts(std::span<const double> in, std::span<const double> in_tail,
                      std::span<double> out, std::span<double> out_tail);

  // Compared without branches (one per evaluation instead of four).
  [[nodiscard]] bool PartsFit(std::span<const double> in, std::span<const double> in_tail,
                              std::span<double> out, std::span<double> out_tail) const {
    return (in.size() == split_.inputs) & (in_tail.size() == num_inputs_ - split_.inputs) &
           (out.size() == split_.outputs) & (out_tail.size() == num_outputs() - split_.outputs);
  }
  // Aborts with the sizes (a programming error): four arrays not of the split's sizes.
  [[noreturn]] void FailParts(std::size_t in, std::size_t in_tail, std::size_t out,
                              std::size_t out_tail) const;
  // Whether two arrays share memory (empty ones share none), without branches.
  static bool Overlap(std::span<const double> a, std::span<const double> b) {
    const auto a_begin = reinterpret_cast<std::uintptr_t>(a.data());
    const auto b_begin = reinterpret_cast<std::uintptr_t>(b.data());
    return (a_begin < b_begin + b.size_bytes()) & (b_begin < a_begin + a.size_bytes()) &
           !a.empty() & !b.empty();
  }

  std::size_t num_inputs_ = 0;
  Split split_;
  std::vector<Instruction> code_;
  std::vector<double> registers_;  // [inputs | constants | temporaries]
  std::vector<std::uint32_t> output_registers_;
  std::shared_ptr<const internal::NativeCode> native_;  // null: interpret
  NativeEntry entry_ = nullptr;                          // native_'s entry, or null
};

// Native code for compiled programs (core/expr/native_code.h has the backend, its measurement
// and its rounding contract). Process-wide: Compile consults it, so set it before the first
// model is built (server start-up); programs already compiled keep what they have.
// Default: on where the platform has a backend (x86-64 System V), off elsewhere.
void SetNativeCodeEnabled(bool enabled);
[[nodiscard]] bool NativeCodeEnabled();

// What Compile did about native code since the process started.
struct NativeCodeCounts {
  std::uint64_t compiled = 0;   // programs given native code
  std::uint64_t fallbacks = 0;  // programs left to the interpreter although native code was on
                                // (the backend failed: out of executable memory, an error)
  std::uint64_t code_bytes = 0;  // machine code emitted, bytes
};
[[nodiscard]] NativeCodeCounts GetNativeCodeCounts();

// Compiles `outputs` as functions of `inputs` (symbol nodes; their order fixes the input
// array). A symbol reachable from an output but missing from `inputs` is a programming error
// (abort with a message): core/model guarantees every name is bound.
Program Compile(const Context& context, std::span<const Expr> outputs,
                std::span<const Expr> inputs);
// The same, with the input and output arrays broken where `split` says (the four-array
// Evaluate); split.inputs ≤ inputs.size() and split.outputs ≤ outputs.size(), else abort.
Program Compile(const Context& context, std::span<const Expr> outputs,
                std::span<const Expr> inputs, Split split);

}  // namespace tether::expr
