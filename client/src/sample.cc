#include "tether/client/sample.h"

#include <limits>

namespace tether::client {

std::optional<std::size_t> StreamColumns::Find(std::string_view name) const {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return i;
  }
  return std::nullopt;
}

double Sample::Value(std::string_view name) const {
  if (columns == nullptr) return std::numeric_limits<double>::quiet_NaN();
  const auto position = columns->Find(name);
  if (!position.has_value() || *position >= values.size()) return std::numeric_limits<double>::quiet_NaN();
  return values[*position];
}

}  // namespace tether::client
