// Compiled evaluation of many expressions at once: the hot path of every simulation.
//
// `Compile` flattens the DAG reachable from a list of outputs into a linear sequence of
// instructions over one register file [inputs | constants | temporaries]. Every node is
// computed once, however many outputs share it (common subexpressions across all outputs).
// Inputs are symbols bound to positions of an input array; constants are preloaded registers.
// `Evaluate` copies the inputs in, runs the instructions in one switch loop and copies the
// outputs out, with no allocation.
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
#include <span>
#include <string>
#include <vector>

#include "tether/expr/expr.h"

namespace tether::expr {

namespace internal {
class ProgramCompiler;  // program.cc
}  // namespace internal

class Program {
 public:
  Program() = default;

  // Evaluates all outputs. `in.size()` must equal `num_inputs()`, `out.size()` `num_outputs()`.
  // Not safe to call concurrently on one object (it owns its register file); copy it per thread.
  void Evaluate(std::span<const double> in, std::span<double> out);

  [[nodiscard]] std::size_t num_inputs() const { return num_inputs_; }
  [[nodiscard]] std::size_t num_outputs() const { return output_registers_.size(); }
  [[nodiscard]] std::size_t num_instructions() const { return code_.size(); }

  // Human-readable listing, for debugging and docs: a header line ("; 8 inputs r0..r7,
  // 16 registers, 14 instructions"), the constant registers ("r8 = 2"), one line per
  // instruction ("r11 = muladd r3, r12, r13") and one per output ("out[0] = r5").
  [[nodiscard]] std::string Disassemble() const;

 private:
  friend class internal::ProgramCompiler;

 public:
  // Instruction codes (program.cc): the operations of `Op` plus cheap forms of powers.
  enum class Code : std::uint8_t;

 private:
  struct Instruction {
    Code code;
    std::uint32_t dst;
    std::uint32_t a;
    std::uint32_t b;
    std::uint32_t c;
  };

  std::size_t num_inputs_ = 0;
  std::vector<Instruction> code_;
  std::vector<double> registers_;  // [inputs | constants | temporaries]
  std::vector<std::uint32_t> output_registers_;
};

// Compiles `outputs` as functions of `inputs` (symbol nodes; their order fixes the input
// array). A symbol reachable from an output but missing from `inputs` is a programming error
// (abort with a message): core/model guarantees every name is bound.
Program Compile(const Context& context, std::span<const Expr> outputs,
                std::span<const Expr> inputs);

}  // namespace tether::expr
