#include "expr/native_code.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>
#include <vector>

#include "expr/ops.h"

#if defined(TETHER_HAVE_ASMJIT) && defined(__x86_64__) && defined(__linux__)
#define TETHER_NATIVE_X86_64 1
#include <asmjit/x86.h>
#endif

namespace tether::expr::internal {

#if TETHER_NATIVE_X86_64

namespace {

namespace x86 = asmjit::x86;
using Code = Program::Code;

// One runtime for the process, never destroyed: programs in static caches may outlive any
// destruction order. asmjit's allocator is not documented as thread-safe; the mutex is.
struct Runtime {
  asmjit::JitRuntime jit;
  std::mutex mutex;
};

Runtime& TheRuntime() {
  static Runtime* runtime = new Runtime;
  return *runtime;
}

// Records the first error the assembler reports (it then emits nothing more that matters).
class FirstError : public asmjit::ErrorHandler {
 public:
  void handleError(asmjit::Error error, const char*, asmjit::BaseEmitter*) override {
    if (error_ == asmjit::kErrorOk) error_ = error;
  }
  [[nodiscard]] bool failed() const { return error_ != asmjit::kErrorOk; }

 private:
  asmjit::Error error_ = asmjit::kErrorOk;
};

// Out-of-line calls for the operations whose meaning ops.h defines with branches on NaN:
// one definition, the interpreter's.
double CallSign(double x) { return SignOf(x); }
double CallMin(double a, double b) { return MinOf(a, b); }
double CallMax(double a, double b) { return MaxOf(a, b); }

using Unary = double (*)(double);
using Binary = double (*)(double, double);

Unary UnaryFunction(Code code) {
  switch (code) {
    case Code::kSin: return static_cast<Unary>(&std::sin);
    case Code::kCos: return static_cast<Unary>(&std::cos);
    case Code::kTan: return static_cast<Unary>(&std::tan);
    case Code::kAsin: return static_cast<Unary>(&std::asin);
    case Code::kAcos: return static_cast<Unary>(&std::acos);
    case Code::kAtan: return static_cast<Unary>(&std::atan);
    case Code::kSinh: return static_cast<Unary>(&std::sinh);
    case Code::kCosh: return static_cast<Unary>(&std::cosh);
    case Code::kTanh: return static_cast<Unary>(&std::tanh);
    case Code::kExp: return static_cast<Unary>(&std::exp);
    case Code::kLog: return static_cast<Unary>(&std::log);
    case Code::kSign: return &CallSign;
    case Code::kFloor: return static_cast<Unary>(&std::floor);
    default: return nullptr;
  }
}

Binary BinaryFunction(Code code) {
  switch (code) {
    case Code::kPow: return static_cast<Binary>(&std::pow);
    case Code::kAtan2: return static_cast<Binary>(&std::atan2);
    case Code::kMin: return &CallMin;
    case Code::kMax: return &CallMax;
    default: return nullptr;
  }
}

constexpr std::uint64_t kOneBits = 0x3FF0000000000000;  // 1.0
constexpr std::size_t kNever = std::numeric_limits<std::size_t>::max();
constexpr int kPoolSize = 14;  // xmm2 … xmm15 hold values; xmm0, xmm1 are scratch

// Where the value of each register is read next, from a backward scan: a register index is
// reused by liveness (a new value after its old one died), so "next read" is that of the value
// current at each point.
struct NextUses {
  std::vector<std::size_t> of_definition;            // per instruction: next read of its result
  std::vector<std::array<std::size_t, 3>> of_operand;  // per instruction and operand
  std::vector<bool> last_definition;                 // the register's final value (outputs)

