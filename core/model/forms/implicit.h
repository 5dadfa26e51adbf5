// The implicit form's spec half:
//
//   F(t, x, x') = 0   as written, der(x) standing for x' (first derivatives of variables only)
//
// Fields: "variables" x (every unknown function of t) and "equations" (exactly one per
// variable, each `lhs = rhs` or a residual, a string or {"name": …, "expr": …}); no
// "constraints" (a constraint is one of the equations) and no inequalities yet. When the spec is
// read, the structural analysis (tether/structure/implicit_dae.h) reduces the equations to the
// index-1 system
//
//   z' = φ(t, z, w),   0 = G(t, z, w),   plus invariants H_0 … H_(k−1)(t, z),
//
// held in the model's index1 fields so that the index-1 machinery applies:
//   z (Model::differential) = the states, the entries level-0 invariants depend on first (the
//       "position block" the sequential projector treats first), then the rest in the
//       analysis' order; each named by its jet ("x", "der(x)");
//   w (Model::algebraic) = the unknowns solved in every stage ("lam", "der(u)");
//   φ (Model::rhs), G (Model::constraints, named after their equations with primes);
//   H_ℓ, the equations as written and the analysis report in Model::implicit.
// Every refusal of the analysis becomes a problem at the JSON path of what it names. Outputs
// may use der() of a variable the reduced system knows the derivative of: der(x) of a state x
// becomes its φ entry; der() of an algebraic variable is refused at the output's path.
#pragma once

#include "tether/model/form.h"

namespace tether::model {

class ImplicitSpec final : public FormSpec {
 public:
  [[nodiscard]] Form form() const override { return Form::kImplicit; }
  [[nodiscard]] std::string_view name() const override { return "implicit"; }
  [[nodiscard]] std::span<const std::string_view> fields() const override;
  [[nodiscard]] std::string_view variables_field() const override { return "variables"; }
  [[nodiscard]] std::string_view RefusedField(std::string_view key) const override;
  [[nodiscard]] bool derivatives() const override { return true; }
  [[nodiscard]] InequalitySupport inequalities() const override {
    return InequalitySupport::kRefused;
  }
  void States(const Model& model, std::vector<const Variable*>& states,
              std::vector<StateRole>* roles) const override;
  [[nodiscard]] std::vector<std::string> DescribedInvariants(const Model& model) const override;
  [[nodiscard]] std::unique_ptr<FormReader> NewReader() const override;
};

}  // namespace tether::model
