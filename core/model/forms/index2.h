// The index2 form's spec half (seeds chapter 20.2):
//
//   x' = f(x,y,t),   0 = g(x,t),   g_x f_y regular
//
// Fields as in semi_explicit.h; g (and any inequality) may not use the algebraic
// variables. Inequalities are read, but a run refuses them (they need form index1).
#pragma once

#include "model/forms/semi_explicit.h"

namespace tether::model {

class Index2Spec final : public SemiExplicitSpec {
 public:
  [[nodiscard]] Form form() const override { return Form::kIndex2; }
  [[nodiscard]] std::string_view name() const override { return "index2"; }
  [[nodiscard]] InequalitySupport inequalities() const override {
    return InequalitySupport::kReadOnly;
  }
  [[nodiscard]] std::unique_ptr<FormReader> NewReader() const override;
};

}  // namespace tether::model
