// DefaultColumns: the one place that decides what a run streams and in which order.
#include <algorithm>
#include <string>

#include "tether/simulate/simulation.h"

namespace tether::simulate {

std::vector<Column> DefaultColumns(const model::Model& model) {
  std::vector<Column> columns;
  for (const model::Variable* v : model.states()) {
    const bool algebraic =
        std::any_of(model.algebraic.begin(), model.algebraic.end(),
                    [&](const model::Variable& a) { return a.name == v->name; });
    columns.push_back({v->name, v->unit, algebraic ? ColumnKind::kAlgebraic : ColumnKind::kState});
  }
  if (model.form == model::Form::kMechanical) {
    for (std::size_t i = 0; i < model.constraints.size(); ++i) {
      columns.push_back({"lambda_" + std::to_string(i + 1), "", ColumnKind::kMultiplier});
    }
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
