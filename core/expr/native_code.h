// Machine code for compiled programs: each Program's instruction list translated once, at
// Compile, into one x86-64 function, so that evaluation pays no dispatch and no decoding, and
// keeps intermediate values in registers.
//
// Backend: asmjit's x86::Assembler (Debian libasmjit-dev, a static library: nothing to ship at
// run time). Measured against LLVM 15's ORC LLJIT (IR in SSA form, default code generation
// for the host) with bench/native_code on 2 × AMD EPYC cores shared with other builds, one
// process, thread CPU time (bench/results/native_code.md is the record):
//
//                                           asmjit      LLVM ORC     interpreter
//   compile, catalog (14 models, 52 programs,  0.22 ms     216 ms       —
//     1589 instructions, all of them)
//   compile, 64-body chain (2 programs,        0.30 ms     45.8 s       —
//     3230 instructions, 41k outputs)
//   one evaluation of every catalog program    855 ns      631 ns       2870 ns
//   one evaluation of the 64-body chain's      5.9 µs      4.0 µs       16.5 µs
//     programs
//
// LLVM's code is 0.95–2.9× as fast per evaluation (it schedules across instructions), but its
// compile latency — 5–33 ms per catalog model, growing superlinearly with the length of a
// straight-line function — breaks the ≤ 20 ms first sample after RegisterModel, and it adds a
// 100 MB shared library to the image. asmjit compiles at ~0.1–0.2 µs per instruction, so native
// code costs nothing noticeable at registration. libgccjit was not measured: each compilation
// hands its assembly to the system assembler and linker, run as child processes.
//
// The function the backend emits, for the program's instructions in order:
//   values computed by instructions live in xmm2 … xmm15 while they are needed; when all are
//   taken the value read furthest ahead is stored to its slot of the register file (Belady's
//   choice, optimal for straight-line code); a library call stores every live value first
//   (the System V ABI preserves no xmm register). Inputs, constants and stored values are read
//   from memory as operands. Each operation is the SSE2 scalar instruction of the interpreter's
//   C++; library functions (sin, pow, …) are called through their addresses, the same
//   functions the interpreter calls. An output is stored to `out` where it is computed;
//   outputs that are inputs or constants are written at the end (runs of one constant, e.g. a
//   Jacobian's structural zeros, by `rep stosq`).
// With many constant outputs (a 64-body chain's Φ_q and M: 40k of 41k outputs) writing them is
// most of an evaluation; a caller that kept them between evaluations could skip that.
//
// Rounding contract: bit-identical to the interpreter (Program::Interpret) for every non-NaN
// result, because each instruction performs the same IEEE 754 operations in the same order:
// addsd/subsd/mulsd/divsd/sqrtsd are correctly rounded as the interpreter's compiled C++ is
// (no FMA contraction: muladd is mulsd then addsd, two roundings), negation and abs flip or
// clear the sign bit, powers by binary powering multiply in the interpreter's order, library
// calls go to the same functions, sign/min/max/select share ops.h's definitions. A NaN result
// is a NaN in both; its sign and payload may differ (sqrt of a negative number: sqrtsd's
// default NaN against the library's), which no caller observes (non-finite is checked by
// isfinite).
//
// Platform: x86-64 with the System V ABI (Linux). Elsewhere, or when asmjit is missing at
// build time, CompileNativeCode returns null and the interpreter runs.
#pragma once

#include <cstddef>
#include <memory>

#include "tether/expr/program.h"

namespace tether::expr::internal {

// One program's machine code, released when the last Program copy sharing it goes away.
struct NativeCode {
  // in, in_tail: the program's inputs, split where Program::split() says; out, out_tail: its
  // outputs, likewise (not overlapping the inputs: outputs are stored as they are computed);
  // registers: a copy of the program's register file (constants set), written as scratch.
  using Entry = Program::NativeEntry;

  NativeCode() = default;
  NativeCode(const NativeCode&) = delete;
  NativeCode& operator=(const NativeCode&) = delete;
  ~NativeCode();

  Entry entry = nullptr;
  std::size_t bytes = 0;
};

// Machine code for `program`, or null when the platform has no backend or emission failed.
std::shared_ptr<const NativeCode> CompileNativeCode(const Program& program);

// Whether this build has a backend for this platform.
bool NativeCodeAvailable();

}  // namespace tether::expr::internal
