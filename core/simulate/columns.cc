// DefaultColumns: the one place that decides what a run streams and in which order.
#include <string>
#include <utility>

#include "tether/simulate/simulation.h"

namespace tether::simulate {

std::vector<Column> DefaultColumns(const model::Model& model) {
  std::vector<Column> columns;
  const std::vector<const model::Variable*> states = model.states();
  const std::vector<model::StateRole> roles = model.state_roles();
  for (std::size_t i = 0; i < states.size(); ++i) {
    const bool algebraic = roles[i] == model::StateRole::kAlgebraic;
    columns.push_back({states[i]->name, states[i]->unit,
                       algebraic ? ColumnKind::kAlgebraic : ColumnKind::kState});
  }
  for (std::string& name : model::SpecOf(model.form).MultiplierColumns(model)) {
    columns.push_back({std::move(name), "", ColumnKind::kMultiplier});
  }
  for (std::size_t i = 0; i < model.inequalities.size(); ++i) {
    columns.push_back({"mu_" + std::to_string(i + 1), "", ColumnKind::kInequalityMultiplier});
  }
  for (std::size_t i = 0; i < model.inequalities.size(); ++i) {
    columns.push_back({"active_" + std::to_string(i + 1), "", ColumnKind::kActive});
  }
  for (const model::Output& o : model.outputs) {
    columns.push_back({o.name, o.unit, ColumnKind::kOutput});
  }
  return columns;
}

}  // namespace tether::simulate
