#include "structure/signature_matrix.h"

#include <algorithm>
#include <functional>
#include <map>

#include "tether/structure/jets.h"

namespace tether::structure {

int SignatureMatrix::At(std::size_t equation, std::size_t variable) const {
  const std::vector<SignatureEntry>& row = rows[equation];
  auto it = std::lower_bound(row.begin(), row.end(), variable,
                             [](const SignatureEntry& e, std::size_t j) { return e.variable < j; });
  return it != row.end() && it->variable == variable ? it->order : kAbsent;
}

int SignatureMatrix::MaxOrder() const {
  int largest = 0;
  for (const auto& row : rows) {
    for (const SignatureEntry& e : row) largest = std::max(largest, e.order);
  }
  return largest;
}

JetIndex::JetIndex(const expr::Context& context, std::span<const expr::Expr> variables)
    : context_(&context) {
  for (std::size_t j = 0; j < variables.size(); ++j) {
    index_of_name_.emplace(context.symbol_name(variables[j]), j);
  }
}

std::optional<JetRef> JetIndex::Find(expr::Expr symbol) const {
  if (context_->op(symbol) != expr::Op::kSymbol) return std::nullopt;
  const JetNameParts parts = SplitJetName(context_->symbol_name(symbol));
  auto it = index_of_name_.find(parts.variable);
  if (it == index_of_name_.end()) return std::nullopt;
  return JetRef{it->second, parts.order};
}

std::string_view JetIndex::ForeignJetVariable(expr::Expr symbol) const {
  if (context_->op(symbol) != expr::Op::kSymbol) return {};
  const JetNameParts parts = SplitJetName(context_->symbol_name(symbol));
  if (parts.order == 0 || index_of_name_.find(parts.variable) != index_of_name_.end()) return {};
  return parts.variable;
}

SignatureMatrix SignatureOf(const expr::Context& context, std::span<const expr::Expr> equations,
                            const JetIndex& jets, std::size_t num_variables) {
  SignatureMatrix sigma;
  sigma.num_variables = num_variables;
  sigma.rows.resize(equations.size());
  for (std::size_t i = 0; i < equations.size(); ++i) {
    std::map<std::size_t, int> highest;
    for (expr::Expr symbol : context.FreeSymbols(equations[i])) {
      if (std::optional<JetRef> jet = jets.Find(symbol)) {
        auto [it, inserted] = highest.emplace(jet->variable, jet->order);
        if (!inserted) it->second = std::max(it->second, jet->order);
      }
    }
    for (const auto& [variable, order] : highest) sigma.rows[i].push_back({variable, order});
  }
  return sigma;
}

}  // namespace tether::structure
