// The CLI's words for the API's enum values, derived from the proto's own names so that a value
// added to the proto is printed without a table here: COLUMN_KIND_INEQUALITY_MULTIPLIER →
// "inequality_multiplier", MODEL_FORM_INDEX1 → "index1", SESSION_STATE_RUNNING → "running".
#pragma once

#include <string>
#include <string_view>

#include "tether/v1/simulation_service.pb.h"

namespace tether::cli {

// `name` without `prefix`, lowercased; "unspecified" for an unknown value (empty name).
std::string EnumText(std::string_view name, std::string_view prefix);

inline std::string FormText(v1::ModelForm form) {
  return EnumText(v1::ModelForm_Name(form), "MODEL_FORM_");
}
inline std::string RoleText(v1::VariableRole role) {
  return EnumText(v1::VariableRole_Name(role), "VARIABLE_ROLE_");
}
inline std::string KindText(v1::ColumnKind kind) {
  return EnumText(v1::ColumnKind_Name(kind), "COLUMN_KIND_");
}
inline std::string StateText(v1::SessionState state) {
  return EnumText(v1::SessionState_Name(state), "SESSION_STATE_");
}

}  // namespace tether::cli
