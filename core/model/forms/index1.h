// The index1 form's spec half (seeds chapter 20.1):
//
//   x' = f(x,y,t),   0 = g(x,y,t),   g_y regular
//
// Fields as in semi_explicit.h; g may use x, y, parameters and t. g_y must be
// structurally regular (a matching of constraints to algebraic variables), else the spec is
// refused naming the variable or constraint. Inequalities c(x) ≥ 0 run as projected dynamical
// systems.
#pragma once

#include "model/forms/semi_explicit.h"

namespace tether::model {

class Index1Spec final : public SemiExplicitSpec {
 public:
  [[nodiscard]] Form form() const override { return Form::kIndex1; }
  [[nodiscard]] std::string_view name() const override { return "index1"; }
  [[nodiscard]] InequalitySupport inequalities() const override {
    return InequalitySupport::kRun;
  }
  [[nodiscard]] std::unique_ptr<FormReader> NewReader() const override;
};

}  // namespace tether::model
