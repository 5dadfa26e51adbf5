// How simulate's messages print a number: the shortest round-trip text, as every message of
// tether does (tether/expr/number_text.h).
#pragma once

#include <string>

#include "tether/expr/number_text.h"

namespace tether::simulate {

inline std::string Num(double x) { return expr::ShortestText(x); }

}  // namespace tether::simulate
