// What the semi-explicit forms index1 and index2 share in their spec halves:
//
//   x' = f(x,y,t),   0 = g(x,y,t)
//
// Fields: "differential" x with "rhs" f (one each), "algebraic" y (optional, may be empty),
// "constraints" g (one per algebraic variable), "inequalities" c ≥ 0. States are x then y.
// Each form's own conditions are in index1.h and index2.h.
#pragma once

#include "tether/model/form.h"

namespace tether::model {

class SemiExplicitSpec : public FormSpec {
 public:
  [[nodiscard]] std::span<const std::string_view> fields() const override;
  [[nodiscard]] std::string_view variables_field() const override { return "differential"; }
  void States(const Model& model, std::vector<const Variable*>& states,
              std::vector<StateRole>* roles) const override;

 protected:
  // Reads x, y, f, g and c; with `constraints_without_algebraic`, g and c may not use y
  // (`why` says so), and the structure check of index 1 is left out.
  [[nodiscard]] std::unique_ptr<FormReader> NewSemiExplicitReader(
      bool constraints_without_algebraic, std::string why) const;
};

}  // namespace tether::model
