// The index1 form's numeric half (seeds chapter 20.1; the spec half is
// core/model/forms/index1.h): x' = f(x,y,t), 0 = g(x,y,t), g_y regular, the shared stage
// of semi_explicit.h with the level c = g:
//   kSolve (default, §20.1 addendum): z = x; y from g = 0 in every stage; no invariants are
//     left to project.
//   kOde: z = (x, y), y' = −g_y⁻¹ (g_x f + g_t); invariant g on all of z (one level).
//   kStage: z = (x, y), M = diag(I, 0), F = (f, g); no invariants, as for kSolve.
// Residuals report ‖g‖∞ as the position level in every mode. Initialization solves y alone
// (y absorbs g = 0, so no projection moves x).
#pragma once

#include "tether/reduce/formulation.h"

namespace tether::reduce {

class Index1Formulation final : public Formulation {
 public:
  [[nodiscard]] model::Form form() const override { return model::Form::kIndex1; }
  [[nodiscard]] InitializationPlan initialization() const override { return {}; }
  [[nodiscard]] std::string Check(const model::Model& model,
                                  const ReduceOptions& options) const override;
  void Build(FormulationBuild& build) const override;
};

}  // namespace tether::reduce
