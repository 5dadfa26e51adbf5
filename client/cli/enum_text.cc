#include "cli/enum_text.h"

#include <cctype>

namespace tether::cli {

std::string EnumText(std::string_view name, std::string_view prefix) {
  if (name.substr(0, prefix.size()) == prefix) name.remove_prefix(prefix.size());
  if (name.empty()) return "unspecified";
  std::string text(name);
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::vector<std::string> EnumWords(const google::protobuf::EnumDescriptor& type,
                                   std::string_view prefix) {
  std::vector<std::string> words;
  for (int i = 0; i < type.value_count(); ++i) {
    if (type.value(i)->number() != 0) words.push_back(EnumText(type.value(i)->name(), prefix));
  }
  return words;
}

int EnumValueOf(const google::protobuf::EnumDescriptor& type, std::string_view prefix,
                std::string_view word) {
  for (int i = 0; i < type.value_count(); ++i) {
    const google::protobuf::EnumValueDescriptor& value = *type.value(i);
    if (value.number() != 0 && EnumText(value.name(), prefix) == word) return value.number();
  }
  return 0;
}

}  // namespace tether::cli
