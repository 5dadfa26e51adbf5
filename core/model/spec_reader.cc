#include "model/spec_reader.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/definitions.h"
#include "model/implicit_spec.h"
#include "model/json_document.h"
#include "tether/expr/quote.h"
#include "tether/model/unlisted_problems.h"
#include "tether/expr/suggest.h"
#include "tether/expr/parse.h"

namespace tether::model {
namespace {

using expr::DidYouMean;

// Longest name a spec may give anything (states, parameters, definitions, outputs).
constexpr std::size_t kMaxNameLength = 64;

// Problems listed in full; beyond this a hostile spec gets a count, and no more suggestions are
// searched (each costs a pass over every name). 100 lines are more than anyone fixes at once.
constexpr std::size_t kMaxListedProblems = 100;
constexpr std::string_view kUnlistedPrefix = "and ";
constexpr std::string_view kUnlistedSuffix = " more problems not listed";

// The last entry's message when more than kMaxListedProblems were found (UnlistedProblems
// reads it back).
std::string UnlistedProblemsText(std::size_t more) {
  return std::string(kUnlistedPrefix) + std::to_string(more) + std::string(kUnlistedSuffix);
}

constexpr std::array<std::string_view, 12> kCommonFields = {
    "name",        "title",        "description", "form",    "parameters", "definitions",
    "constraints", "inequalities", "initial",     "outputs", "units",      "simulation"};
constexpr std::array<std::string_view, 4> kMechanicalFields = {"coordinates", "velocities", "mass",
                                                               "forces"};
constexpr std::array<std::string_view, 3> kIndexFields = {"differential", "algebraic", "rhs"};
constexpr std::array<std::string_view, 2> kImplicitFields = {"variables", "equations"};

// Forms people write that are another form's name here.
std::string_view FormAlias(std::string_view name) {
  if (name == "index3" || name == "index-3" || name == "index_3") return "mechanical";
  return {};
}

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

std::string KindName(NameKind kind) {
  switch (kind) {
    case NameKind::kParameter: return "parameter";
    case NameKind::kCoordinate: return "coordinate";
    case NameKind::kVelocity: return "velocity";
    case NameKind::kDifferential: return "differential variable";
    case NameKind::kAlgebraic: return "algebraic variable";
    case NameKind::kVariable: return "variable";
    case NameKind::kDefinition: return "definition";
    case NameKind::kOutput: return "output";
    case NameKind::kConstraint: return "constraint name";
  }
  return "name";
}

struct NameEntry {
  NameKind kind;
  std::string path;
  std::size_t index;  // position in its namespace
};

// Which names an expression at one position may use, and how to explain a refusal.
struct Site {
  std::string what;  // "a constraint", used as "<what> may not use velocity 'vx'"
  unsigned allowed;  // Bit() of the parameter and variable kinds allowed; t always is
  std::string why;   // appended to the refusal
  bool equation = false;  // `lhs = rhs` is accepted (the implicit form's equations)
};

// A parsed expression before definitions are substituted.
struct Raw {
  expr::Expr expr;
  std::vector<expr::NameUse> names;
  std::size_t depth = 0;
};

std::string TypeName(const Json& value) {
  if (value.is_null()) return "null";
  if (value.is_boolean()) return "a boolean";
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_array()) return "an array";
  return "an object";
}

std::string Join(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

std::string Index(std::string_view parent, std::size_t i) {
  return std::string(parent) + "[" + std::to_string(i) + "]";
}

bool IsIdentifier(std::string_view name) {
  auto start = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  auto rest = [&](char c) { return start(c) || (c >= '0' && c <= '9'); };
  return !name.empty() && name.size() <= kMaxNameLength && start(name.front()) &&
         std::all_of(name.begin() + 1, name.end(), rest);
}

template <std::size_t N>
bool Contains(const std::array<std::string_view, N>& list, std::string_view name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

std::optional<Form> FormFromName(std::string_view name) {
  if (name == "mechanical") return Form::kMechanical;
  if (name == "index1") return Form::kIndex1;
  if (name == "index2") return Form::kIndex2;
  if (name == "implicit") return Form::kImplicit;
  return std::nullopt;
}

class SpecReader {
 public:
  explicit SpecReader(const SpecLimits& limits)
      : limits_(limits),
        context_(std::make_shared<expr::Context>()),
        model_(std::make_shared<Model>()) {
    model_->context = context_;
  }

  ModelResult Run(std::string_view text) {
    if (text.size() > limits_.max_document_bytes) {
      Problem("", "the document has " + std::to_string(text.size()) + " bytes; the limit is " +
                      std::to_string(limits_.max_document_bytes));
      return Finish();
    }
    const std::optional<Json> document = ReadJsonDocument(text, problems_);
    if (!document) return Finish();
    if (!document->is_object()) {
      Problem("", "a model spec must be a JSON object, not " + TypeName(*document));
      return Finish();
    }
    ReadHeader(*document);
    CheckFields(*document);
    ReadNames(*document);
    // Without the variables the equations are written in, every equation would report their
    // names as unknown: the missing field (or the misspelt one) is the one problem to fix.
    if (refused_ || !form_ || (!problems_.empty() && VariablesMissing(*document))) return Finish();
    ReadDefinitions(*document);
    ReadEquations(*document);
    ReadInitial(*document);
    ReadUnits(*document);
    ReadSimulation(*document);
    if (problems_.empty()) Build();
    if (problems_.empty()) CheckStructure();
    return Finish();
  }

 private:
  // ---- Problems and small readers ----------------------------------------------------------

  void Problem(std::string path, std::string message, int column = 0) {
    problems_.push_back({std::move(path), column, std::move(message)});
  }

  ModelResult Finish() {
    ModelResult result;
    if (problems_.empty()) {
      result.model = model_;
      return result;
    }
    if (problems_.size() > kMaxListedProblems) {
      const std::size_t more = problems_.size() - kMaxListedProblems;
      problems_.resize(kMaxListedProblems);
      Problem("", UnlistedProblemsText(more));
    }
    result.problems = std::move(problems_);
    return result;
  }

  bool Suggesting() const { return problems_.size() < kMaxListedProblems; }

  static const Json* Field(const Json& object, std::string_view key) {
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  }

  // The field if present and of the wanted kind; reports a missing required field or a type.
  const Json* TypedField(const Json& object, const std::string& parent, std::string_view key,
                         Json::value_t type, bool required) {
    const Json* value = Field(object, key);
    const std::string path = Join(parent, key);
    if (value == nullptr) {
      if (required) Problem(path, "required field is missing");
      return nullptr;
    }
    if (value->type() != type) {
      Problem(path, "must be " + TypeName(Json(type)) + ", not " + TypeName(*value));
      return nullptr;
    }
    return value;
  }

  std::optional<std::string> ReadString(const Json& object, const std::string& parent,
                                        std::string_view key, bool required) {
    const Json* value = TypedField(object, parent, key, Json::value_t::string, required);
    if (value == nullptr) return std::nullopt;
    return value->get<std::string>();
  }

  std::optional<double> ReadNumber(const Json& value, const std::string& path) {
    if (!value.is_number()) {
      Problem(path, "must be a number, not " + TypeName(value));
      return std::nullopt;
    }
    const double number = value.get<double>();
    if (!std::isfinite(number)) {
      Problem(path, "must be a finite number");
      return std::nullopt;
    }
    return number;
  }

  // Reports every key of `object` not in `allowed`, with a did-you-mean.
  template <std::size_t N>
  void CheckKeys(const Json& object, const std::string& path,
                 const std::array<std::string_view, N>& allowed) {
    const std::vector<std::string> names(allowed.begin(), allowed.end());
    for (const auto& item : object.items()) {
      if (Contains(allowed, item.key())) continue;
      Problem(Join(path, item.key()), "unknown field '" + item.key() + "'" +
                                          DidYouMean(item.key(), names) + "; the fields of " +
                                          path + " are " + JoinNames(names));
    }
  }

  // Refuses the spec when `count` exceeds `limit`.
  void CheckCount(std::size_t count, std::size_t limit, const std::string& path,
                  const std::string& what) {
    if (count <= limit) return;
    Problem(path, "has " + std::to_string(count) + " " + what + "; the limit is " +
                      std::to_string(limit));
    refused_ = true;
  }

  // ---- Header and fields -------------------------------------------------------------------

  void ReadHeader(const Json& document) {
    if (auto name = ReadString(document, "", "name", true)) {
      if (IsValidModelName(*name)) {
        model_->name = *name;
      } else {
        Problem("name",
                "model name '" + *name + "' is invalid: it must match [a-z][a-z0-9_-]{0,62}");
      }
    }
    model_->title = ReadString(document, "", "title", false).value_or("");
    model_->description = ReadString(document, "", "description", false).value_or("");
    if (auto form = ReadString(document, "", "form", true)) {
      form_ = FormFromName(*form);
      if (form_) {
        model_->form = *form_;
      } else {
        const std::vector<std::string> forms = {"mechanical", "index1", "index2", "implicit"};
        const std::string_view alias = FormAlias(*form);
        const std::string hint =
            alias.empty() ? DidYouMean(*form, forms)
                          : " (did you mean '" + std::string(alias) +
                                "'? index-3 models are constrained mechanical systems)";
        Problem("form", "unknown form '" + *form + "'" + hint +
                            "; expected mechanical, index1, index2 or implicit");
      }
    }
  }

  bool IsMechanical() const { return form_ == Form::kMechanical; }
  bool IsImplicit() const { return form_ == Form::kImplicit; }

  bool VariablesMissing(const Json& document) const {
    const char* field = IsMechanical() ? "coordinates" : IsImplicit() ? "variables" : "differential";
    return Field(document, field) == nullptr;
  }

  void CheckFields(const Json& document) {
    std::vector<std::string> known(kCommonFields.begin(), kCommonFields.end());
    const bool any_form = !form_.has_value();
    if (any_form || IsMechanical())
      known.insert(known.end(), kMechanicalFields.begin(), kMechanicalFields.end());
    if (any_form || (!IsMechanical() && !IsImplicit()))
      known.insert(known.end(), kIndexFields.begin(), kIndexFields.end());
    if (any_form || IsImplicit())
      known.insert(known.end(), kImplicitFields.begin(), kImplicitFields.end());
    for (const auto& item : document.items()) {
      const std::string& key = item.key();
      if (IsImplicit() && key == "constraints") {
        Problem(key, "form 'implicit' has no field 'constraints': write each constraint as one "
                     "of the equations, e.g. \"x^2 + y^2 = l^2\"");
        continue;
      }
      if (IsImplicit() && key == "inequalities") {
        Problem(key, "form 'implicit' does not support inequality constraints yet; write the "
                     "model in form 'index1' to use them");
        continue;
      }
      if (std::find(known.begin(), known.end(), key) != known.end()) continue;
      IgnoreNamesDeclaredBy(item.value());
      const std::string owner =
          any_form ? std::string("a model") : "form '" + std::string(FormName(*form_)) + "'";
      const std::string valid = "; the fields of " + owner + " are " + JoinNames(known);
      if (Contains(kMechanicalFields, key) || Contains(kIndexFields, key) ||
          Contains(kImplicitFields, key)) {
        Problem(key, "field '" + key + "' does not belong to form '" +
                         std::string(FormName(*form_)) + "'" + valid);
      } else {
        Problem(key, "unknown field '" + key + "'" + DidYouMean(key, known) + valid);
      }
    }
  }

  static std::string JoinNames(const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
    return text;
  }

  // The names an unknown field would have declared (its strings, or its keys): their uses
  // are not reported again as unknown names, the field's problem explains them.
  void IgnoreNamesDeclaredBy(const Json& value) {
    if (value.is_object()) {
      for (const auto& item : value.items()) undeclared_.insert(item.key());
    } else if (value.is_array()) {
      for (const Json& element : value) {
        if (element.is_string()) undeclared_.insert(element.get<std::string>());
      }
    }
  }

  // ---- Names -------------------------------------------------------------------------------

  // Enters `name` into the one namespace shared by everything a spec names.
  bool Register(const std::string& name, NameKind kind, const std::string& path,
                std::size_t index) {
    if (!IsIdentifier(name)) {
      Problem(path, "'" + name +
                        "' is not a valid name: use letters, digits and '_', not "
                        "starting with a digit, at most 64 characters");
      return false;
    }
    if (expr::IsReservedName(name) || name == "t") {
      Problem(path, "'" + name + "' is reserved (" +
                        (name == "t"    ? std::string("the time")
                         : name == "pi" ? std::string("the constant π")
                                        : std::string("a function of the expression language")) +
                        ")");
      return false;
    }
    const auto [it, inserted] = names_.emplace(name, NameEntry{kind, path, index});
    if (!inserted) {
      Problem(path, "name '" + name + "' is already used by " + it->second.path);
      return false;
    }
    return true;
  }

  void ReadNames(const Json& document) {
    ReadParameters(document);
    if (!form_) return;
    if (IsMechanical()) {
      ReadVariables(document, "coordinates", NameKind::kCoordinate, model_->coordinates);
      ReadVariables(document, "velocities", NameKind::kVelocity, model_->velocities);
    } else if (IsImplicit()) {
      ReadVariables(document, "variables", NameKind::kVariable, implicit_.variables);
    } else {
      ReadVariables(document, "differential", NameKind::kDifferential, model_->differential);
      ReadVariables(document, "algebraic", NameKind::kAlgebraic, model_->algebraic);
    }
    CheckStateCounts(document);
    ReadKeysAsNames(document, "definitions", NameKind::kDefinition, limits_.max_definitions,
                    definition_names_);
    std::vector<std::string> outputs;
    ReadKeysAsNames(document, "outputs", NameKind::kOutput, limits_.max_outputs, outputs);
    CountConstraints(document);
  }

  void ReadParameters(const Json& document) {
    const Json* parameters = TypedField(document, "", "parameters", Json::value_t::object, false);
    if (parameters == nullptr) return;
    CheckCount(parameters->size(), limits_.max_parameters, "parameters", "parameters");
    if (refused_) return;
    for (const auto& item : parameters->items()) {
      const std::string path = "parameters." + item.key();
      Parameter parameter;
      parameter.name = item.key();
      // A bad value is reported; the name stays declared, so its uses are not reported too.
      ReadParameterValue(item.value(), path, parameter);
      if (!Register(item.key(), NameKind::kParameter, path, model_->parameters.size())) continue;
      parameter.symbol = context_->Symbol(parameter.name);
      model_->parameters.push_back(std::move(parameter));
    }
  }

  bool ReadParameterValue(const Json& value, const std::string& path, Parameter& parameter) {
    if (value.is_number()) {
      const std::optional<double> number = ReadNumber(value, path);
      parameter.value = number.value_or(0.0);
      return number.has_value();
    }
    if (!value.is_object()) {
      Problem(path,
              "must be a number or an object {\"value\": …, \"unit\": …, "
              "\"description\": …}, not " +
                  TypeName(value));
      return false;
    }
    CheckKeys(value, path, std::array<std::string_view, 3>{"value", "unit", "description"});
    parameter.unit = ReadString(value, path, "unit", false).value_or("");
    parameter.description = ReadString(value, path, "description", false).value_or("");
    const Json* number = Field(value, "value");
    if (number == nullptr) {
      Problem(Join(path, "value"), "required field is missing");
      return false;
    }
    const std::optional<double> read = ReadNumber(*number, Join(path, "value"));
    parameter.value = read.value_or(0.0);
    return read.has_value();
  }

  void ReadVariables(const Json& document, std::string_view key, NameKind kind,
                     std::vector<Variable>& variables) {
    const bool required = kind != NameKind::kAlgebraic;
    const Json* list = TypedField(document, "", key, Json::value_t::array, required);
    if (list == nullptr) return;
    CheckCount(list->size(), limits_.max_variables, std::string(key), "names");
    if (refused_) return;
    for (std::size_t i = 0; i < list->size(); ++i) {
      const Json& element = (*list)[i];
      const std::string path = Index(key, i);
      if (!element.is_string()) {
        Problem(path, "must be a name (a string), not " + TypeName(element));
        continue;
      }
      const std::string name = element.get<std::string>();
      // A failed name keeps its slot, so that counts and indices stay those of the spec.
      Register(name, kind, path, variables.size());
      variables.push_back(Variable{.name = name, .unit = "", .symbol = context_->Symbol(name)});
    }
  }

  void CheckStateCounts(const Json& document) {
    if (refused_) return;
    if (IsMechanical()) {
      const std::size_t n = model_->coordinates.size();
      if (Field(document, "coordinates") != nullptr && n == 0) {
        Problem("coordinates", "must name at least one coordinate");
      }
      if (Field(document, "velocities") != nullptr && Field(document, "coordinates") != nullptr &&
          model_->velocities.size() != n) {
        Problem("velocities", "has " + std::to_string(model_->velocities.size()) +
                                  " names but there are " + std::to_string(n) +
                                  " coordinates; each coordinate needs one velocity");
      }
    } else if (IsImplicit()) {
      if (Field(document, "variables") != nullptr && implicit_.variables.empty()) {
        Problem("variables", "the model has no variables: name at least one");
      }
    } else if (Field(document, "differential") != nullptr && model_->num_states() == 0) {
      Problem("differential", "the model has no variables: name at least one");
    }
    CheckCount(model_->num_states() + implicit_.variables.size(), limits_.max_variables, "",
               "state variables");
  }

  void ReadKeysAsNames(const Json& document, std::string_view key, NameKind kind, std::size_t limit,
                       std::vector<std::string>& names) {
    const Json* object = TypedField(document, "", key, Json::value_t::object, false);
    if (object == nullptr || refused_) return;
    CheckCount(object->size(), limit, std::string(key), "entries");
    if (refused_) return;
    for (const auto& item : object->items()) {
      Register(item.key(), kind, Join(std::string(key), item.key()), names.size());
      names.push_back(item.key());
    }
  }

  void CountConstraints(const Json& document) {
    std::size_t count = 0;
    for (std::string_view key : {"constraints", "inequalities"}) {
      const Json* list = Field(document, key);
      if (list != nullptr && list->is_array()) count += list->size();
    }
    CheckCount(count, limits_.max_constraints, "", "constraints and inequalities");
  }

  // ---- Expressions -------------------------------------------------------------------------

  // Parses the expression at `path`, checking each name against `site`. With
  // `definition_uses`, uses of definitions are collected there (for ordering) instead of checked.
  std::optional<Raw> ParseExpression(const Json& value, const std::string& path, const Site& site,
                                     std::vector<std::size_t>* definition_uses = nullptr) {
    if (refused_) return std::nullopt;
    if (value.is_number()) {
      const std::optional<double> number = ReadNumber(value, path);
      if (!number) return std::nullopt;
      return Raw{.expr = context_->Constant(*number), .names = {}, .depth = 0};
    }
    if (!value.is_string()) {
      Problem(path, "must be an expression (a string or a number), not " + TypeName(value));
      return std::nullopt;
    }
    const std::string& text = value.get_ref<const std::string&>();
    if (text.size() > limits_.max_expression_length) {
      Problem(path, "expression has " + std::to_string(text.size()) + " characters; the limit is " +
                        std::to_string(limits_.max_expression_length));
      return std::nullopt;
    }
    const expr::ParseLimits parse_limits{.max_length = limits_.max_expression_length,
                                         .max_depth = limits_.max_expression_depth};
    const expr::ParseOptions parse_options{.derivatives = IsImplicit(), .equation = site.equation};
    expr::ParseResult parsed = expr::Parse(*context_, text, parse_limits, parse_options);
    if (!parsed.ok()) {
      Problem(path, parsed.error.message, parsed.error.column);
      return std::nullopt;
    }
    CheckNodeCount();
    Raw raw{.expr = parsed.expr, .names = std::move(parsed.names), .depth = 0};
    raw.depth = context_->Depth(raw.expr);
    const bool names_ok = CheckNames(raw, path, site, definition_uses);
    const bool depth_ok = definition_uses != nullptr || CheckDepth(raw, path);
    if (!names_ok || !depth_ok) return std::nullopt;
    return raw;
  }

  void CheckNodeCount() {
    if (refused_ || context_->size() <= limits_.max_nodes) return;
    Problem("", "the model has more than " + std::to_string(limits_.max_nodes) +
                    " expression nodes (the limit)");
    refused_ = true;
  }

  bool CheckNames(const Raw& raw, const std::string& path, const Site& site,
                  std::vector<std::size_t>* definition_uses) {
    bool ok = true;
    for (const expr::NameUse& use : raw.names) {
      if (use.name == "t" && use.derivative_order > 0) {
        Problem(path, "der() applies to the model's variables only; der(t) is 1", use.column);
        ok = false;
        continue;
      }
      if (use.name == "t") continue;
      const auto it = names_.find(use.name);
      if (it == names_.end()) {
        ok = false;
        if (undeclared_.contains(use.name)) continue;  // its unknown field is reported
        const std::string hint = Suggesting() ? DidYouMean(use.name, VisibleNames(site)) : "";
        Problem(path, "unknown name '" + use.name + "'" + hint, use.column);
        continue;
      }
      const NameEntry& entry = it->second;
      if (use.derivative_order > 0 && !CheckDerivativeUse(use, entry, path)) {
        ok = false;
      } else if (entry.kind == NameKind::kDefinition && definition_uses != nullptr) {
        definition_uses->push_back(entry.index);
      } else if (entry.kind == NameKind::kDefinition) {
        ok = CheckDefinitionUse(entry.index, use, path, site) && ok;
      } else if (entry.kind == NameKind::kOutput || entry.kind == NameKind::kConstraint) {
        Problem(path,
                "'" + use.name + "' is " +
                    (entry.kind == NameKind::kOutput ? "an output" : "a constraint name") +
                    ", not a value expressions can use (make it a definition)",
                use.column);
        ok = false;
      } else if ((site.allowed & Bit(entry.kind)) == 0) {
        Problem(
            path,
            site.what + " may not use " + KindName(entry.kind) + " '" + use.name + "'" + site.why,
            use.column);
        ok = false;
      }
    }
    return ok;
  }

  // der() applies once, to a variable of the implicit form.
  bool CheckDerivativeUse(const expr::NameUse& use, const NameEntry& entry,
                          const std::string& path) {
    if (entry.kind != NameKind::kVariable) {
      Problem(path,
              "der() applies to the model's variables only; '" + use.name + "' is a " +
                  KindName(entry.kind) +
                  (entry.kind == NameKind::kParameter ? " (constant in t)"
                   : entry.kind == NameKind::kDefinition
                       ? " (write der() of the variables inside the definition)"
                       : ""),
              use.column);
      return false;
    }
    if (use.derivative_order > 1) {
      Problem(path,
              "only first derivatives may be written: der(der(" + use.name +
                  ")) needs a variable for der(" + use.name + ") (add e.g. 'v_" + use.name +
                  "' with the equation der(" + use.name + ") = v_" + use.name + ")",
              use.column);
      return false;
    }
    return true;
  }

  // A definition brings along every variable it reaches.
  bool CheckDefinitionUse(std::size_t definition, const expr::NameUse& use, const std::string& path,
                          const Site& site) {
    if (definition_order_.broken[definition]) return false;  // its cycle is reported
    bool ok = true;
    for (const auto& [kind, variable] : reach_[definition]) {
      if ((site.allowed & Bit(kind)) != 0) continue;
      Problem(path,
              site.what + " may not use " + KindName(kind) + " '" + variable +
                  "' (through definition '" + use.name + "')" + site.why,
              use.column);
      ok = false;
    }
    return ok;
  }

  // Bounds the depth after substitution: a definition's expansion hangs below its symbol.
  bool CheckDepth(const Raw& raw, const std::string& path) {
    std::size_t below = 0;
    for (const expr::NameUse& use : raw.names) {
      const auto it = names_.find(use.name);
      if (it != names_.end() && it->second.kind == NameKind::kDefinition) {
        below = std::max(below, definition_depth_[it->second.index]);
      }
    }
    const std::size_t bound = raw.depth + below;
    if (bound <= limits_.max_expanded_depth) return true;
    Problem(path,
            "expression is nested too deeply once definitions are substituted (depth up "
            "to " +
                std::to_string(bound) + "; the limit is " +
                std::to_string(limits_.max_expanded_depth) + ")");
    return false;
  }

  std::vector<std::string> VisibleNames(const Site& site) const {
    std::vector<std::string> visible = {"t"};
    for (const auto& [name, entry] : names_) {
      if (entry.kind == NameKind::kDefinition || (site.allowed & Bit(entry.kind)) != 0) {
        visible.push_back(name);
      }
    }
    return visible;
  }

  // ---- Definitions -------------------------------------------------------------------------

  void ReadDefinitions(const Json& document) {
    const Json* definitions = Field(document, "definitions");
    const std::size_t count = definition_names_.size();
    definition_raw_.assign(count, std::nullopt);
    std::vector<std::vector<std::size_t>> uses(count);
    if (definitions != nullptr && definitions->is_object()) {
      const Site site{"a definition", ~0u, ""};
      std::size_t i = 0;
      for (const auto& item : definitions->items()) {
        definition_raw_[i] =
            ParseExpression(item.value(), "definitions." + item.key(), site, &uses[i]);
        ++i;
      }
    }
    definition_order_ = OrderDefinitions(uses);
    // A cycle is named by its first members only: a 500-definition cycle must not make a
    // 500-name message.
    constexpr std::size_t kMaxCycleNames = 8;
    for (const std::vector<std::size_t>& cycle : definition_order_.cycles) {
      std::string text;
      for (std::size_t k = 0; k < cycle.size() && k < kMaxCycleNames; ++k)
        text += (text.empty() ? "" : " -> ") + expr::Printable(definition_names_[cycle[k]]);
      // The path closes back on its first member; longer ones say how many they hold.
      if (cycle.size() > kMaxCycleNames) {
        text += " -> … (a cycle of " + std::to_string(cycle.size() - 1) + " definitions)";
      }
      Problem("definitions." + expr::Printable(definition_names_[cycle.front()]),
              "definitions form a cycle: " + text);
    }
    ComputeReach(uses);
  }

  // For each definition (dependencies first): the first variable of each kind it reaches,
  // and the depth bound of its expansion.
  void ComputeReach(const std::vector<std::vector<std::size_t>>& uses) {
    reach_.assign(definition_names_.size(), {});
    definition_depth_.assign(definition_names_.size(), 0);
    for (std::size_t d : definition_order_.order) {
      if (!definition_raw_[d]) continue;
      std::size_t below = 0;
      for (std::size_t used : uses[d]) {
        for (const auto& [kind, variable] : reach_[used]) reach_[d].emplace(kind, variable);
        below = std::max(below, definition_depth_[used]);
      }
      for (const expr::NameUse& use : definition_raw_[d]->names) {
        const auto it = names_.find(use.name);
        if (it != names_.end() && it->second.kind != NameKind::kDefinition) {
          reach_[d].emplace(it->second.kind, use.name);
        }
      }
      definition_depth_[d] = definition_raw_[d]->depth + below;
      if (definition_depth_[d] > limits_.max_expanded_depth) {
        Problem("definitions." + definition_names_[d],
                "definition is nested too deeply once the definitions it uses are substituted "
                "(depth up to " +
                    std::to_string(definition_depth_[d]) + "; the limit is " +
                    std::to_string(limits_.max_expanded_depth) + ")");
      }
    }
  }

  // ---- Equations ---------------------------------------------------------------------------

  static constexpr unsigned kParameterBit = Bit(NameKind::kParameter);
  static constexpr unsigned kPositionBits = kParameterBit | Bit(NameKind::kCoordinate);
  static constexpr unsigned kMechanicalBits = kPositionBits | Bit(NameKind::kVelocity);
  static constexpr unsigned kIndexBits =
      kParameterBit | Bit(NameKind::kDifferential) | Bit(NameKind::kAlgebraic);

  void ReadEquations(const Json& document) {
    if (IsMechanical()) {
      ReadMechanical(document);
    } else if (IsImplicit()) {
      ReadImplicitEquations(document);
    } else {
      ReadSemiExplicit(document);
    }
    const Site all{"an output", kMechanicalBits | kIndexBits | Bit(NameKind::kVariable), ""};
    ReadOutputs(document, all);
  }

  void ReadMechanical(const Json& document) {
    const std::size_t n = model_->coordinates.size();
    const Site dynamics{"the mass matrix or a force", kMechanicalBits, ""};
    ReadMass(document, n, dynamics);
    ReadExpressionList(document, "forces", dynamics, true, n, "coordinates", model_->forces);
    const Site position{"a constraint", kPositionBits,
                        " (Φ(q,t) depends on coordinates, parameters and t only)"};
    ReadConstraints(document, position);
    if (model_->constraints.size() > n) {
      Problem("constraints", "has " + std::to_string(model_->constraints.size()) +
                                 " constraints but only " + std::to_string(n) +
                                 " coordinates; a mechanical model has at most as many "
                                 "constraints as coordinates");
    }
    const Site inequality{"an inequality", kPositionBits,
                          " (c(q,t) depends on coordinates, parameters and t only)"};
    ReadExpressionList(document, "inequalities", inequality, false, std::nullopt, "",
                       model_->inequalities);
  }

  void ReadSemiExplicit(const Json& document) {
    const std::size_t nx = model_->differential.size();
    const Site rhs{"a right-hand side", kIndexBits, ""};
    ReadExpressionList(document, "rhs", rhs, true, nx, "differential variables", model_->rhs);
    const bool index2 = form_ == Form::kIndex2;
    const unsigned allowed = index2 ? kIndexBits & ~Bit(NameKind::kAlgebraic) : kIndexBits;
    const std::string why = index2 ? " (an index-2 constraint g(x,t) may not depend on the "
                                     "algebraic variables)"
                                   : "";
    ReadConstraints(document, Site{"a constraint", allowed, why});
    const std::size_t ny = model_->algebraic.size();
    if (model_->constraints.size() != ny) {
      Problem("constraints", "has " + std::to_string(model_->constraints.size()) +
                                 " constraints but there are " + std::to_string(ny) +
                                 " algebraic variables; form '" + std::string(FormName(*form_)) +
                                 "' needs one constraint each");
    }
    ReadExpressionList(document, "inequalities", Site{"an inequality", allowed, why}, false,
                       std::nullopt, "", model_->inequalities);
  }

  // The implicit form's equations: `lhs = rhs` or a residual, each a string or an object
  // {"name": …, "expr": …}; exactly one per variable.
  void ReadImplicitEquations(const Json& document) {
    const Json* list = TypedField(document, "", "equations", Json::value_t::array, true);
    if (list == nullptr) return;
    const std::size_t n = implicit_.variables.size();
    if (list->size() != n) {
      Problem("equations", "has " + std::to_string(list->size()) + " equations but there are " +
                               std::to_string(n) +
                               " variables; form 'implicit' needs exactly one equation per "
                               "variable");
    }
    const Site site{"an equation", kParameterBit | Bit(NameKind::kVariable), "", true};
    for (std::size_t i = 0; i < list->size(); ++i) {
      NamedExpression entry = ReadNamedExpression((*list)[i], Index("equations", i), i, site);
      implicit_.equation_names.push_back(std::move(entry.name));
      implicit_.equation_paths.push_back(std::move(entry.path));
      implicit_.equations.push_back(entry.expr);
    }
  }

  struct NamedExpression {
    std::string name;  // the given name, else the entry's path
    std::string path;  // of the expression: "constraints[1]" or "constraints[1].expr"
    expr::Expr expr;   // invalid when it did not parse
  };

  // An expression or an object {"name": …, "expr": …}, entry `index` of the list at `path`.
  NamedExpression ReadNamedExpression(const Json& element, const std::string& path,
                                      std::size_t index, const Site& site) {
    NamedExpression entry{.name = path, .path = path, .expr = {}};
    const Json* value = &element;
    if (element.is_object()) {
      CheckKeys(element, path, std::array<std::string_view, 2>{"name", "expr"});
      if (auto given = ReadString(element, path, "name", false)) {
        if (Register(*given, NameKind::kConstraint, Join(path, "name"), index)) entry.name = *given;
      }
      value = TypedFieldAny(element, path, "expr");
      entry.path = Join(path, "expr");
    }
    const std::optional<Raw> raw =
        value == nullptr ? std::nullopt : ParseExpression(*value, entry.path, site);
    if (raw) entry.expr = raw->expr;
    return entry;
  }

  // A list of expressions; with `expected`, its length must be that (`of` names what counts).
  void ReadExpressionList(const Json& document, std::string_view key, const Site& site,
                          bool required, std::optional<std::size_t> expected, const std::string& of,
                          std::vector<expr::Expr>& out) {
    const Json* list = TypedField(document, "", key, Json::value_t::array, required);
    if (list == nullptr) return;
    if (expected && list->size() != *expected) {
      Problem(std::string(key), "has " + std::to_string(list->size()) + " entries but there are " +
                                    std::to_string(*expected) + " " + of);
    }
    for (std::size_t i = 0; i < list->size(); ++i) {
      const std::optional<Raw> raw = ParseExpression((*list)[i], Index(key, i), site);
      out.push_back(raw ? raw->expr : expr::Expr{});
    }
  }

  // `mass` is a full n×n matrix of expressions or a diagonal list of n.
  void ReadMass(const Json& document, std::size_t n, const Site& site) {
    const Json* mass = TypedField(document, "", "mass", Json::value_t::array, true);
    if (mass == nullptr) return;
    const bool full = !mass->empty() && (*mass)[0].is_array();
    if (mass->size() != n) {
      Problem("mass", "has " + std::to_string(mass->size()) + (full ? " rows" : " entries") +
                          " but there are " + std::to_string(n) +
                          " coordinates; give an n×n matrix or a diagonal list of n entries");
      return;
    }
    model_->mass.assign(n * n, context_->Constant(0.0));
    for (std::size_t i = 0; i < n; ++i) {
      const Json& row = (*mass)[i];
      const std::string path = Index("mass", i);
      if (!full) {
        model_->mass[i * n + i] = Entry(row, path, site);
      } else if (!row.is_array() || row.size() != n) {
        Problem(path,
                "must be a row of " + std::to_string(n) + " expressions, not " +
                    (row.is_array() ? std::to_string(row.size()) + " entries" : TypeName(row)));
      } else {
        for (std::size_t j = 0; j < n; ++j)
          model_->mass[i * n + j] = Entry(row[j], Index(path, j), site);
      }
    }
  }

  expr::Expr Entry(const Json& value, const std::string& path, const Site& site) {
    const std::optional<Raw> raw = ParseExpression(value, path, site);
    return raw ? raw->expr : expr::Expr{};
  }

  // Constraints are expressions or objects {"name": …, "expr": …}.
  void ReadConstraints(const Json& document, const Site& site) {
    const Json* list = TypedField(document, "", "constraints", Json::value_t::array, false);
    if (list == nullptr) return;
    for (std::size_t i = 0; i < list->size(); ++i) {
      NamedExpression entry = ReadNamedExpression((*list)[i], Index("constraints", i), i, site);
      model_->constraint_names.push_back(std::move(entry.name));
      model_->constraints.push_back(entry.expr);
    }
  }

  const Json* TypedFieldAny(const Json& object, const std::string& parent, std::string_view key) {
    const Json* value = Field(object, key);
    if (value == nullptr) Problem(Join(parent, key), "required field is missing");
    return value;
  }

  // Outputs are expressions or objects {"expr": …, "unit": …, "description": …}.
  void ReadOutputs(const Json& document, const Site& site) {
    const Json* outputs = Field(document, "outputs");
    if (outputs == nullptr || !outputs->is_object()) return;
    for (const auto& item : outputs->items()) {
      std::string path = "outputs." + item.key();
      Output output{.name = item.key(), .unit = "", .description = "", .value = {}};
      const Json* value = &item.value();
      if (value->is_object()) {
        CheckKeys(*value, path, std::array<std::string_view, 3>{"expr", "unit", "description"});
        output.unit = ReadString(*value, path, "unit", false).value_or("");
        output.description = ReadString(*value, path, "description", false).value_or("");
        value = TypedFieldAny(item.value(), path, "expr");
        path = Join(path, "expr");
      }
      const std::optional<Raw> raw =
          value == nullptr ? std::nullopt : ParseExpression(*value, path, site);
      output.value = raw ? raw->expr : expr::Expr{};
      model_->outputs.push_back(std::move(output));
    }
  }

  // ---- Initial values, units, settings -----------------------------------------------------

  std::vector<std::string> StateNames() const {
    std::vector<std::string> states;
    for (const Variable& variable : implicit_.variables) states.push_back(variable.name);
    for (const Variable* variable : model_->states()) states.push_back(variable->name);
    return states;
  }

  // The state variable `name` names, or a problem at `path`.
  Variable* FindState(const std::string& name, const std::string& path) {
    const auto it = names_.find(name);
    if (it == names_.end()) {
      if (undeclared_.contains(name)) return nullptr;  // its unknown field is reported
      const std::string hint = Suggesting() ? DidYouMean(name, StateNames()) : "";
      Problem(path, "unknown variable '" + name + "'" + hint);
      return nullptr;
    }
    const NameEntry& entry = it->second;
    switch (entry.kind) {
      case NameKind::kCoordinate: return &model_->coordinates[entry.index];
      case NameKind::kVelocity: return &model_->velocities[entry.index];
      case NameKind::kDifferential: return &model_->differential[entry.index];
      case NameKind::kAlgebraic: return &model_->algebraic[entry.index];
      case NameKind::kVariable: return &implicit_.variables[entry.index];
      default: break;
    }
    Problem(path, "'" + name + "' is a " + KindName(entry.kind) + ", not a state variable");
    return nullptr;
  }

  void ReadInitial(const Json& document) {
    const Json* initial = TypedField(document, "", "initial", Json::value_t::object, false);
    if (initial == nullptr) return;
    for (const auto& item : initial->items()) {
      const std::string path = "initial." + item.key();
      const Variable* state = FindState(item.key(), path);
      const std::optional<double> value = ReadNumber(item.value(), path);
      if (state != nullptr && value) model_->initial[item.key()] = *value;
    }
  }

  void ReadUnits(const Json& document) {
    const Json* units = TypedField(document, "", "units", Json::value_t::object, false);
    if (units == nullptr) return;
    for (const auto& item : units->items()) {
      const std::string path = "units." + item.key();
      if (!item.value().is_string()) {
        Problem(path, "must be a unit (a string), not " + TypeName(item.value()));
        continue;
      }
      const std::string unit = item.value().get<std::string>();
      const auto it = names_.find(item.key());
      if (item.key() == "t") {
        model_->time_unit = unit;
      } else if (it != names_.end() && it->second.kind == NameKind::kParameter) {
        Problem(path, "give a parameter's unit as parameters." + item.key() +
                          " = {\"value\": …, \"unit\": \"" + unit + "\"}");
      } else if (Variable* state = FindState(item.key(), path)) {
        state->unit = unit;
      }
    }
  }

  void ReadSimulation(const Json& document) {
    const Json* simulation = TypedField(document, "", "simulation", Json::value_t::object, false);
    if (simulation == nullptr) return;
    CheckKeys(*simulation, "simulation",
              std::array<std::string_view, 2>{"t_end", "output_interval"});
    model_->t_end = PositiveSetting(*simulation, "t_end");
    model_->output_interval = PositiveSetting(*simulation, "output_interval");
  }

  std::optional<double> PositiveSetting(const Json& simulation, std::string_view key) {
    const Json* value = Field(simulation, key);
    if (value == nullptr) return std::nullopt;
    const std::string path = Join("simulation", key);
    const std::optional<double> number = ReadNumber(*value, path);
    if (number && *number <= 0) {
      Problem(path, "must be > 0, not " + value->dump());
      return std::nullopt;
    }
    return number;
  }

  // ---- Building ----------------------------------------------------------------------------

  // Substitutes the definitions, then reduces an implicit model (model/implicit_spec.h).
  void Build() {
    SubstituteDefinitions();
    if (!IsImplicit() || refused_ || !problems_.empty()) return;
    ReduceImplicitSpec(std::move(implicit_), limits_.max_nodes, *model_, problems_);
    CheckNodeCount();
  }

  // Substitutes the definitions (dependencies first) into every expression of the model.
  void SubstituteDefinitions() {
    model_->time = context_->Symbol("t");
    std::vector<std::pair<expr::Expr, expr::Expr>> resolved;
    for (std::size_t d : definition_order_.order) {
      const expr::Expr value = context_->Substitute(definition_raw_[d]->expr, resolved);
      resolved.emplace_back(context_->Symbol(definition_names_[d]), value);
      if (!WithinNodeLimit()) return;
    }
    if (resolved.empty()) return;
    for (std::vector<expr::Expr>* list : {&model_->mass, &model_->forces, &model_->rhs,
                                          &model_->constraints, &model_->inequalities,
                                          &implicit_.equations}) {
      for (expr::Expr& e : *list) {
        e = context_->Substitute(e, resolved);
        if (!WithinNodeLimit()) return;
      }
    }
    for (Output& output : model_->outputs) {
      output.value = context_->Substitute(output.value, resolved);
      if (!WithinNodeLimit()) return;
    }
  }

  // ---- Structure: what can be refused without numbers ------------------------------------

  void CheckStructure() {
    if (IsMechanical()) {
      CheckMassSymmetry();
      CheckConstraintsUseCoordinates();
    } else if (form_ == Form::kIndex1) {
      CheckAlgebraicDetermined();
    }
  }

  // M = Mᵀ. Entries that are different expressions are compared at three points (every symbol
  // at a value fixed by its name and the point, in [0.5, 2]), so entries written differently
  // but equal (cos(a−b) and cos(b−a)) pass; a difference above 1e-9·max(1, |Mᵢⱼ|, |Mⱼᵢ|) — far
  // above the rounding of one entry, far below any intended asymmetry — refuses the spec.
  void CheckMassSymmetry() {
    const std::size_t n = model_->coordinates.size();
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i + 1; j < n; ++j) {
        const expr::Expr upper = model_->mass[i * n + j];
        const expr::Expr lower = model_->mass[j * n + i];
        if (upper == lower || !Asymmetric(upper, lower)) continue;
        constexpr std::size_t kQuoted = 60;
        const std::string upper_path = Index(Index("mass", i), j);
        const std::string lower_path = Index(Index("mass", j), i);
        Problem(upper_path, "the mass matrix must be symmetric, but " + upper_path + " is '" +
                                context_->ToString(upper, kQuoted) + "' and " + lower_path +
                                " is '" + context_->ToString(lower, kQuoted) + "'");
      }
    }
  }

  bool Asymmetric(expr::Expr a, expr::Expr b) const {
    constexpr int kPoints = 3;
    for (int point = 0; point < kPoints; ++point) {
      auto value_of = [&](expr::Expr symbol) {
        // FNV-1a of the name and the point, mapped to [0.5, 2].
        constexpr std::uint64_t kOffset = UINT64_C(1469598103934665603);
        constexpr std::uint64_t kPrime = UINT64_C(1099511628211);
        std::uint64_t h = kOffset + static_cast<std::uint64_t>(point);
        for (char ch : context_->symbol_name(symbol)) {
          h = (h ^ static_cast<std::uint64_t>(static_cast<unsigned char>(ch))) * kPrime;
        }
        return 0.5 + 1.5 * static_cast<double>(h >> 11) * 0x1.0p-53;
      };
      const double x = context_->Evaluate(a, value_of);
      const double y = context_->Evaluate(b, value_of);
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      constexpr double kRelative = 1e-9;
      if (std::fabs(x - y) > kRelative * std::max({1.0, std::fabs(x), std::fabs(y)})) return true;
    }
    return false;
  }

  // Φ(q, t) = 0 with no coordinate in it cannot be satisfied by moving the mechanism.
  void CheckConstraintsUseCoordinates() {
    for (std::size_t i = 0; i < model_->constraints.size(); ++i) {
      const expr::Expr phi = model_->constraints[i];
      bool uses_coordinate = false;
      for (const Variable& q : model_->coordinates) {
        uses_coordinate = uses_coordinate || context_->DependsOn(phi, q.symbol);
      }
      if (uses_coordinate) continue;
      Problem(Index("constraints", i),
              "a constraint of a mechanical model must depend on the coordinates, but '" +
                  context_->ToString(phi, 60) + "' depends on none (Φ(q,t) = 0 constrains q)");
    }
  }

  // g_y must be regular, so structurally: a matching of constraints to algebraic variables
  // that covers every variable (Kuhn's augmenting paths over the sparsity of g_y).
  void CheckAlgebraicDetermined() {
    const std::size_t ny = model_->algebraic.size();
    if (model_->constraints.size() != ny) return;  // reported already
    std::map<std::uint32_t, std::size_t> column_of;
    for (std::size_t j = 0; j < ny; ++j) column_of[model_->algebraic[j].symbol.id] = j;
    std::vector<std::vector<std::size_t>> columns(ny);  // per constraint: the y it contains
    std::vector<char> used(ny, 0);
    for (std::size_t i = 0; i < ny; ++i) {
      for (expr::Expr symbol : context_->FreeSymbols(model_->constraints[i])) {
        const auto it = column_of.find(symbol.id);
        if (it == column_of.end()) continue;
        columns[i].push_back(it->second);
        used[it->second] = 1;
      }
    }
    for (std::size_t j = 0; j < ny; ++j) {
      if (used[j]) continue;
      Problem(Index("algebraic", j),
              "algebraic variable '" + model_->algebraic[j].name +
                  "' appears in no constraint, so nothing determines it (index 1 needs g_y "
                  "regular; g_y has a zero column for it)");
    }
    if (!problems_.empty()) return;
    std::vector<std::size_t> row_of(ny, ny);  // matched constraint of each variable
    for (std::size_t i = 0; i < ny; ++i) {
      std::vector<char> visited(ny, 0);
      if (Augment(i, columns, row_of, visited)) continue;
      if (columns[i].empty()) {
        Problem(Index("constraints", i),
                "'" + context_->ToString(model_->constraints[i], 60) +
                    "' contains no algebraic variable, so g_y has a zero row (index 1 needs g_y "
                    "regular; a constraint on the differential variables alone is form index2)");
        return;
      }
      Problem(Index("constraints", i),
              "the constraints determine fewer algebraic variables than there are: this one "
              "uses only variables other constraints already determine (" +
                  JoinAlgebraic(columns[i]) +
                  "), so g_y is structurally singular (index 1 needs g_y regular)");
      return;
    }
  }

  static bool Augment(std::size_t row, const std::vector<std::vector<std::size_t>>& columns,
                      std::vector<std::size_t>& row_of, std::vector<char>& visited) {
    for (std::size_t j : columns[row]) {
      if (visited[j]) continue;
      visited[j] = 1;
      if (row_of[j] == row_of.size() || Augment(row_of[j], columns, row_of, visited)) {
        row_of[j] = row;
        return true;
      }
    }
    return false;
  }

  std::string JoinAlgebraic(const std::vector<std::size_t>& indices) const {
    std::vector<std::string> names;
    for (std::size_t j : indices) names.push_back("'" + model_->algebraic[j].name + "'");
    return JoinNames(names);
  }

  bool WithinNodeLimit() {
    CheckNodeCount();
    return !refused_;
  }

  const SpecLimits& limits_;
  std::vector<SpecProblem> problems_;
  std::shared_ptr<expr::Context> context_;
  std::shared_ptr<Model> model_;
  std::optional<Form> form_;
  ImplicitSpec implicit_;  // the implicit form's variables and equations, until Build
  bool refused_ = false;  // a limit was exceeded: stop processing
  std::map<std::string, NameEntry, std::less<>> names_;
  std::set<std::string, std::less<>> undeclared_;  // declared by unknown fields

  std::vector<std::string> definition_names_;
  std::vector<std::optional<Raw>> definition_raw_;
  DefinitionOrder definition_order_;
  std::vector<std::map<NameKind, std::string>> reach_;
  std::vector<std::size_t> definition_depth_;
};

}  // namespace

ModelResult ReadSpec(std::string_view json_text, const SpecLimits& limits) {
  return SpecReader(limits).Run(json_text);
}

std::size_t UnlistedProblems(const std::vector<SpecProblem>& problems) {
  if (problems.size() != kMaxListedProblems + 1) return 0;
  const SpecProblem& last = problems.back();
  const std::string_view text = last.message;
  if (!last.path.empty() || text.substr(0, kUnlistedPrefix.size()) != kUnlistedPrefix ||
      text.size() < kUnlistedPrefix.size() + kUnlistedSuffix.size() ||
      text.substr(text.size() - kUnlistedSuffix.size()) != kUnlistedSuffix) {
    return 0;
  }
  std::size_t n = 0;
  const char* begin = text.data() + kUnlistedPrefix.size();
  const char* end = text.data() + text.size() - kUnlistedSuffix.size();
  const auto parsed = std::from_chars(begin, end, n);
  return parsed.ec == std::errc() && parsed.ptr == end ? n : 0;
}

}  // namespace tether::model