  explicit NextUses(const Program& program) {
    const auto code = program.instructions();
    of_definition.resize(code.size());
    of_operand.resize(code.size());
    last_definition.resize(code.size());
    std::vector<std::size_t> next_read(program.initial_registers().size(), kNever);
    std::vector<bool> defined_later(program.initial_registers().size(), false);
    for (std::size_t i = code.size(); i-- > 0;) {
      const Program::Instruction& ins = code[i];
      of_definition[i] = next_read[ins.dst];
      last_definition[i] = !defined_later[ins.dst];
      defined_later[ins.dst] = true;
      next_read[ins.dst] = kNever;  // reads after i see this definition, not an older one
      const std::array<std::uint32_t, 3> operands = {ins.a, ins.b, ins.c};
      const auto n = static_cast<std::size_t>(Program::NumOperands(ins.code));
      for (std::size_t k = 0; k < n; ++k) of_operand[i][k] = next_read[operands[k]];
      for (std::size_t k = 0; k < n; ++k) next_read[operands[k]] = i;
    }
  }
};

// Emits the function NativeCode::Entry for one program. A program that calls a library
// function keeps its arrays in rbx = in, r12 = out, r13 = register file, and for a split
// program r14 = in_tail, r15 = out_tail (callee-saved, so they survive the calls, and pushed
// first). A program without calls (a stage's arithmetic) keeps them in caller-saved registers
// and touches no stack: pushes are stores, and a store whose address matches a heap input's
// in the low 12 bits makes the load after it wait (4K aliasing; bench/expr_vs_hand's step
// ran 1.1–1.7× slower on some stack layouts). Values computed by instructions live in
// xmm2 … xmm15 while they are needed; when the pool is full the value read furthest in the
// future is stored to its slot of the register file (Belady's choice, exact for straight-line
// code); a library call spills every live value (the System V ABI preserves no xmm register).
// Inputs, constants and spilled values are read from memory as operands. An output is stored
// to `out` where it is computed; outputs that are inputs or constants are copied at the end.
class Emitter {
 public:
  Emitter(const Program& program, x86::Assembler* a)
      : program_(program),
        a_(*a),
        uses_(program),
        split_(program.split().inputs < program.num_inputs() ||
               program.split().outputs < program.num_outputs()),
        leaf_(!CallsLibrary(program)),
        // rdi and rcx arrive with in and in_tail but serve `rep stosq`: the leaf moves them.
        in_(leaf_ ? x86::r9 : x86::rbx),
        out_(leaf_ ? x86::rsi : x86::r12),
        file_(leaf_ ? x86::rdx : x86::r13),
        in_tail_(leaf_ ? x86::r10 : x86::r14),
        out_tail_(leaf_ ? x86::r8 : x86::r15) {
    const std::size_t n = program.initial_registers().size();
    bound_.assign(n, -1);
    next_use_.assign(n, kNever);
    holder_.fill(kFree);
    outputs_of_.resize(n);
    const auto outputs = program.output_registers();
    for (std::size_t k = 0; k < outputs.size(); ++k) outputs_of_[outputs[k]].push_back(k);
  }

  void Emit() {
    if (!leaf_) {  // three or five pushes after the return address keep rsp 16-byte aligned
      a_.push(x86::rbx);
      a_.push(x86::r12);
      a_.push(x86::r13);
      if (split_) {
        a_.push(x86::r14);
        a_.push(x86::r15);
      }
    }
    Move(in_, x86::rdi);
    Move(out_, x86::rsi);
    Move(file_, x86::rdx);
    if (split_) {
      Move(in_tail_, x86::rcx);
      Move(out_tail_, x86::r8);
    }
    const auto code = program_.instructions();
    for (i_ = 0; i_ < code.size(); ++i_) Instruction(code[i_]);
    LeafOutputs();
    if (!leaf_) {
      if (split_) {
        a_.pop(x86::r15);
        a_.pop(x86::r14);
      }
      a_.pop(x86::r13);
      a_.pop(x86::r12);
      a_.pop(x86::rbx);
    }
    a_.ret();
    if (sign_masks_.isValid()) {  // SignBit's: the sign bit, and all bits but it
      a_.align(asmjit::AlignMode::kData, 16);
      a_.bind(sign_masks_);
      a_.embedUInt64(std::uint64_t{1} << 63);
      a_.embedUInt64(~(std::uint64_t{1} << 63));
    }
  }

  bool unsupported = false;  // an instruction code without a translation

 private:
  // Runs of at least this many equal constant outputs are written by `rep stosq` (its start-up
  // costs tens of cycles, one store per output costs one); a Jacobian's structural zeros make
  // most of a large program's outputs.
  static constexpr std::size_t kRepeatRun = 32;

