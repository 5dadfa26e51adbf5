#include "native_code/llvm_backend.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/TargetSelect.h>

#include <cstdint>
#include <vector>

namespace tether::bench {

using Code = expr::Program::Code;

struct LlvmBackend::State {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  int next_id = 0;
};

LlvmBackend::LlvmBackend() : state_(std::make_unique<State>()) {}
LlvmBackend::~LlvmBackend() = default;

std::unique_ptr<LlvmBackend> LlvmBackend::Create(std::string* why) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit) {
    *why = llvm::toString(jit.takeError());
    return nullptr;
  }
  // libm's functions (sin, pow, …) resolve to the process' own, as the interpreter calls them.
  auto generator = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!generator) {
    *why = llvm::toString(generator.takeError());
    return nullptr;
  }
  (*jit)->getMainJITDylib().addGenerator(std::move(*generator));
  std::unique_ptr<LlvmBackend> backend(new LlvmBackend);
  backend->state_->jit = std::move(*jit);
  return backend;
}

namespace {

const char* LibraryName(Code code) {
  switch (code) {
    case Code::kSin: return "sin";
    case Code::kCos: return "cos";
    case Code::kTan: return "tan";
    case Code::kAsin: return "asin";
    case Code::kAcos: return "acos";
    case Code::kAtan: return "atan";
    case Code::kSinh: return "sinh";
    case Code::kCosh: return "cosh";
    case Code::kTanh: return "tanh";
    case Code::kExp: return "exp";
    case Code::kLog: return "log";
    case Code::kPow: return "pow";
    case Code::kAtan2: return "atan2";
    default: return nullptr;
  }
}

// Builds the IR of one program: registers become SSA values as the instructions define them.
class Translator {
 public:
  Translator(const expr::Program& program, llvm::Module* module, const std::string& name)
      : program_(program), module_(*module), context_(module->getContext()), b_(context_) {
    double_ = b_.getDoubleTy();
    llvm::Type* ptr = b_.getPtrTy();
    auto* type = llvm::FunctionType::get(b_.getVoidTy(), {ptr, ptr, ptr}, false);
    function_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, module_);
    b_.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", function_));
    in_ = function_->getArg(0);
    out_ = function_->getArg(1);
    const auto initial = program.initial_registers();
    values_.resize(initial.size(), nullptr);
    for (std::size_t r = program.num_inputs(); r < initial.size(); ++r) {
      values_[r] = llvm::ConstantFP::get(double_, initial[r]);
    }
  }

