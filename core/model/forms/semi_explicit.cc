#include "model/forms/semi_explicit.h"

#include <array>
#include <map>
#include <string>
#include <utility>

#include "model/spec_reading.h"

namespace tether::model {
namespace {

constexpr std::array<std::string_view, 3> kFields = {"differential", "algebraic", "rhs"};

constexpr unsigned kIndexBits =
    Bit(NameKind::kParameter) | Bit(NameKind::kDifferential) | Bit(NameKind::kAlgebraic);

class SemiExplicitReader final : public FormReader {
 public:
  SemiExplicitReader(std::string_view form, bool constraints_without_algebraic, std::string why)
      : form_(form),
        constraints_without_algebraic_(constraints_without_algebraic),
        why_(std::move(why)) {}

  void ReadVariables(SpecReading& reader, const Json& document) override {
    Model& model = reader.model();
    reader.ReadVariables(document, "differential", NameKind::kDifferential, true,
                         model.differential);
    reader.ReadVariables(document, "algebraic", NameKind::kAlgebraic, false, model.algebraic);
    if (reader.refused()) return;
    if (Field(document, "differential") != nullptr &&
        model.differential.size() + model.algebraic.size() == 0) {
      reader.Problem("differential", "the model has no variables: name at least one");
    }
  }

  void ReadEquations(SpecReading& reader, const Json& document) override {
    Model& model = reader.model();
    const std::size_t nx = model.differential.size();
    const Site rhs{"a right-hand side", kIndexBits, ""};
    reader.ReadExpressionList(document, "rhs", rhs, true, nx, "differential variables",
                              model.rhs);
    const unsigned allowed =
        constraints_without_algebraic_ ? kIndexBits & ~Bit(NameKind::kAlgebraic) : kIndexBits;
    reader.ReadConstraints(document, Site{"a constraint", allowed, why_});
    const std::size_t ny = model.algebraic.size();
    if (model.constraints.size() != ny) {
      reader.Problem("constraints", "has " + std::to_string(model.constraints.size()) +
                                        " constraints but there are " + std::to_string(ny) +
                                        " algebraic variables; form '" + std::string(form_) +
                                        "' needs one constraint each");
    }
    reader.ReadExpressionList(document, "inequalities", Site{"an inequality", allowed, why_},
                              false, std::nullopt, "", model.inequalities);
  }

  void CheckStructure(SpecReading& reader) override {
    if (!constraints_without_algebraic_) CheckAlgebraicDetermined(reader);
  }

 private:
  // g_y must be regular, so structurally: a matching of constraints to algebraic variables
  // that covers every variable (Kuhn's augmenting paths over the sparsity of g_y).
  static void CheckAlgebraicDetermined(SpecReading& reader) {
    const Model& model = reader.model();
    const expr::Context& cx = reader.context();
    const std::size_t ny = model.algebraic.size();
    if (model.constraints.size() != ny) return;  // reported already
    std::map<std::uint32_t, std::size_t> column_of;
    for (std::size_t j = 0; j < ny; ++j) column_of[model.algebraic[j].symbol.id] = j;
    std::vector<std::vector<std::size_t>> columns(ny);  // per constraint: the y it contains
    std::vector<char> used(ny, 0);
    for (std::size_t i = 0; i < ny; ++i) {
      for (expr::Expr symbol : cx.FreeSymbols(model.constraints[i])) {
        const auto it = column_of.find(symbol.id);
        if (it == column_of.end()) continue;
        columns[i].push_back(it->second);
        used[it->second] = 1;
      }
    }
    bool unused = false;
    for (std::size_t j = 0; j < ny; ++j) {
      if (used[j]) continue;
      unused = true;
      reader.Problem(Index("algebraic", j),
                     "algebraic variable '" + model.algebraic[j].name +
                         "' appears in no constraint, so nothing determines it (index 1 needs "
                         "g_y regular; g_y has a zero column for it)");
    }
    if (unused || !reader.problems().empty()) return;
    std::vector<std::size_t> row_of(ny, ny);  // matched constraint of each variable
    for (std::size_t i = 0; i < ny; ++i) {
      std::vector<char> visited(ny, 0);
      if (Augment(i, columns, row_of, visited)) continue;
      if (columns[i].empty()) {
        reader.Problem(Index("constraints", i),
                       "'" + cx.ToString(model.constraints[i], 60) +
                           "' contains no algebraic variable, so g_y has a zero row (index 1 "
                           "needs g_y regular; a constraint on the differential variables alone "
                           "is form index2)");
        return;
      }
      std::vector<std::string> names;
      for (std::size_t j : columns[i]) names.push_back("'" + model.algebraic[j].name + "'");
      reader.Problem(Index("constraints", i),
                     "the constraints determine fewer algebraic variables than there are: this "
                     "one uses only variables other constraints already determine (" +
                         JoinNames(names) +
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

  std::string_view form_;
  bool constraints_without_algebraic_;
  std::string why_;
};

}  // namespace

std::span<const std::string_view> SemiExplicitSpec::fields() const { return kFields; }

void SemiExplicitSpec::States(const Model& model, std::vector<const Variable*>& states,
                              std::vector<StateRole>* roles) const {
  AppendStates(model.differential, StateRole::kDifferential, states, roles);
  AppendStates(model.algebraic, StateRole::kAlgebraic, states, roles);
}

std::unique_ptr<FormReader> SemiExplicitSpec::NewSemiExplicitReader(
    bool constraints_without_algebraic, std::string why) const {
  return std::make_unique<SemiExplicitReader>(name(), constraints_without_algebraic,
                                              std::move(why));
}

}  // namespace tether::model
