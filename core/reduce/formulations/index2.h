// The index2 form's numeric half (seeds chapter 20.2; the spec half is
// core/model/forms/index2.h): x' = f(x,y,t), 0 = g(x,t), g_x f_y regular, the shared stage
// of semi_explicit.h with the level c = h = g_x f + g_t (index 1 in y: h_y = g_x f_y):
//   kSolve: z = x, y from h(x,y,t) = 0 by Newton in every stage; invariant g on x.
//   kOde: z = (x, y), y' = −h_y⁻¹ (h_x f + h_t) (§20.2); invariants g (on x), then h (on x, y).
//   kStage: z = (x, y), M = diag(I, 0), F = (f, h): index 2 handed to the stepper as the
//     index-1 system in y that kSolve solves; invariant g on x, as for kSolve.
// Residuals report ‖g‖∞ and ‖h‖∞ in every mode. Initialization projects x onto g = 0, then
// solves y.
#pragma once

#include "tether/reduce/formulation.h"

namespace tether::reduce {

class Index2Formulation final : public Formulation {
 public:
  [[nodiscard]] model::Form form() const override { return model::Form::kIndex2; }
  [[nodiscard]] bool HasInvariantsBesideStage(const model::Model& /*model*/) const override {
    return true;
  }
  [[nodiscard]] InitializationPlan initialization() const override {
    return {.position = true, .velocity = false};
  }
  [[nodiscard]] std::string Check(const model::Model& model,
                                  const ReduceOptions& options) const override;
  void Build(FormulationBuild& build) const override;
};

}  // namespace tether::reduce
