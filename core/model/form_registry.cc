// The one place that knows every form's spec half: adding a form is its file pair in forms/
// and one line in kSpecs below (tether/model/form.h lists the rest).
#include <array>
#include <cstdio>
#include <cstdlib>

#include "model/forms/implicit.h"
#include "model/forms/index1.h"
#include "model/forms/index2.h"
#include "model/forms/mechanical.h"
#include "tether/model/form.h"
#include "tether/model/model.h"

namespace tether::model {
namespace {

const MechanicalSpec kMechanical;
const Index1Spec kIndex1;
const Index2Spec kIndex2;
const ImplicitSpec kImplicit;

// In Form's order (SpecOf indexes it), which is also the order forms are listed in messages.
const auto kSpecs = std::to_array<const FormSpec*>({&kMechanical, &kIndex1, &kIndex2, &kImplicit});
static_assert(kSpecs.size() == static_cast<std::size_t>(Form::kImplicit) + 1,
              "one spec half per Form (kImplicit is the last)");

}  // namespace

const FormSpec& SpecOf(Form form) {
  const auto index = static_cast<std::size_t>(form);
  if (index >= kSpecs.size() || kSpecs[index]->form() != form) {
    // Internal invariant: kSpecs lists every Form, in order.
    std::fprintf(stderr, "tether::model: form %zu has no spec half in form_registry.cc\n", index);
    std::abort();
  }
  return *kSpecs[index];
}

std::span<const FormSpec* const> FormSpecs() { return kSpecs; }

std::string_view FormName(Form form) { return SpecOf(form).name(); }

std::optional<Form> FormFromName(std::string_view name) {
  for (const FormSpec* spec : kSpecs) {
    if (spec->name() == name) return spec->form();
  }
  return std::nullopt;
}

std::string InequalityFormsText() {
  std::vector<std::string> names;
  for (const FormSpec* spec : kSpecs) {
    if (spec->inequalities() == InequalitySupport::kRun) {
      names.push_back("'" + std::string(spec->name()) + "'");
    }
  }
  return (names.size() == 1 ? "form " : "forms ") + OrList(names);
}

std::string OrList(std::span<const std::string> names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  }
  return text;
}

std::vector<std::string> FormSpec::DescribedInvariants(const Model& model) const {
  return model.constraint_names;
}

void FormSpec::AppendStates(const std::vector<Variable>& list, StateRole role,
                            std::vector<const Variable*>& states, std::vector<StateRole>* roles) {
  for (const Variable& variable : list) states.push_back(&variable);
  if (roles != nullptr) roles->insert(roles->end(), list.size(), role);
}

std::vector<std::string> FormSpec::MultiplierColumns(const Model& /*model*/) const { return {}; }

}  // namespace tether::model
