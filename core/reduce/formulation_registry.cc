// The one place that knows every form's numeric half: adding a form is its file pair in
// formulations/ and one line in kFormulations below (tether/model/form.h lists the rest).
#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "reduce/formulations/implicit.h"
#include "reduce/formulations/index1.h"
#include "reduce/formulations/index2.h"
#include "reduce/formulations/mechanical.h"
#include "tether/reduce/formulation.h"

namespace tether::reduce {
namespace {

const MechanicalFormulation kMechanical;
const Index1Formulation kIndex1;
const Index2Formulation kIndex2;
const ImplicitFormulation kImplicit;

// In model::Form's order (FormulationOf indexes it).
const auto kFormulations =
    std::to_array<const Formulation*>({&kMechanical, &kIndex1, &kIndex2, &kImplicit});
static_assert(kFormulations.size() == static_cast<std::size_t>(model::Form::kImplicit) + 1,
              "one formulation per model::Form (kImplicit is the last)");

}  // namespace

const Formulation& FormulationOf(model::Form form) {
  const auto index = static_cast<std::size_t>(form);
  if (index >= kFormulations.size() || kFormulations[index]->form() != form) {
    // Internal invariant: kFormulations lists every model::Form, in order.
    std::fprintf(stderr, "tether::reduce: form %zu has no formulation in formulation_registry.cc\n",
                 index);
    std::abort();
  }
  return *kFormulations[index];
}

std::string FormsWith(bool (Formulation::*capability)() const) {
  std::vector<std::string> names;
  for (const Formulation* formulation : kFormulations) {
    if ((formulation->*capability)()) names.emplace_back(model::FormName(formulation->form()));
  }
  return model::OrList(names);
}

bool Formulation::HasStageUnknowns(const model::Model& model) const {
  return !model.algebraic.empty();
}

}  // namespace tether::reduce
