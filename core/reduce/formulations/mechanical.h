// The mechanical form's numeric half (index 3, seeds chapter 11; the spec half is
// core/model/forms/mechanical.h). ODE state z = (q, v), N = 2n, kernel kMultipliers:
//
//   Φ_q = ∂Φ/∂q,  h = Φ_q v + Φ_t  (velocity constraint),  a = h_q v + h_t,
//   q' = v,   [M  −Φ_qᵀ; −Φ_q  0] [v'; λ] = [f; a + 2α h + β² Φ]   (α = β = 0 unless Baumgarte)
//   solved as λ = S⁻¹(−(a + 2αh + β²Φ) − Φ_q M⁻¹ f), v' = M⁻¹(f + Φ_qᵀ λ), S = Φ_q M⁻¹ Φ_qᵀ,
//   so the seed pendulum (f = −m g e₂, Φ = qᵀq − ℓ²) has λ = −m (vᵀv − g q₂)/(2 qᵀq), eq. 11.4.
//
// Invariants H = [Φ; h] in two levels (positions q, then velocities v), H_z = [Φ_q 0; h_q Φ_q]
// (h_v = Φ_q); the auxiliary values are λ. The projection may use W = diag(M, M).
// For the Jacobian (reduced_model.h): w = (v', λ), φ = (v, v'),
//   G = [M v' − Φ_qᵀ λ − f;  Φ_q v' + a + 2αh + β²Φ]   (G_w is the KKT matrix).
// Initialization projects positions, then velocities, then finds λ.
#pragma once

#include "tether/reduce/formulation.h"

namespace tether::reduce {

class MechanicalFormulation final : public Formulation {
 public:
  [[nodiscard]] model::Form form() const override { return model::Form::kMechanical; }
  [[nodiscard]] bool has_mass_metric() const override { return true; }
  [[nodiscard]] bool supports_baumgarte() const override { return true; }
  [[nodiscard]] bool HasStageUnknowns(const model::Model& /*model*/) const override {
    return false;
  }
  [[nodiscard]] InitializationPlan initialization() const override {
    return {.position = true, .velocity = true};
  }
  [[nodiscard]] std::string Check(const model::Model& model,
                                  const ReduceOptions& options) const override;
  void Build(FormulationBuild& build) const override;
};

}  // namespace tether::reduce
