// The numeric half of a form (tether/model/form.h): how a model of the form becomes the
// reduced ODE z' = F(t, z) with invariants H(t, z) = 0 that ReducedModel evaluates
// (tether/reduce/reduced_model.h). Each form's mathematics is in its formulation's header,
// core/reduce/formulations/<form>.h; core/reduce/formulation_registry.cc lists them.
//
// A Formulation is stateless and decides everything once, when a model is reduced: the
// compiled programs, the sizes, where the invariants' levels and Jacobian blocks lie, and
// which of ReducedModel's two stage kernels solves a stage. Nothing of it runs per step.
#pragma once

#include <string>
#include <vector>

#include "tether/model/model.h"

namespace tether::reduce {

struct ReduceOptions;
struct FormulationBuild;  // core/reduce/formulation_build.h

// The invariant levels the initialization projects onto, in order, before the auxiliary
// values (λ or y) are found at the projected state (ReducedModel::InitializeAuxiliary).
struct InitializationPlan {
  bool position = false;  // the first block: z[0, P) onto the position-level invariants
  bool velocity = false;  // then z[P, N) onto the velocity-level invariants
};

class Formulation {
 public:
  virtual ~Formulation() = default;

  [[nodiscard]] virtual model::Form form() const = 0;

  // What session creation may ask for (checked before reducing, named in its messages).
  // The metric W = diag(M, M) of the projection (a mass matrix exists).
  [[nodiscard]] virtual bool has_mass_metric() const { return false; }
  // Baumgarte's acceleration-level stabilization.
  [[nodiscard]] virtual bool supports_baumgarte() const { return false; }
  // AlgebraicMode::kOde (y in the ODE state, from the differentiated constraints).
  [[nodiscard]] virtual bool supports_algebraic_ode() const { return true; }
  // Unknowns an implicit stepper can solve inside its own stages (AlgebraicMode::kStage).
  [[nodiscard]] virtual bool HasStageUnknowns(const model::Model& model) const;
  // Invariants that do not involve those unknowns, which the stepper's own stage solve cannot
  // keep (simulation.cc then prefers the inner Newton of kSolve for steppers that project
  // internally).
  [[nodiscard]] virtual bool HasInvariantsBesideStage(const model::Model& /*model*/) const {
    return false;
  }
  [[nodiscard]] virtual InitializationPlan initialization() const = 0;

  // Why `model` cannot be reduced with `options` ("model 'x': …"), or empty.
  [[nodiscard]] virtual std::string Check(const model::Model& model,
                                          const ReduceOptions& options) const = 0;
  // The reduction (formulation_build.h says what to fill).
  virtual void Build(FormulationBuild& build) const = 0;
};

// The numeric half of `form`.
const Formulation& FormulationOf(model::Form form);

// The names of the forms whose formulation has `capability`, for messages: "mechanical",
// "index1 or index2".
std::string FormsWith(bool (Formulation::*capability)() const);

}  // namespace tether::reduce
