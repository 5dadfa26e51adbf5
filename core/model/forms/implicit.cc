#include "model/forms/implicit.h"

#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/spec_reading.h"
#include "tether/structure/jets.h"

namespace tether::model {
namespace {

using expr::Expr;

constexpr std::array<std::string_view, 2> kFields = {"variables", "equations"};

// The equations as written, until the analysis reduces them.
struct WrittenEquations {
  std::vector<Variable> variables;          // as written, units already read
  std::vector<std::string> equation_names;  // "equations[i]" unless named
  std::vector<std::string> equation_paths;  // "equations[i]" or "equations[i].expr"
  std::vector<expr::Expr> equations;        // residuals lhs − rhs, definitions substituted
};

// One problem; the analysis' message names every equation and variable involved. Its path is
// the one equation's when only one is involved, else "equations".
void ReportStructureError(const structure::StructureError& error, const WrittenEquations& spec,
                          std::vector<SpecProblem>& problems) {
  const std::string hint =
      error.kind == structure::StructureErrorKind::kStructurallySingular
          ? " (every variable needs an equation that determines it, and every equation a "
            "variable of its own: check that no equation is missing or written twice)"
          : "";
  const std::string path =
      error.equations.size() == 1 ? spec.equation_paths[error.equations.front()] : "equations";
  problems.push_back({path, 0, error.message + hint});
}

// z in the order the projector wants it: the states level-0 invariants depend on first.
std::vector<std::size_t> StateOrder(const structure::SemiExplicitSystem& system) {
  std::vector<std::size_t> order;
  std::vector<bool> taken(system.states.size(), false);
  if (!system.invariant_levels.empty()) {
    std::vector<std::size_t> first = system.invariant_levels.front().states;
    std::sort(first.begin(), first.end());
    for (std::size_t k : first) {
      order.push_back(k);
      taken[k] = true;
    }
  }
  for (std::size_t k = 0; k < system.states.size(); ++k) {
    if (!taken[k]) order.push_back(k);
  }
  return order;
}

// Fills `model` (outputs with definitions substituted) from `spec`, or appends the problems
// found. `max_new_nodes` bounds the expression nodes the reduction may add.
void ReduceImplicitSpec(WrittenEquations spec, std::size_t max_new_nodes, Model& model,
                        std::vector<SpecProblem>& problems) {
  expr::Context& cx = *model.context;
  structure::ImplicitDae dae;
  dae.time = model.time;
  for (const Variable& v : spec.variables) dae.variables.push_back(v.symbol);
  for (std::size_t i = 0; i < spec.equations.size(); ++i) {
    dae.equations.push_back({spec.equation_names[i], spec.equations[i]});
  }
  structure::StructureOptions options;
  options.max_new_nodes = max_new_nodes;
  options.max_equations = std::max<std::size_t>(1, spec.equations.size());
  structure::StructureResult result = structure::ReduceImplicitDae(cx, dae, options);
  if (!result.ok()) {
    ReportStructureError(*result.error, spec, problems);
    return;
  }
  const structure::SemiExplicitSystem& system = *result.system;

  // A jet's unit: the variable's per time unit for each order ("m/s" → der: "m/s/s").
  auto unit_of = [&spec, &model](const structure::Jet& jet) {
    std::string unit = spec.variables[jet.variable].unit;
    if (jet.order > 0 && (unit.empty() || model.time_unit.empty())) return std::string();
    for (int k = 0; k < jet.order; ++k) unit += "/" + model.time_unit;
    return unit;
  };
  std::vector<std::pair<Expr, Expr>> derivatives;  // der(z_k) → φ_k, for the outputs
  for (std::size_t k : StateOrder(system)) {
    const structure::Jet& jet = system.states[k];
    model.differential.push_back(
        Variable{.name = cx.symbol_name(jet.symbol), .unit = unit_of(jet), .symbol = jet.symbol});
    model.rhs.push_back(system.state_derivatives[k]);
    derivatives.emplace_back(structure::JetSymbol(cx, cx.symbol_name(jet.symbol), 1),
                             system.state_derivatives[k]);
  }
  for (const structure::Jet& jet : system.unknowns) {
    model.algebraic.push_back(
        Variable{.name = cx.symbol_name(jet.symbol), .unit = unit_of(jet), .symbol = jet.symbol});
  }
  model.constraints = system.constraints;
  model.constraint_names = system.constraint_names;

  std::set<std::string, std::less<>> known = {"t"};
  for (const Variable* v : model.states()) known.insert(v->name);
  for (const Parameter& p : model.parameters) known.insert(p.name);
  for (Output& output : model.outputs) {
    output.value = cx.Substitute(output.value, derivatives);
    for (Expr symbol : cx.FreeSymbols(output.value)) {
      const std::string& name = cx.symbol_name(symbol);
      if (known.count(name) != 0) continue;
      problems.push_back(
          {"outputs." + output.name, 0,
           "uses " + name + ", which the reduced system does not know: '" +
               std::string(structure::SplitJetName(name).variable) +
               "' is determined algebraically, so its derivative is no unknown of the model"});
    }
  }

  auto form = std::make_shared<ImplicitForm>();
  form->variables = std::move(spec.variables);
  form->equation_names = std::move(spec.equation_names);
  form->equations = std::move(spec.equations);
  for (const structure::InvariantLevel& level : system.invariant_levels) {
    std::vector<Expr> values;
    std::vector<std::string> names;
    for (const structure::Invariant& invariant : level.invariants) {
      values.push_back(invariant.value);
      names.push_back(invariant.name);
    }
    form->invariants.push_back(std::move(values));
    form->invariant_names.push_back(std::move(names));
  }
  form->report = system.report;
  // The report's state indices follow the analysis' z; renumber them to the model's order.
  const std::vector<std::size_t> order = StateOrder(system);
  std::vector<std::size_t> position(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) position[order[k]] = k;
  for (structure::VariableReport& v : form->report.variables) {
    if (v.state != structure::kNone) v.state = position[v.state];
  }
  model.implicit = std::move(form);
}

class ImplicitReader final : public FormReader {
 public:
  void ReadVariables(SpecReading& reader, const Json& document) override {
    reader.ReadVariables(document, "variables", NameKind::kVariable, true, written_.variables);
    if (reader.refused()) return;
    if (Field(document, "variables") != nullptr && written_.variables.empty()) {
      reader.Problem("variables", "the model has no variables: name at least one");
    }
  }

