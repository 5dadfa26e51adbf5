#include "model/spec_reader.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/definitions.h"
#include "model/json_document.h"
#include "model/spec_reading.h"
#include "tether/expr/number_text.h"
#include "tether/expr/quote.h"
#include "tether/model/unlisted_problems.h"
#include "tether/expr/suggest.h"
#include "tether/expr/parse.h"
#include "tether/structure/jets.h"

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

// The fields every form has; each form adds its own (FormSpec::fields).
constexpr std::array<std::string_view, 12> kCommonFields = {
    "name",        "title",        "description", "form",    "parameters", "definitions",
    "constraints", "inequalities", "initial",     "outputs", "units",      "simulation"};

// Every kind of name an expression could use; a site's `allowed` narrows it.
constexpr unsigned kAllValueBits = Bit(NameKind::kParameter) | Bit(NameKind::kCoordinate) |
                                   Bit(NameKind::kVelocity) | Bit(NameKind::kDifferential) |
                                   Bit(NameKind::kAlgebraic) | Bit(NameKind::kVariable);

std::vector<std::string> FormNames() {
  std::vector<std::string> names;
  for (const FormSpec* spec : FormSpecs()) names.emplace_back(spec->name());
  return names;
}

// The form `name` is another name of ("index3" → mechanical), if any.
const FormSpec* FormOfAlias(std::string_view name) {
  for (const FormSpec* spec : FormSpecs()) {
    for (std::string_view alias : spec->aliases()) {
      if (alias == name) return spec;
    }
  }
  return nullptr;
}

}  // namespace

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

std::string TypeName(const Json& value) {
  if (value.is_null()) return "null";
  if (value.is_boolean()) return "a boolean";
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_array()) return "an array";
  return "an object";
}

