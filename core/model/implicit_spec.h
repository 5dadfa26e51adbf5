// The implicit form's spec half after reading: the equations as written are reduced by the
// structural analysis (tether/structure/implicit_dae.h) into the model's index-1 fields, and
// every refusal of the analysis becomes a problem at the JSON path of what it names.
//
//   z (Model::differential) = the states, the entries level-0 invariants depend on first (the
//       "position block" the sequential projector treats first), then the rest in the
//       analysis' order; each named by its jet ("x", "der(x)");
//   w (Model::algebraic) = the unknowns solved in every stage ("lam", "der(u)");
//   φ (Model::rhs), G (Model::constraints, named after their equations with primes);
//   H_ℓ and the analysis report in Model::implicit.
// Outputs may use der() of a variable the reduced system knows the derivative of: der(x) of a
// state x becomes its φ entry; der() of an algebraic variable is refused at the output's path.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tether/model/model.h"

namespace tether::model {

struct ImplicitSpec {
  std::vector<Variable> variables;          // as written, units already read
  std::vector<std::string> equation_names;  // "equations[i]" unless named
  std::vector<std::string> equation_paths;  // "equations[i]" or "equations[i].expr"
  std::vector<expr::Expr> equations;        // residuals lhs − rhs, definitions substituted
};

// Fills `model` (form kImplicit, outputs with definitions substituted) from `spec`, or appends
// the problems found. `max_new_nodes` bounds the expression nodes the reduction may add.
void ReduceImplicitSpec(ImplicitSpec spec, std::size_t max_new_nodes, Model& model,
                        std::vector<SpecProblem>& problems);

}  // namespace tether::model
