// The CLI's words for the API's enum values, derived from the proto's own names so that a value
// added to the proto is printed without a table here: COLUMN_KIND_INEQUALITY_MULTIPLIER →
// "inequality_multiplier", MODEL_FORM_INDEX1 → "index1", SESSION_STATE_RUNNING → "running".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <google/protobuf/descriptor.h>

#include "tether/v1/simulation_service.pb.h"

namespace tether::cli {

// `name` without `prefix`, lowercased; "unspecified" for an unknown value (empty name).
std::string EnumText(std::string_view name, std::string_view prefix);

// The words of every value of `type` but the unspecified 0, in declaration order: the choices
// of a CLI option that sets a field of this type.
std::vector<std::string> EnumWords(const google::protobuf::EnumDescriptor& type,
                                   std::string_view prefix);
// The value whose word is `word`; 0 (unspecified: the server's default) for "" or no match.
int EnumValueOf(const google::protobuf::EnumDescriptor& type, std::string_view prefix,
                std::string_view word);

// The option words of the solver enums: PROJECTION_METRIC_WEIGHTED → "weighted".
template <typename Enum>
struct EnumOption;
#define TETHER_CLI_ENUM_OPTION(Enum, kPrefix)                                        \
  template <>                                                                        \
  struct EnumOption<v1::Enum> {                                                      \
    static std::vector<std::string> Words() {                                        \
      return EnumWords(*v1::Enum##_descriptor(), kPrefix);                           \
    }                                                                                \
    static v1::Enum Parse(std::string_view word) {                                   \
      return static_cast<v1::Enum>(EnumValueOf(*v1::Enum##_descriptor(), kPrefix, word)); \
    }                                                                                \
  };
TETHER_CLI_ENUM_OPTION(ProjectionMethod, "PROJECTION_METHOD_")
TETHER_CLI_ENUM_OPTION(ProjectionMetric, "PROJECTION_METRIC_")
TETHER_CLI_ENUM_OPTION(NewtonVariant, "NEWTON_VARIANT_")
TETHER_CLI_ENUM_OPTION(AlgebraicMode, "ALGEBRAIC_MODE_")
#undef TETHER_CLI_ENUM_OPTION

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
