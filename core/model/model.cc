#include "tether/model/model.h"

#include <algorithm>
#include <initializer_list>

#include "model/spec_reader.h"
#include "tether/expr/number_text.h"

namespace tether::model {

std::string SpecProblem::ToString() const {
  std::string text = path;
  if (column > 0) text += (text.empty() ? "col " : ", col ") + std::to_string(column);
  return text.empty() ? message : text + ": " + message;
}

bool SpecLimits::IsValid(std::string* why) const {
  const std::pair<const char*, std::size_t> limits[] = {
      {"max_document_bytes", max_document_bytes},
      {"max_expression_length", max_expression_length},
      {"max_expression_depth", max_expression_depth > 0 ? std::size_t{1} : std::size_t{0}},
      {"max_nodes", max_nodes},
      {"max_variables", max_variables},
      {"max_parameters", max_parameters},
      {"max_constraints", max_constraints},
      {"max_outputs", max_outputs},
      {"max_definitions", max_definitions},
      {"max_expanded_depth", max_expanded_depth},
  };
  for (const auto& [name, value] : limits) {
    if (value > 0) continue;
    if (why != nullptr) *why = std::string("SpecLimits::") + name + " must be > 0";
    return false;
  }
  return true;
}

SpecLimits SpecLimits::AtLeast(const SpecLimits& floor) const {
  SpecLimits raised = *this;
  for (auto field : {&SpecLimits::max_document_bytes, &SpecLimits::max_expression_length,
                     &SpecLimits::max_nodes, &SpecLimits::max_variables,
                     &SpecLimits::max_parameters, &SpecLimits::max_constraints,
                     &SpecLimits::max_outputs, &SpecLimits::max_definitions,
                     &SpecLimits::max_expanded_depth}) {
    raised.*field = std::max(raised.*field, floor.*field);
  }
  raised.max_expression_depth = std::max(raised.max_expression_depth, floor.max_expression_depth);
  return raised;
}

// A form fills only its own state lists (FormSpec::States lists them), so the sum is its count.
std::size_t Model::num_states() const {
  return coordinates.size() + velocities.size() + differential.size() + algebraic.size();
}

std::vector<const Variable*> Model::states() const {
  std::vector<const Variable*> result;
  SpecOf(form).States(*this, result, nullptr);
  return result;
}

std::vector<StateRole> Model::state_roles() const {
  std::vector<const Variable*> states;
  std::vector<StateRole> roles;
  SpecOf(form).States(*this, states, &roles);
  return roles;
}

const Parameter* Model::FindParameter(std::string_view wanted) const {
  for (const Parameter& parameter : parameters) {
    if (parameter.name == wanted) return &parameter;
  }
  return nullptr;
}

bool Parameter::InRange(double x) const {
  return !(minimum && !(x >= *minimum)) && !(maximum && !(x <= *maximum));
}

std::string Parameter::RangeText() const {
  using expr::ShortestText;
  if (minimum && maximum) {
    return "in [" + ShortestText(*minimum) + ", " + ShortestText(*maximum) + "]";
  }
  if (minimum) return ">= " + ShortestText(*minimum);
  if (maximum) return "<= " + ShortestText(*maximum);
  return "";
}

std::string ModelResult::ErrorText() const {
  std::string text;
  for (const SpecProblem& problem : problems) {
    if (!text.empty()) text += '\n';
    text += problem.ToString();
  }
  return text;
}

ModelResult ParseModel(std::string_view json_text, const SpecLimits& limits) {
  std::string why;
  if (!limits.IsValid(&why)) return ModelResult{.model = nullptr, .problems = {{"", 0, why}}};
  return ReadSpec(json_text, limits);
}

bool IsValidModelName(std::string_view name) {
  constexpr std::size_t kMaxLength = 63;  // [a-z] then up to 62 more
  if (name.empty() || name.size() > kMaxLength || name.front() < 'a' || name.front() > 'z') {
    return false;
  }
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace tether::model