std::string Index(std::string_view parent, std::size_t i) {
  return std::string(parent) + "[" + std::to_string(i) + "]";
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

const Json* Field(const Json& object, std::string_view key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

namespace {

struct NameEntry {
  NameKind kind;
  std::string path;
  std::size_t index;  // position in its namespace
  std::vector<Variable>* states = nullptr;  // the list a state variable is entry `index` of
};

// A parsed expression before definitions are substituted.
struct Raw {
  expr::Expr expr;
  std::vector<expr::NameUse> names;
  std::size_t depth = 0;
};

std::string Join(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
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

class SpecReader final : public SpecReading {
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
    if (refused_ || spec_ == nullptr || (!problems_.empty() && VariablesMissing(*document))) {
      return Finish();
    }
    ReadDefinitions(*document);
    ReadEquations(*document);
    ReadInitial(*document);
    ReadUnits(*document);
    ReadSimulation(*document);
    if (problems_.empty()) Build();
    if (problems_.empty()) CheckStructure();
    if (problems_.empty()) PlaceDerivativeInitials();
    return Finish();
  }

 private:
  // ---- Problems and small readers ----------------------------------------------------------

  void Problem(std::string path, std::string message, int column = 0) override {
    problems_.push_back({std::move(path), column, std::move(message)});
  }
  std::vector<SpecProblem>& problems() override { return problems_; }
  bool refused() const override { return refused_; }
  const SpecLimits& limits() const override { return limits_; }
  Model& model() override { return *model_; }
  expr::Context& context() override { return *context_; }

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

  // The field if present and of the wanted kind; reports a missing required field or a type.
  const Json* TypedField(const Json& object, const std::string& parent, std::string_view key,
                         Json::value_t type, bool required) override {
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
      if (const std::optional<Form> known = FormFromName(*form)) {
        model_->form = *known;
        spec_ = &SpecOf(*known);
        form_reader_ = spec_->NewReader();
      } else {
        const std::vector<std::string> forms = FormNames();
        const FormSpec* alias = FormOfAlias(*form);
        const std::string hint =
            alias == nullptr ? DidYouMean(*form, forms)
                             : " (did you mean '" + std::string(alias->name()) + "'? " +
                                   std::string(alias->alias_note()) + ")";
        Problem("form", "unknown form '" + *form + "'" + hint + "; expected " + OrList(forms));
      }
    }
  }

  bool VariablesMissing(const Json& document) const {
    return Field(document, spec_->variables_field()) == nullptr;
  }


  void CheckFields(const Json& document) {
    const bool any_form = spec_ == nullptr;
    std::vector<std::string> known(kCommonFields.begin(), kCommonFields.end());
    std::vector<std::string> any_forms_fields;  // of every form, once each
    for (const FormSpec* spec : FormSpecs()) {
      for (std::string_view field : spec->fields()) {
        const std::string name(field);
        if (std::find(any_forms_fields.begin(), any_forms_fields.end(), name) ==
            any_forms_fields.end()) {
          any_forms_fields.push_back(name);
          if (any_form || spec == spec_) known.push_back(name);
        } else if (spec == spec_ &&
                   std::find(known.begin(), known.end(), name) == known.end()) {
          known.push_back(name);
        }
      }
    }
    for (const auto& item : document.items()) {
      const std::string& key = item.key();
      if (!any_form) {
        const std::string_view refused = spec_->RefusedField(key);
        if (!refused.empty()) {
          Problem(key, std::string(refused));
          continue;
        }
        if (key == "inequalities" && spec_->inequalities() == InequalitySupport::kRefused) {
          Problem(key, "form '" + std::string(spec_->name()) +
                           "' does not support inequality constraints yet; write the model in " +
                           InequalityFormsText() + " to use them");
          continue;
        }
      }
      if (std::find(known.begin(), known.end(), key) != known.end()) continue;
      IgnoreNamesDeclaredBy(item.value());
      const std::string owner =
          any_form ? std::string("a model") : "form '" + std::string(spec_->name()) + "'";
      const std::string valid = "; the fields of " + owner + " are " + JoinNames(known);
      if (std::find(any_forms_fields.begin(), any_forms_fields.end(), key) !=
          any_forms_fields.end()) {
        Problem(key, "field '" + key + "' does not belong to form '" +
                         std::string(spec_->name()) + "'" + valid);
      } else {
        Problem(key, "unknown field '" + key + "'" + DidYouMean(key, known) + valid);
      }
    }
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
                std::size_t index, std::vector<Variable>* states = nullptr) {
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
    const auto [it, inserted] = names_.emplace(name, NameEntry{kind, path, index, states});
    if (!inserted) {
      Problem(path, "name '" + name + "' is already used by " + it->second.path);
      return false;
    }
    return true;
  }

  void ReadNames(const Json& document) {
    ReadParameters(document);
    if (spec_ == nullptr) return;
    form_reader_->ReadVariables(*this, document);
    if (!refused_) {
      std::size_t states = 0;
      for (const std::vector<Variable>* list : state_lists_) states += list->size();
      CheckCount(states, limits_.max_variables, "", "state variables");
    }
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
              "\"description\": …, \"min\": …, \"max\": …}, not " +
                  TypeName(value));
      return false;
    }
    CheckKeys(value, path,
              std::array<std::string_view, 5>{"value", "unit", "description", "min", "max"});
    parameter.unit = ReadString(value, path, "unit", false).value_or("");
    parameter.description = ReadString(value, path, "description", false).value_or("");
    const bool range_ok = ReadParameterRange(value, path, parameter);
    const Json* number = Field(value, "value");
    if (number == nullptr) {
      Problem(Join(path, "value"), "required field is missing");
      return false;
    }
    const std::optional<double> read = ReadNumber(*number, Join(path, "value"));
    parameter.value = read.value_or(0.0);
    if (!read || !range_ok) return false;
    if (!parameter.InRange(parameter.value)) {
      const char* bounds = parameter.minimum && parameter.maximum ? "its min and max"
                           : parameter.minimum                    ? "its min"
                                                                  : "its max";
      Problem(Join(path, "value"), "must be " + parameter.RangeText() + " (" + bounds +
                                       "), not " + expr::ShortestText(parameter.value));
      return false;
    }
    return true;
  }

  // The optional bounds "min" and "max": finite numbers with min < max. False when one is
  // refused: the default value is then not checked against the rest of the range, which
  // would report the same mistake twice.
  bool ReadParameterRange(const Json& value, const std::string& path, Parameter& parameter) {
    bool ok = true;
    for (const auto& [key, bound] : {std::pair{"min", &parameter.minimum},
                                     std::pair{"max", &parameter.maximum}}) {
      const Json* given = Field(value, key);
      if (given == nullptr) continue;
      *bound = ReadNumber(*given, Join(path, key));
      ok = ok && bound->has_value();
    }
    if (ok && parameter.minimum && parameter.maximum &&
        !(*parameter.minimum < *parameter.maximum)) {
      Problem(Join(path, "max"), "must be > min = " + expr::ShortestText(*parameter.minimum) +
                                     ", not " + expr::ShortestText(*parameter.maximum));
      ok = false;
    }
    return ok;
  }

  void ReadVariables(const Json& document, std::string_view key, NameKind kind, bool required,
                     std::vector<Variable>& variables) override {
    const Json* list = TypedField(document, "", key, Json::value_t::array, required);
    if (list == nullptr) return;
    state_lists_.push_back(&variables);
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
      Register(name, kind, path, variables.size(), &variables);
      variables.push_back(Variable{.name = name, .unit = "", .symbol = context_->Symbol(name)});
    }
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
    const expr::ParseOptions parse_options{.derivatives = spec_->derivatives(), .equation = site.equation};
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

  void CheckNodeCount() override {
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

  void ReadEquations(const Json& document) {
    form_reader_->ReadEquations(*this, document);
    ReadOutputs(document, Site{"an output", kAllValueBits, ""});
  }

  // An expression or an object {"name": …, "expr": …}, entry `index` of the list at `path`.
  NamedExpression ReadNamedExpression(const Json& element, const std::string& path,
                                      std::size_t index, const Site& site) override {
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
                          std::vector<expr::Expr>& out) override {
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

  expr::Expr ReadExpression(const Json& value, const std::string& path,
                            const Site& site) override {
    const std::optional<Raw> raw = ParseExpression(value, path, site);
    return raw ? raw->expr : expr::Expr{};
  }

  // Constraints are expressions or objects {"name": …, "expr": …}.
  void ReadConstraints(const Json& document, const Site& site) override {
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
    for (const std::vector<Variable>* list : state_lists_) {
      for (const Variable& variable : *list) states.push_back(variable.name);
    }
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
    if (entry.states != nullptr) return &(*entry.states)[entry.index];
    Problem(path, "'" + name + "' is a " + KindName(entry.kind) + ", not a state variable");
    return nullptr;
  }

  void ReadInitial(const Json& document) {
    const Json* initial = TypedField(document, "", "initial", Json::value_t::object, false);
    if (initial == nullptr) return;
    for (const auto& item : initial->items()) {
      const std::string path = "initial." + item.key();
      if (IsDerivativeOfAState(item.key())) {
        // Placed once the analysis has said which derivatives are states or unknowns.
        const std::optional<double> value = ReadNumber(item.value(), path);
        if (value) derivative_initials_.push_back({path, item.key(), *value});
        continue;
      }
      const Variable* state = FindState(item.key(), path);
      const std::optional<double> value = ReadNumber(item.value(), path);
      if (state != nullptr && value) model_->initial[item.key()] = *value;
    }
  }

  // der(x), der(der(x)), … of a variable, in a form written with der().
  bool IsDerivativeOfAState(const std::string& name) const {
    if (!spec_->derivatives()) return false;
    const structure::JetNameParts jet = structure::SplitJetName(name);
    if (jet.order < 1) return false;
    const auto it = names_.find(jet.variable);
    return it != names_.end() && it->second.states != nullptr;
  }

  // A derivative's start value (the guess consistent initialization starts its Newton from,
  // which picks the root where the equations have several) applies to the jets the analysis
  // made states or unknowns; a der(x) it substituted (der(x) = u) is no variable of the run.
  void PlaceDerivativeInitials() {
    std::set<std::string, std::less<>> jets;
    for (const Variable* v : model_->states()) jets.insert(v->name);
    for (const DerivativeInitial& d : derivative_initials_) {
      if (jets.contains(d.name)) {
        model_->initial[d.name] = d.value;
      } else {
        Problem(d.path, "'" + d.name + "' is no state or unknown of the analysed system (its "
                        "equation gives it as an expression of the others: `tether describe` "
                        "lists the variables); only those take start values");
      }
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

  // Substitutes the definitions, then lets the form derive what it does from its equations
  // (the implicit form's structural analysis).
  void Build() {
    SubstituteDefinitions();
    if (refused_ || !problems_.empty()) return;
    form_reader_->Build(*this);
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
    std::vector<std::vector<expr::Expr>*> lists = {&model_->mass, &model_->forces, &model_->rhs,
                                                   &model_->constraints, &model_->inequalities};
    for (std::vector<expr::Expr>* list : form_reader_->Expressions()) lists.push_back(list);
    for (std::vector<expr::Expr>* list : lists) {
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

  void CheckStructure() { form_reader_->CheckStructure(*this); }

  bool WithinNodeLimit() {
    CheckNodeCount();
    return !refused_;
  }

  const SpecLimits& limits_;
  std::vector<SpecProblem> problems_;
  std::shared_ptr<expr::Context> context_;
  std::shared_ptr<Model> model_;
  const FormSpec* spec_ = nullptr;            // the form named by the spec, once read
  std::unique_ptr<FormReader> form_reader_;  // reads its fields
  std::vector<std::vector<Variable>*> state_lists_;  // the state lists read, in order
  bool refused_ = false;  // a limit was exceeded: stop processing
  std::map<std::string, NameEntry, std::less<>> names_;
  std::set<std::string, std::less<>> undeclared_;  // declared by unknown fields
  struct DerivativeInitial {
    std::string path;  // "initial.der(x)"
    std::string name;
    double value = 0.0;
  };
  std::vector<DerivativeInitial> derivative_initials_;  // placed after the analysis

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