  // Outputs that are inputs (copied as bits) or constants (written as immediates, equal
  // neighbours together).
  void LeafOutputs() {
    const auto outputs = program_.output_registers();
    const auto initial = program_.initial_registers();
    auto constant_bits = [&](std::size_t k, std::uint64_t* bits) {
      const std::uint32_t r = outputs[k];
      if (!IsLeaf(r) || r < program_.num_inputs()) return false;
      *bits = std::bit_cast<std::uint64_t>(initial[r]);
      return true;
    };
    a_.xorps(x86::xmm0, x86::xmm0);
    for (std::size_t k = 0; k < outputs.size();) {
      const std::uint32_t r = outputs[k];
      const x86::Mem to = Output(k);
      std::uint64_t bits = 0;
      if (!constant_bits(k, &bits)) {
        if (IsLeaf(r)) {  // an input (a computed output was stored where it was computed)
          a_.mov(x86::rax, Memory(r));
          a_.mov(to, x86::rax);
        }
        ++k;
        continue;
      }
      std::size_t run = 1;
      // A run stays on one side of the split (its stores address one array).
      const std::size_t end = k < program_.split().outputs ? program_.split().outputs
                                                           : outputs.size();
      for (std::uint64_t next = 0;
           k + run < end && constant_bits(k + run, &next) && next == bits;) {
        ++run;
      }
      if (run >= kRepeatRun) {
        a_.lea(x86::rdi, to);
        a_.mov(x86::ecx, static_cast<std::uint32_t>(run));
        a_.mov(x86::rax, bits);
        a_.rep().stosq();  // rcx times [rdi] ← rax, rdi += 8
      } else if (bits == 0) {  // pairs of zeros by one 16-byte store of xmm0 = 0
        for (std::size_t j = 0; j < run; j += 2) {
          x86::Mem at = Output(k + j);
          at.setSize(run - j >= 2 ? 16u : 8u);
          if (run - j >= 2) {
            a_.movups(at, x86::xmm0);
          } else {
            a_.mov(at, asmjit::imm(0));
          }
        }
      } else {
        for (std::size_t j = 0; j < run; ++j) {
          const x86::Mem at = Output(k + j);
          const auto low = static_cast<std::int64_t>(bits);
          if (low >= std::numeric_limits<std::int32_t>::min() &&
              low <= std::numeric_limits<std::int32_t>::max()) {
            a_.mov(at, asmjit::imm(low));  // sign-extended 32-bit immediate
          } else {
            a_.mov(x86::rax, bits);
            a_.mov(at, x86::rax);
          }
        }
      }
      k += run;
    }
  }

  static constexpr std::uint32_t kFree = 0xFFFFFFFF;

  void Move(const x86::Gp& to, const x86::Gp& from) {
    if (to != from) a_.mov(to, from);
  }

  static bool CallsLibrary(const Program& program) {
    for (const Program::Instruction& ins : program.instructions()) {
      if (UnaryFunction(ins.code) != nullptr || BinaryFunction(ins.code) != nullptr) return true;
    }
    return false;
  }

  static std::int32_t Offset(std::size_t slot) {
    return static_cast<std::int32_t>(8 * static_cast<std::int64_t>(slot));
  }
  static x86::Xmm Pool(int k) { return x86::xmm(static_cast<std::uint32_t>(2 + k)); }

  // Inputs and constants are never written by an instruction.
  bool IsLeaf(std::uint32_t r) const { return r < first_temporary_; }

  x86::Mem Memory(std::uint32_t r) const {
    const std::size_t head = program_.split().inputs;
    if (r < head) return x86::qword_ptr(in_, Offset(r));
    if (r < program_.num_inputs()) return x86::qword_ptr(in_tail_, Offset(r - head));
    return x86::qword_ptr(file_, Offset(r));
  }
  // Output k's place: out, or past the split out_tail.
  x86::Mem Output(std::size_t k) const {
    const std::size_t head = program_.split().outputs;
    return k < head ? x86::qword_ptr(out_, Offset(k))
                    : x86::qword_ptr(out_tail_, Offset(k - head));
  }

  // Calls f with the operand r as an xmm register if it holds r, else as its memory slot.
  template <typename F>
  void With(std::uint32_t r, F f) {
    if (bound_[r] >= 0) {
      f(Pool(bound_[r]));
    } else {
      f(Memory(r));
    }
  }

