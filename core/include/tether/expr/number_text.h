// How messages print a number: the shortest text that reads back to the same double
// (std::to_chars), so that a message and the error details carrying the number agree to the
// last bit ("t = 0.1", "t = 0.30000000000000004", "1e-06", "inf", "nan").
#pragma once

#include <charconv>
#include <cmath>
#include <string>

namespace tether::expr {

inline std::string ShortestText(double x) {
  if (std::isnan(x)) return "nan";  // whatever its sign bit
  char buffer[32];  // to_chars needs at most 24 characters for a double
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, x);
  return std::string(buffer, result.ptr);
}

}  // namespace tether::expr
