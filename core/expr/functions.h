// The function names of the expression language, shared by the parser and the printer.
#pragma once

#include <span>
#include <string_view>

#include "tether/expr/expr.h"

namespace tether::expr::internal {

struct FunctionInfo {
  std::string_view name;
  Op op;      // node built; `pow` builds kPow, `mod(a, b)` a − b·floor(a/b) (parse.h)
  int arity;  // number of arguments
};

// All callable functions, in the order they are documented in parse.h.
std::span<const FunctionInfo> Functions();

// The entry for `name`, or nullptr.
const FunctionInfo* FindFunction(std::string_view name);

// The name a node of kind `op` is printed with as a call (kSin → "sin"), or empty for the
// operators + - * / ^ and the leaves.
std::string_view FunctionName(Op op);

}  // namespace tether::expr::internal