  // dst ← value of r (any operand kind).
  void Copy(const x86::Xmm& dst, std::uint32_t r) {
    if (bound_[r] >= 0) {
      if (Pool(bound_[r]).id() != dst.id()) a_.movapd(dst, Pool(bound_[r]));
    } else {
      a_.movsd(dst, Memory(r));
    }
  }

  void Unbind(std::uint32_t r) {
    if (bound_[r] < 0) return;
    holder_[static_cast<std::size_t>(bound_[r])] = kFree;
    bound_[r] = -1;
  }

  // Stores a computed value to its slot (it stays valid there: a register is written by one
  // instruction per value).
  void Spill(int k) {
    const std::uint32_t r = holder_[static_cast<std::size_t>(k)];
    a_.movsd(Memory(r), Pool(k));
    Unbind(r);
  }

  // A free pool register, evicting the value read furthest ahead; never one of `keep`.
  int Allocate(const std::array<std::uint32_t, 3>& keep, int num_keep) {
    int victim = -1;
    std::size_t furthest = 0;
    for (int k = 0; k < kPoolSize; ++k) {
      const std::uint32_t r = holder_[static_cast<std::size_t>(k)];
      if (r == kFree) return k;
      bool kept = false;
      for (int j = 0; j < num_keep; ++j) kept = kept || keep[static_cast<std::size_t>(j)] == r;
      if (!kept && (victim < 0 || next_use_[r] > furthest)) {
        victim = k;
        furthest = next_use_[r];
      }
    }
    Spill(victim);
    return victim;
  }

  void LoadOne(const x86::Xmm& dst) {
    a_.mov(x86::rax, kOneBits);
    a_.movq(dst, x86::rax);
  }

  // Flips or clears the sign bit of d by a mask read into scratch xmm0 from the data after the
  // code (bound by Emit): a round trip through a general register would add its two
  // transfers' latency, about six cycles, to every chain through a negation.
  void SignBit(const x86::Xmm& d, bool clear) {
    if (!sign_masks_.isValid()) sign_masks_ = a_.newLabel();
    a_.movsd(x86::xmm0, x86::qword_ptr(sign_masks_, clear ? 8 : 0));
    if (clear) {
      a_.andpd(d, x86::xmm0);
    } else {
      a_.xorpd(d, x86::xmm0);
    }
  }

  void Call(const void* function) {
    a_.mov(x86::rax, reinterpret_cast<std::uint64_t>(function));
    a_.call(x86::rax);
  }

  // d ← aⁿ by the interpreter's binary powering (PowInt in program.cc): the same products in
  // the same order; its first multiplication, 1·x, is exact and left out.
  void PowInt(const x86::Xmm& d, std::uint32_t a, std::int32_t n) {
    std::uint32_t k = static_cast<std::uint32_t>(n < 0 ? -n : n);
    if (k == 0) {
      LoadOne(d);
      return;
    }
    Copy(x86::xmm1, a);  // x
    bool have_result = false;
    while (k != 0) {
      if ((k & 1u) != 0) {
        if (have_result) {
          a_.mulsd(d, x86::xmm1);
        } else {
          a_.movapd(d, x86::xmm1);
          have_result = true;
        }
      }
      k >>= 1;
      if (k != 0) a_.mulsd(x86::xmm1, x86::xmm1);  // x ← x·x
    }
    if (n < 0) Reciprocal(d);
  }

  // d ← 1/d.
  void Reciprocal(const x86::Xmm& d) {
    LoadOne(x86::xmm1);
    a_.divsd(x86::xmm1, d);
    a_.movapd(d, x86::xmm1);
  }

  // Library call: arguments in xmm0 (and xmm1), every live value spilled first; the result
  // comes back in xmm0.
  void LibraryCall(const Program::Instruction& ins, const void* function, bool binary) {
    Copy(x86::xmm0, ins.a);
    if (binary) Copy(x86::xmm1, ins.b);
    for (int k = 0; k < kPoolSize; ++k) {
      const std::uint32_t r = holder_[static_cast<std::size_t>(k)];
      if (r == kFree) continue;
      const bool read_later = next_use_[r] != kNever && next_use_[r] != i_;
      const bool operand_read_later =
          (r == ins.a && uses_.of_operand[i_][0] != kNever) ||
          (binary && r == ins.b && uses_.of_operand[i_][1] != kNever);
      if (read_later || operand_read_later) {
        Spill(k);
      } else {
        Unbind(r);
      }
    }
    Call(function);
  }

