// The implicit form's numeric half (the spec half, core/model/forms/implicit.h, has
// reduced F(t, x, x') = 0 to z' = φ(t,z,w), 0 = G(t,z,w) in the model's index1 fields). The
// stage is the index1 stage of semi_explicit.h with f = φ and g = G, so every stage solves w
// by the index1 Newton:
//   kSolve: z is the ODE state, w is solved from G = 0 in every stage.
//   kStage: state (z, w), M = diag(I, 0), F = (φ, G).
//   kOde is not available (the unknowns w include derivatives, which have no derivative here).
// What is the implicit form's own are its invariants: the k levels H_0 … H_(k−1) of the
// structural analysis, on z, stacked into the reduced model's two levels so that every
// projector applies:
//
//   "position" = H_0 on z[0, P), P = the states H_0 depends on (the model puts them first);
//   "velocity" = H_1 … H_(k−1) on z[P, N) at the projected positions (the sequential
//                projector's second block, as q then v for the mechanical form).
//
// When P = N, or a row of a higher level depends on z[0, P) only, the second block could not
// move it: then all levels form the first block (sequential is then the coupled projection).
// The residuals reported as position and velocity are ‖H_0‖∞ and max_(ℓ≥1) ‖H_ℓ‖∞ either way.
// Initialization projects both blocks, then solves w.
#pragma once

#include "tether/reduce/formulation.h"

namespace tether::reduce {

class ImplicitFormulation final : public Formulation {
 public:
  [[nodiscard]] model::Form form() const override { return model::Form::kImplicit; }
  [[nodiscard]] bool supports_algebraic_ode() const override { return false; }
  [[nodiscard]] bool HasInvariantsBesideStage(const model::Model& model) const override;
  [[nodiscard]] InitializationPlan initialization() const override {
    return {.position = true, .velocity = true};
  }
  [[nodiscard]] std::string Check(const model::Model& model,
                                  const ReduceOptions& options) const override;
  void Build(FormulationBuild& build) const override;
};

}  // namespace tether::reduce
