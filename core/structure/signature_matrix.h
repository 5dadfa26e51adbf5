// The signature matrix of Pryce's Σ-method (Pryce, "A simple structural analysis method for
// DAEs", BIT 41 (2001) 364–394, §2):
//
//   σ_ij = the highest order k such that x_j^(k) occurs in equation F_i,   −∞ if no jet of x_j
//          occurs in F_i.
//
// "Occurs" is syntactic: a jet symbol reachable in the expression DAG of F_i (after the
// simplifications of expr::Context, so x − x does not count). The finite entries are the
// incidence of the equations on the variables, which is also what matchings and the
// Dulmage–Mendelsohn decomposition work on.
#pragma once

#include <climits>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <map>
#include <string>
#include <vector>

#include "tether/expr/expr.h"

namespace tether::structure {

// σ_ij = kAbsent stands for −∞.
inline constexpr int kAbsent = INT_MIN;

struct SignatureEntry {
  std::size_t variable = 0;
  int order = 0;  // ≥ 0
};

struct SignatureMatrix {
  std::size_t num_variables = 0;
  // rows[i]: the finite entries of equation i, sorted by variable, one per variable.
  std::vector<std::vector<SignatureEntry>> rows;

  [[nodiscard]] std::size_t num_equations() const { return rows.size(); }
  // σ_ij, or kAbsent.
  [[nodiscard]] int At(std::size_t equation, std::size_t variable) const;
  // The largest finite entry (0 for a matrix without any).
  [[nodiscard]] int MaxOrder() const;
};

// A jet: variable index and derivative order.
struct JetRef {
  std::size_t variable = 0;
  int order = 0;
};

// Recognizes the jet symbols of a list of variables (tether/structure/jets.h names them).
class JetIndex {
 public:
  // `variables` are the order-0 symbols; their names must be distinct.
  JetIndex(const expr::Context& context, std::span<const expr::Expr> variables);

  // The jet `symbol` stands for, or nothing (the time, a parameter, an unknown name).
  [[nodiscard]] std::optional<JetRef> Find(expr::Expr symbol) const;
  // For messages: a symbol that has the shape of a jet ("der(...)") but whose variable is not
  // one of ours. Returns the variable part, or an empty view.
  [[nodiscard]] std::string_view ForeignJetVariable(expr::Expr symbol) const;

 private:
  const expr::Context* context_;
  // Names are copied: the context's own strings may move when it grows.
  std::map<std::string, std::size_t, std::less<>> index_of_name_;
};

// σ of `equations` over the variables of `jets`.
SignatureMatrix SignatureOf(const expr::Context& context, std::span<const expr::Expr> equations,
                            const JetIndex& jets, std::size_t num_variables);

}  // namespace tether::structure
