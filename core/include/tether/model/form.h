// Model forms. A form is a registered pair, as steppers are (tether/integrate/stepper.h):
//
//   the spec half, a FormSpec (core/model/forms/<form>.{h,cc}): the fields the form reads,
//     which names each of its expressions may use, whether it supports inequalities, and how
//     its variables lay out as states; the spec reader and session creation both ask it, so
//     they cannot disagree;
//   the numeric half, a reduce::Formulation (tether/reduce/formulation.h,
//     core/reduce/formulations/<form>.{h,cc}): the reduction to an ODE with invariants.
//
// Adding a form is: an enum value below, a spec file pair plus its line in
// core/model/form_registry.cc, a formulation file pair plus its line in
// core/reduce/formulation_registry.cc, and a ModelForm value in proto/tether/v1 (named
// MODEL_FORM_<NAME>, which the server finds by the form's name). Nothing else switches on a form.
// The mathematics of each form is in its files' header comments.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tether::model {

struct Model;
struct Variable;
class FormReader;

// The registered forms (core/model/form_registry.cc holds their halves).
enum class Form { kMechanical, kIndex1, kIndex2, kImplicit };

// The role of a state variable (shared by the columns a run streams and the wire).
enum class StateRole { kCoordinate, kVelocity, kDifferential, kAlgebraic };

// What a form does with inequality constraints c(x) ≥ 0.
enum class InequalitySupport {
  kRefused,  // the spec reader refuses the field, naming the forms that run them
  kReadOnly,  // read and checked when the spec is read; creating a session refuses them
  kRun,       // projected dynamical systems (tether/simulate/simulation.h)
};

// The spec half of a form. Stateless; one instance per form lives in the registry.
class FormSpec {
 public:
  virtual ~FormSpec() = default;

  [[nodiscard]] virtual Form form() const = 0;
  // The value of the spec's "form" field: "mechanical", "index1", …
  [[nodiscard]] virtual std::string_view name() const = 0;
  // Names people write for this form that are not its name ("index3"), and why they mean it.
  [[nodiscard]] virtual std::span<const std::string_view> aliases() const { return {}; }
  [[nodiscard]] virtual std::string_view alias_note() const { return {}; }
  // The form's own top-level fields (the common ones are the spec reader's).
  [[nodiscard]] virtual std::span<const std::string_view> fields() const = 0;
  // The field that names the form's variables: without it every equation's names are unknown.
  [[nodiscard]] virtual std::string_view variables_field() const = 0;
  // Why the form refuses one of the common fields ("constraints" of the implicit form), or
  // empty when it accepts it. Inequalities are refused by inequalities() instead.
  [[nodiscard]] virtual std::string_view RefusedField(std::string_view /*key*/) const {
    return {};
  }
  // Whether expressions may write der(v) of a variable.
  [[nodiscard]] virtual bool derivatives() const { return false; }
  [[nodiscard]] virtual InequalitySupport inequalities() const = 0;

  // The state variables in canonical order (q then v, or x then y) and, if `roles` is given,
  // their roles in the same order.
  virtual void States(const Model& model, std::vector<const Variable*>& states,
                      std::vector<StateRole>* roles) const = 0;
  // The names of the invariants a model's description lists: its constraints' names, or
  // the equations as written that the implicit form keeps.
  [[nodiscard]] virtual std::vector<std::string> DescribedInvariants(const Model& model) const;
  // Named values a run streams after the states, one per auxiliary value of the reduced
  // model from the first (the mechanical form's multipliers λ_i); none by default.
  [[nodiscard]] virtual std::vector<std::string> MultiplierColumns(const Model& model) const;

  // A reader of one document's form-specific fields (core/model/spec_reading.h).
  [[nodiscard]] virtual std::unique_ptr<FormReader> NewReader() const = 0;

 protected:
  // Appends `list` to `states` and, if given, its `role` to `roles` (for States).
  static void AppendStates(const std::vector<Variable>& list, StateRole role,
                           std::vector<const Variable*>& states, std::vector<StateRole>* roles);
};

// The spec half of `form`.
const FormSpec& SpecOf(Form form);
// Every registered form, in the registry's order.
std::span<const FormSpec* const> FormSpecs();

// "mechanical", "index1", "index2", "implicit"
std::string_view FormName(Form form);
// The form named `name` (exactly as a spec writes it), if any.
std::optional<Form> FormFromName(std::string_view name);
// The forms whose runs follow inequalities, for messages: "form 'index1'".
std::string InequalityFormsText();
// Names listed in a message: "a", "a or b", "a, b or c".
std::string OrList(std::span<const std::string> names);

}  // namespace tether::model
