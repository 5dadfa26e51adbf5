// Jets: the symbols that stand for a variable and its time derivatives, x, x', x'', …, and the
// one naming convention for them:
//
//   x^(0) = "x",   x^(1) = "der(x)",   x^(2) = "der(der(x))",   …
//
// `der(x)` is how a user writes x' in an implicit model (Modelica's spelling); higher jets nest
// it. The spelling is expr::DerivativeName's (tether/expr/parse.h), so the parser's der(x)
// (ParseOptions::derivatives) is exactly the jet symbol. A name containing '(' can never be an
// identifier of the expression grammar ([A-Za-z_][A-Za-z0-9_]*), so a jet symbol cannot
// collide with a variable or parameter name, and its printed text parses back to it.
#pragma once

#include <string>
#include <string_view>

#include "tether/expr/expr.h"

namespace tether::structure {

// Largest derivative order a jet name may carry. For a first-order system of n equations the
// offsets satisfy c_i ≤ n − 1 and d_j ≤ n (longest paths of weight ≤ 1 per edge, see the
// Σ-method), so reductions of up to kMaxJetOrder equations stay within it; the bound also
// keeps a hostile name from being parsed into an absurd order.
inline constexpr int kMaxJetOrder = 4096;

// "x" for order 0, "der(x)" for 1, "der(der(x))" for 2, …  Requires 0 ≤ order ≤ kMaxJetOrder.
std::string JetName(std::string_view variable, int order);

// The symbol JetName(variable, order) of `context`.
expr::Expr JetSymbol(expr::Context& context, std::string_view variable, int order);

// The inverse of JetName: "der(der(x))" → {"x", 2}; a name that is not of the form
// der(...) is {name, 0}. A malformed nesting ("der(x", "der()") is also order 0 with the whole
// text as the variable, which matches no variable.
struct JetNameParts {
  std::string_view variable;
  int order = 0;
};
JetNameParts SplitJetName(std::string_view name);

}  // namespace tether::structure
