#include "expr/functions.h"

#include <array>

namespace tether::expr::internal {
namespace {

// Sized by its entries (a fixed size would pad a forgotten line with an unnamed function).
constexpr auto kFunctions = std::to_array<FunctionInfo>({
    {"sin", Op::kSin, 1},       {"cos", Op::kCos, 1},   {"tan", Op::kTan, 1},
    {"asin", Op::kAsin, 1},     {"acos", Op::kAcos, 1}, {"atan", Op::kAtan, 1},
    {"atan2", Op::kAtan2, 2},   {"sinh", Op::kSinh, 1}, {"cosh", Op::kCosh, 1},
    {"tanh", Op::kTanh, 1},     {"exp", Op::kExp, 1},   {"log", Op::kLog, 1},
    {"sqrt", Op::kSqrt, 1},     {"abs", Op::kAbs, 1},   {"sign", Op::kSign, 1},
    {"floor", Op::kFloor, 1},   {"min", Op::kMin, 2},   {"max", Op::kMax, 2},
    {"pow", Op::kPow, 2},       {"mod", Op::kFloor, 2}, {"select", Op::kSelect, 3},
});

}  // namespace

std::span<const FunctionInfo> Functions() { return kFunctions; }

const FunctionInfo* FindFunction(std::string_view name) {
  for (const FunctionInfo& f : kFunctions) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string_view FunctionName(Op op) {
  if (op == Op::kPow) return {};
  for (const FunctionInfo& f : kFunctions) {
    if (f.op == op) return f.name;
  }
  return {};
}

}  // namespace tether::expr::internal
