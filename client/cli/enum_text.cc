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

}  // namespace tether::cli