  // `lhs = rhs` or a residual, each a string or an object {"name": …, "expr": …}; exactly one
  // per variable.
  void ReadEquations(SpecReading& reader, const Json& document) override {
    const Json* list = reader.TypedField(document, "", "equations", Json::value_t::array, true);
    if (list == nullptr) return;
    const std::size_t n = written_.variables.size();
    if (list->size() != n) {
      reader.Problem("equations", "has " + std::to_string(list->size()) +
                                      " equations but there are " + std::to_string(n) +
                                      " variables; form 'implicit' needs exactly one equation "
                                      "per variable");
    }
    const Site site{"an equation", Bit(NameKind::kParameter) | Bit(NameKind::kVariable), "",
                    true};
    for (std::size_t i = 0; i < list->size(); ++i) {
      NamedExpression entry = reader.ReadNamedExpression((*list)[i], Index("equations", i), i, site);
      written_.equation_names.push_back(std::move(entry.name));
      written_.equation_paths.push_back(std::move(entry.path));
      written_.equations.push_back(entry.expr);
    }
  }

  std::vector<std::vector<expr::Expr>*> Expressions() override { return {&written_.equations}; }

  void Build(SpecReading& reader) override {
    ReduceImplicitSpec(std::move(written_), reader.limits().max_nodes, reader.model(),
                       reader.problems());
    reader.CheckNodeCount();
  }

 private:
  WrittenEquations written_;
};

}  // namespace

std::span<const std::string_view> ImplicitSpec::fields() const { return kFields; }

// The reduced system's states are the semi-explicit forms' (x = z, y = w).
void ImplicitSpec::States(const Model& model, std::vector<const Variable*>& states,
                          std::vector<StateRole>* roles) const {
  AppendStates(model.differential, StateRole::kDifferential, states, roles);
  AppendStates(model.algebraic, StateRole::kAlgebraic, states, roles);
}

std::string_view ImplicitSpec::RefusedField(std::string_view key) const {
  if (key != "constraints") return {};
  return "form 'implicit' has no field 'constraints': write each constraint as one of the "
         "equations, e.g. \"x^2 + y^2 = l^2\"";
}

std::vector<std::string> ImplicitSpec::DescribedInvariants(const Model& model) const {
  if (model.implicit == nullptr || model.implicit->invariant_names.empty()) return {};
  return model.implicit->invariant_names.front();
}

std::unique_ptr<FormReader> ImplicitSpec::NewReader() const {
  return std::make_unique<ImplicitReader>();
}

}  // namespace tether::model
