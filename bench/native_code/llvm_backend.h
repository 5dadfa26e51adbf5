// LLVM 15's ORC LLJIT as the second native-code backend measured against asmjit (the one
// tether ships, core/expr/native_code.h). Each Program becomes one IR function
// void f(const double* in, double* out, double* registers) in SSA form (one value per
// instruction, no memory traffic for temporaries), compiled by LLJIT's default code generator
// (CodeGenOpt::Default) for the host CPU. The IR carries no fast-math flags, so no FMA
// contraction: the same roundings as the interpreter (the bench counts the outputs that differ).
#pragma once

#include <memory>
#include <string>

#include "tether/expr/program.h"

namespace tether::bench {

class LlvmBackend {
 public:
  using Entry = void (*)(const double* in, double* out, double* registers);

  // The JIT for this process (native target initialised once), or null with the reason.
  static std::unique_ptr<LlvmBackend> Create(std::string* why);
  ~LlvmBackend();

  // Translates, compiles and links `program`; null with the reason on failure. The code lives
  // as long as the backend.
  Entry Compile(const expr::Program& program, std::string* why);

 private:
  LlvmBackend();
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace tether::bench
