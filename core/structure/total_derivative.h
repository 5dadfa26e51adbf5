// The total time derivative along jets (Pryce 2001, §2; Pantelides 1988, §2):
//
//   D e = ∂e/∂t + Σ_{j,k} ∂e/∂x_j^(k) · x_j^(k+1),
//
// the chain rule for d/dt e(t, x(t), x′(t), …) with every other symbol (a parameter) constant.
// The sum runs over the symbols e actually contains, so one D costs one expr::Context::Diff per
// free symbol of e, each linear in NodeCount(e).
//
// The tangent of a jet can be overridden: the trivial-equation substitution of
// tether/structure/implicit_dae.h sets (x_j)′ = e_j, so that D never produces x_j′ and its higher
// jets, which are eliminated; D applied to an expression free of eliminated jets then equals
// the substituted derivative, D(S e) = S(D e), because D(S x_j′) = D e_j = S x_j″ by the same
// rule, and so on up the chain.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "structure/signature_matrix.h"
#include "tether/expr/expr.h"

namespace tether::structure {

class TotalDerivative {
 public:
  // `jets` recognizes the jets of `variable_names` (same order); `time` is the symbol t.
  TotalDerivative(expr::Context& context, expr::Expr time, const JetIndex& jets,
                  std::vector<std::string> variable_names);

  // d symbol/dt: 1 for t, the next jet (or its override) for a jet, 0 for anything else.
  expr::Expr Tangent(expr::Expr symbol);
  // From now on the tangent of the jet `symbol` is `tangent`.
  void SetTangent(expr::Expr symbol, expr::Expr tangent);

  // D e.
  expr::Expr Apply(expr::Expr e);

 private:
  expr::Context* context_;
  expr::Expr time_;
  const JetIndex* jets_;
  std::vector<std::string> variable_names_;
  std::unordered_map<std::uint32_t, expr::Expr> override_;
};

}  // namespace tether::structure
