#include "model/implicit_spec.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tether/structure/jets.h"

namespace tether::model {
namespace {

using expr::Expr;

// One problem; the analysis' message names every equation and variable involved. Its path is
// the one equation's when only one is involved, else "equations".
void ReportStructureError(const structure::StructureError& error, const ImplicitSpec& spec,
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

}  // namespace

void ReduceImplicitSpec(ImplicitSpec spec, std::size_t max_new_nodes, Model& model,
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

}  // namespace tether::model
