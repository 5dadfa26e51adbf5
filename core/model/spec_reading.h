// What a form's spec half sees of the spec reader (spec_reader.cc): the reader owns the
// document, the one namespace of names, the problems and the limits; a FormReader reads the
// form's own fields through these services and checks what only its form knows.
//
// Order of a read: header and fields (the reader, with FormSpec::fields()), parameters,
// FormReader::ReadVariables, definitions and outputs' names, FormReader::ReadEquations, then
// outputs, initial values, units and settings, definitions substituted (also into
// FormReader::Expressions()), FormReader::Build, FormReader::CheckStructure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/json_document.h"
#include "tether/model/form.h"
#include "tether/model/model.h"

namespace tether::model {

// What a name in a spec is. Variables' kinds are per form (an expression's site says which
// kinds it may use).
enum class NameKind : std::uint8_t {
  kParameter,
  kCoordinate,
  kVelocity,
  kDifferential,
  kAlgebraic,
  kVariable,  // an unknown of the implicit form
  kDefinition,
  kOutput,
  kConstraint,
};

constexpr unsigned Bit(NameKind kind) { return 1u << static_cast<unsigned>(kind); }

// "parameter", "coordinate", "differential variable", …
std::string KindName(NameKind kind);

// Which names an expression at one position may use, and how to explain a refusal.
struct Site {
  std::string what;  // "a constraint", used as "<what> may not use velocity 'vx'"
  unsigned allowed;  // Bit() of the parameter and variable kinds allowed; t always is
  std::string why;   // appended to the refusal
  bool equation = false;  // `lhs = rhs` is accepted (the implicit form's equations)
};

// An entry of a list whose entries are expressions or objects {"name": …, "expr": …}.
struct NamedExpression {
  std::string name;  // the given name, else the entry's path
  std::string path;  // of the expression: "constraints[1]" or "constraints[1].expr"
  expr::Expr expr;   // invalid when it did not parse
};

std::string Index(std::string_view parent, std::size_t i);    // "mass[2]"
std::string TypeName(const Json& value);                        // "an array", "null", …
std::string JoinNames(const std::vector<std::string>& names);  // "a, b, c"
const Json* Field(const Json& object, std::string_view key);   // null when absent

// The spec reader's services (implemented in spec_reader.cc).
class SpecReading {
 public:
  virtual void Problem(std::string path, std::string message, int column = 0) = 0;
  // Every problem so far (the implicit reduction appends its own).
  [[nodiscard]] virtual std::vector<SpecProblem>& problems() = 0;
  // A limit was exceeded: nothing more is processed.
  [[nodiscard]] virtual bool refused() const = 0;
  [[nodiscard]] virtual const SpecLimits& limits() const = 0;
  [[nodiscard]] virtual Model& model() = 0;
  [[nodiscard]] virtual expr::Context& context() = 0;

  // The field if present and of the wanted kind; reports a missing required field or a type.
  virtual const Json* TypedField(const Json& object, const std::string& parent,
                                 std::string_view key, Json::value_t type, bool required) = 0;
  // The list of names at `key`, each registered as a `kind` name, into `variables` (a failed
  // name keeps its slot, so counts and indices stay the spec's). The list's variables are
  // states: `initial` and `units` may name them.
  virtual void ReadVariables(const Json& document, std::string_view key, NameKind kind,
                             bool required, std::vector<Variable>& variables) = 0;
  // A list of expressions; with `expected`, its length must be that (`of` names what counts).
  virtual void ReadExpressionList(const Json& document, std::string_view key, const Site& site,
                                  bool required, std::optional<std::size_t> expected,
                                  const std::string& of, std::vector<expr::Expr>& out) = 0;
  // Model::constraints and their names from the list at "constraints".
  virtual void ReadConstraints(const Json& document, const Site& site) = 0;
  // An expression or an object {"name": …, "expr": …}, entry `index` of the list at `path`.
  virtual NamedExpression ReadNamedExpression(const Json& element, const std::string& path,
                                              std::size_t index, const Site& site) = 0;
  // One expression (invalid when it did not parse; the problem is reported).
  virtual expr::Expr ReadExpression(const Json& value, const std::string& path,
                                    const Site& site) = 0;
  // Refuses the spec when its expressions have more nodes than the limit.
  virtual void CheckNodeCount() = 0;

 protected:
  virtual ~SpecReading() = default;
};

// One document's form-specific reading; made by FormSpec::NewReader for every document.
class FormReader {
 public:
  virtual ~FormReader() = default;
  // The form's variables (as states) and the checks on their counts.
  virtual void ReadVariables(SpecReading& reader, const Json& document) = 0;
  // The form's equations, constraints and inequalities.
  virtual void ReadEquations(SpecReading& reader, const Json& document) = 0;
  // Expressions the reader keeps outside Model, into which definitions are substituted too.
  virtual std::vector<std::vector<expr::Expr>*> Expressions() { return {}; }
  // After substitution, when no problem was found: what the form derives from its equations.
  virtual void Build(SpecReading& /*reader*/) {}
  // Then: what can be refused without numbers.
  virtual void CheckStructure(SpecReading& /*reader*/) {}
};

}  // namespace tether::model