  void Translate() {
    for (const expr::Program::Instruction& ins : program_.instructions()) {
      values_[ins.dst] = Instruction(ins);
    }
    const auto outputs = program_.output_registers();
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      b_.CreateStore(Value(outputs[k]), b_.CreateConstInBoundsGEP1_64(double_, out_, k));
    }
    b_.CreateRetVoid();
  }

 private:
  llvm::Value* Value(std::uint32_t r) {
    if (values_[r] == nullptr) {  // an input, loaded once where it is first read
      values_[r] = b_.CreateLoad(double_, b_.CreateConstInBoundsGEP1_64(double_, in_, r));
    }
    return values_[r];
  }

  llvm::Value* One() { return llvm::ConstantFP::get(double_, 1.0); }
  llvm::Value* Zero() { return llvm::ConstantFP::get(double_, 0.0); }

  llvm::Value* Call(const char* name, std::vector<llvm::Value*> args) {
    std::vector<llvm::Type*> types(args.size(), double_);
    llvm::FunctionCallee f =
        module_.getOrInsertFunction(name, llvm::FunctionType::get(double_, types, false));
    return b_.CreateCall(f, args);
  }

  llvm::Value* PowInt(llvm::Value* x, std::int32_t n) {
    std::uint32_t k = static_cast<std::uint32_t>(n < 0 ? -n : n);
    llvm::Value* result = nullptr;
    while (k != 0) {
      if ((k & 1u) != 0) result = result == nullptr ? x : b_.CreateFMul(result, x);
      k >>= 1;
      if (k != 0) x = b_.CreateFMul(x, x);
    }
    if (result == nullptr) return One();
    return n < 0 ? b_.CreateFDiv(One(), result) : result;
  }

  llvm::Value* Instruction(const expr::Program::Instruction& ins) {
    llvm::Value* a = Value(ins.a);
    auto b = [&] { return Value(ins.b); };
    auto c = [&] { return Value(ins.c); };
    switch (ins.code) {
      case Code::kAdd: return b_.CreateFAdd(a, b());
      case Code::kSub: return b_.CreateFSub(a, b());
      case Code::kMul: return b_.CreateFMul(a, b());
      case Code::kDiv: return b_.CreateFDiv(a, b());
      case Code::kNeg: return b_.CreateFNeg(a);
      case Code::kSquare: return b_.CreateFMul(a, a);
      case Code::kCube: return b_.CreateFMul(b_.CreateFMul(a, a), a);
      case Code::kPowInt: return PowInt(a, static_cast<std::int32_t>(ins.c));
      case Code::kRecip: return b_.CreateFDiv(One(), a);
      case Code::kSqrt: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, a);
      case Code::kRecipSqrt:
        return b_.CreateFDiv(One(), b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, a));
      case Code::kAbs: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a);
      case Code::kSign:  // ops.h: 1 if a > 0, −1 if a < 0, else a (±0, NaN)
        return b_.CreateSelect(b_.CreateFCmpOGT(a, Zero()), One(),
                               b_.CreateSelect(b_.CreateFCmpOLT(a, Zero()),
                                               llvm::ConstantFP::get(double_, -1.0), a));
      case Code::kFloor: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, a);
      case Code::kMin:  // ops.h: (a ≤ b or a NaN) ? a : b
        return b_.CreateSelect(b_.CreateOr(b_.CreateFCmpOLE(a, b()), b_.CreateFCmpUNO(a, a)), a,
                               b());
      case Code::kMax:
        return b_.CreateSelect(b_.CreateOr(b_.CreateFCmpOGE(a, b()), b_.CreateFCmpUNO(a, a)), a,
                               b());
      case Code::kSelect: return b_.CreateSelect(b_.CreateFCmpOGT(a, Zero()), b(), c());
      case Code::kMulAdd: return b_.CreateFAdd(b_.CreateFMul(a, b()), c());
      case Code::kMulSub: return b_.CreateFSub(b_.CreateFMul(a, b()), c());
      case Code::kSubMul: return b_.CreateFSub(c(), b_.CreateFMul(a, b()));
      case Code::kNegMul: return b_.CreateFNeg(b_.CreateFMul(a, b()));
      case Code::kPow:
      case Code::kAtan2: return Call(LibraryName(ins.code), {a, b()});
      default: return Call(LibraryName(ins.code), {a});
    }
  }

  const expr::Program& program_;
  llvm::Module& module_;
  llvm::LLVMContext& context_;
  llvm::IRBuilder<> b_;
  llvm::Type* double_ = nullptr;
  llvm::Function* function_ = nullptr;
  llvm::Value* in_ = nullptr;
  llvm::Value* out_ = nullptr;
  std::vector<llvm::Value*> values_;
};

}  // namespace

LlvmBackend::Entry LlvmBackend::Compile(const expr::Program& program, std::string* why) {
  const std::string name = "program" + std::to_string(state_->next_id++);
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>(name, *context);
  module->setDataLayout(state_->jit->getDataLayout());
  Translator(program, module.get(), name).Translate();
  if (llvm::verifyModule(*module, nullptr)) {
    *why = "the IR of " + name + " does not verify";
    return nullptr;
  }
  llvm::Error added = state_->jit->addIRModule(
      llvm::orc::ThreadSafeModule(std::move(module), std::move(context)));
  if (added) {
    *why = llvm::toString(std::move(added));
    return nullptr;
  }
  auto symbol = state_->jit->lookup(name);  // compiles the module
  if (!symbol) {
    *why = llvm::toString(symbol.takeError());
    return nullptr;
  }
  return symbol->toPtr<Entry>();
}

}  // namespace tether::bench
