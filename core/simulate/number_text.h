// How simulate's messages print a number: 10 significant digits, enough to tell a switch time
// or a step end apart from its neighbours, short for round values ("0.5", "1e-06").
#pragma once

#include <cstdio>
#include <string>

namespace tether::simulate {

inline std::string Num(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.10g", x);
  return buffer;
}

}  // namespace tether::simulate