  void Instruction(const Program::Instruction& ins) {
    const int n = Program::NumOperands(ins.code);
    const std::array<std::uint32_t, 3> operands = {ins.a, ins.b, ins.c};
    const auto& after = uses_.of_operand[i_];
    int d = -1;
    const Unary unary = UnaryFunction(ins.code);
    const Binary binary = BinaryFunction(ins.code);
    if (unary != nullptr || binary != nullptr) {
      LibraryCall(ins, unary != nullptr ? reinterpret_cast<const void*>(unary)
                                        : reinterpret_cast<const void*>(binary),
                  binary != nullptr);
      d = Allocate(operands, 0);  // the pool is empty after a call
      a_.movapd(Pool(d), x86::xmm0);
    } else {
      // The result may take a's register when a dies here and is not read again by this
      // instruction after d is first written (b or c equal to a; select reads all three).
      const bool a_dies = after[0] == kNever && bound_[ins.a] >= 0;
      const bool a_reread = (n >= 2 && ins.b == ins.a) || (n >= 3 && ins.c == ins.a) ||
                            ins.code == Code::kSelect;
      if (a_dies && !a_reread) {
        d = bound_[ins.a];  // released to the result below, once a has been read
      } else {
        d = Allocate(operands, n);
      }
      if (!Compute(ins, Pool(d))) {
        unsupported = true;
        return;
      }
    }
    // Operands read for the last time leave the pool (a's register, when the result took it,
    // passes to the result in Define).
    for (std::size_t k = 0; k < static_cast<std::size_t>(n); ++k) {
      const std::uint32_t r = operands[k];
      if (after[k] != kNever) {
        next_use_[r] = after[k];
      } else if (bound_[r] == d) {
        bound_[r] = -1;
      } else {
        Unbind(r);
      }
    }
    Define(ins.dst, d);
  }

  // The result of instruction i_ is in pool register d: bind it, store it to the outputs it
  // is (its register's final value), or free d when nothing reads it.
  void Define(std::uint32_t dst, int d) {
    Unbind(dst);  // an older value of the register, dead by construction
    if (uses_.last_definition[i_]) {
      for (std::size_t k : outputs_of_[dst]) {
        a_.movsd(Output(k), Pool(d));
      }
    }
    const std::size_t next = uses_.of_definition[i_];
    if (next == kNever) {
      holder_[static_cast<std::size_t>(d)] = kFree;
      return;
    }
    holder_[static_cast<std::size_t>(d)] = dst;
    bound_[dst] = d;
    next_use_[dst] = next;
  }

