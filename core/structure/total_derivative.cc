#include "structure/total_derivative.h"

#include <optional>
#include <utility>

#include "tether/structure/jets.h"

namespace tether::structure {

TotalDerivative::TotalDerivative(expr::Context& context, expr::Expr time, const JetIndex& jets,
                                 std::vector<std::string> variable_names)
    : context_(&context), time_(time), jets_(&jets), variable_names_(std::move(variable_names)) {}

expr::Expr TotalDerivative::Tangent(expr::Expr symbol) {
  if (symbol == time_) return context_->Constant(1.0);
  if (auto it = override_.find(symbol.id); it != override_.end()) return it->second;
  if (std::optional<JetRef> jet = jets_->Find(symbol)) {
    return JetSymbol(*context_, variable_names_[jet->variable], jet->order + 1);
  }
  return context_->Constant(0.0);
}

void TotalDerivative::SetTangent(expr::Expr symbol, expr::Expr tangent) {
  override_[symbol.id] = tangent;
}

expr::Expr TotalDerivative::Apply(expr::Expr e) {
  expr::Expr sum = context_->Constant(0.0);
  for (expr::Expr symbol : context_->FreeSymbols(e)) {
    const expr::Expr tangent = Tangent(symbol);
    if (context_->is_constant(tangent, 0.0)) continue;
    sum = context_->Add(sum, context_->Mul(context_->Diff(e, symbol), tangent));  // + ∂e/∂s · s′
  }
  return sum;
}

}  // namespace tether::structure
