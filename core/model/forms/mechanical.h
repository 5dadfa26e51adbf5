// The mechanical form's spec half (index 3, seeds chapter 11):
//
//   q' = v,   M(q,v,t) v' − Φ_q(q,t)ᵀ λ = f(q,v,t),   Φ(q,t) = 0
//
// Fields: "coordinates" q and "velocities" v (one per coordinate), "mass" M (a symmetric
// n×n matrix of expressions or a diagonal list of n), "forces" f, "constraints" Φ (at most n,
// functions of q, parameters and t; each must depend on q), "inequalities" c(q,t) ≥ 0 (read,
// but a run refuses them: projected dynamical systems need form index1). States are q then v;
// the multipliers λ_i are streamed as columns lambda_1 … lambda_m.
#pragma once

#include "tether/model/form.h"

namespace tether::model {

class MechanicalSpec final : public FormSpec {
 public:
  [[nodiscard]] Form form() const override { return Form::kMechanical; }
  [[nodiscard]] std::string_view name() const override { return "mechanical"; }
  [[nodiscard]] std::span<const std::string_view> aliases() const override;
  [[nodiscard]] std::string_view alias_note() const override {
    return "index-3 models are constrained mechanical systems";
  }
  [[nodiscard]] std::span<const std::string_view> fields() const override;
  [[nodiscard]] std::string_view variables_field() const override { return "coordinates"; }
  [[nodiscard]] InequalitySupport inequalities() const override {
    return InequalitySupport::kReadOnly;
  }
  void States(const Model& model, std::vector<const Variable*>& states,
              std::vector<StateRole>* roles) const override;
  [[nodiscard]] std::vector<std::string> MultiplierColumns(const Model& model) const override;
  [[nodiscard]] std::unique_ptr<FormReader> NewReader() const override;
};

}  // namespace tether::model