  // d ← code(a, b, c) for the operations computed inline; false for an unknown code.
  bool Compute(const Program::Instruction& ins, const x86::Xmm& d) {
    switch (ins.code) {
      case Code::kAdd:
        Copy(d, ins.a);
        With(ins.b, [&](const auto& b) { a_.addsd(d, b); });
        return true;
      case Code::kSub:
        Copy(d, ins.a);
        With(ins.b, [&](const auto& b) { a_.subsd(d, b); });
        return true;
      case Code::kMul:
        Copy(d, ins.a);
        With(ins.b, [&](const auto& b) { a_.mulsd(d, b); });
        return true;
      case Code::kDiv:
        Copy(d, ins.a);
        With(ins.b, [&](const auto& b) { a_.divsd(d, b); });
        return true;
      case Code::kNeg:
        Copy(d, ins.a);
        SignBit(d, /*clear=*/false);
        return true;
      case Code::kAbs:
        Copy(d, ins.a);
        SignBit(d, /*clear=*/true);
        return true;
      case Code::kSquare:
        Copy(d, ins.a);
        a_.mulsd(d, d);
        return true;
      case Code::kCube:  // (a·a)·a
        Copy(d, ins.a);
        a_.movapd(x86::xmm1, d);
        a_.mulsd(d, d);
        a_.mulsd(d, x86::xmm1);
        return true;
      case Code::kPowInt: PowInt(d, ins.a, static_cast<std::int32_t>(ins.c)); return true;
      case Code::kRecip:
        Copy(d, ins.a);
        Reciprocal(d);
        return true;
      case Code::kSqrt:
        With(ins.a, [&](const auto& a) { a_.sqrtsd(d, a); });
        return true;
      case Code::kRecipSqrt:
        With(ins.a, [&](const auto& a) { a_.sqrtsd(d, a); });
        Reciprocal(d);
        return true;
      case Code::kSelect: {  // a > 0 ? b : c; unordered (NaN) takes c, as `>` is false
        const asmjit::Label done = a_.newLabel();
        Copy(x86::xmm1, ins.a);
        a_.xorpd(x86::xmm0, x86::xmm0);
        a_.ucomisd(x86::xmm1, x86::xmm0);
        Copy(d, ins.c);  // moves leave the flags alone
        a_.jbe(done);
        Copy(d, ins.b);
        a_.bind(done);
        return true;
      }
      case Code::kMulAdd:
        Copy(d, ins.a);
        With(ins.b, [&](const auto& b) { a_.mulsd(d, b); });
        With(ins.c, [&](const auto& c) { a_.addsd(d, c); });
        return true;
      case Code::kMulSub:
        Copy(d, ins.a);
        With(ins.b, [&](const auto& b) { a_.mulsd(d, b); });
        With(ins.c, [&](const auto& c) { a_.subsd(d, c); });
        return true;
      case Code::kSubMul:
        Copy(d, ins.a);
        With(ins.b, [&](const auto& b) { a_.mulsd(d, b); });
        Copy(x86::xmm1, ins.c);
        a_.subsd(x86::xmm1, d);
        a_.movapd(d, x86::xmm1);
        return true;
      case Code::kNegMul:
        Copy(d, ins.a);
        With(ins.b, [&](const auto& b) { a_.mulsd(d, b); });
        SignBit(d, /*clear=*/false);
        return true;
      default: return false;
    }
  }

  const Program& program_;
  x86::Assembler& a_;
  NextUses uses_;
  bool split_;  // in_tail_ and out_tail_ are used
  bool leaf_;   // no library call: caller-saved registers, no stack
  x86::Gp in_, out_, file_, in_tail_, out_tail_;  // the arrays' base registers
  asmjit::Label sign_masks_;  // SignBit's two masks, once it is used
  std::uint32_t first_temporary_ = FirstTemporary(program_);
  std::size_t i_ = 0;                              // instruction being emitted
  std::vector<int> bound_;                         // register → pool index holding it, or −1
  std::vector<std::size_t> next_use_;              // register → next read of its current value
  std::array<std::uint32_t, kPoolSize> holder_{};  // pool index → register, or kFree
  std::vector<std::vector<std::size_t>> outputs_of_;  // register → the outputs reading it

  // Temporaries are the registers instructions write; everything below the first is a leaf.
  static std::uint32_t FirstTemporary(const Program& program) {
    auto first = static_cast<std::uint32_t>(program.initial_registers().size());
    for (const Program::Instruction& ins : program.instructions()) first = std::min(first, ins.dst);
    return first;
  }
};

}  // namespace

NativeCode::~NativeCode() {
  if (entry == nullptr) return;
  Runtime& runtime = TheRuntime();
  std::lock_guard<std::mutex> lock(runtime.mutex);
  runtime.jit.release(entry);
}

std::shared_ptr<const NativeCode> CompileNativeCode(const Program& program) {
  Runtime& runtime = TheRuntime();
  asmjit::CodeHolder holder;
  FirstError errors;
  if (holder.init(runtime.jit.environment()) != asmjit::kErrorOk) return nullptr;
  holder.setErrorHandler(&errors);
  x86::Assembler assembler(&holder);
  Emitter emitter(program, &assembler);
  emitter.Emit();
  if (errors.failed() || emitter.unsupported) return nullptr;
  auto code = std::make_shared<NativeCode>();
  code->bytes = holder.codeSize();
  std::lock_guard<std::mutex> lock(runtime.mutex);
  if (runtime.jit.add(&code->entry, &holder) != asmjit::kErrorOk) {
    code->entry = nullptr;
    return nullptr;
  }
  return code;
}

bool NativeCodeAvailable() { return true; }

#else  // no backend for this platform or build

NativeCode::~NativeCode() = default;

std::shared_ptr<const NativeCode> CompileNativeCode(const Program&) { return nullptr; }

bool NativeCodeAvailable() { return false; }

#endif

}  // namespace tether::expr::internal
