#include "cli/number_format.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace tether::cli {

std::string FormatExact(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  // 32 characters hold the longest shortest-round-trip form ("-2.2250738585072014e-308").
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

std::string FormatJson(double value) {
  return std::isfinite(value) ? FormatExact(value) : std::string("null");
}

std::string FormatShort(double value, int significant) {
  std::array<char, 48> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.*g", significant, value);
  return std::string(buffer.data());
}

}  // namespace tether::cli
