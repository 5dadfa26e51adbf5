// Internal invariants of core/expr: violations are programming errors of the caller (an
// invalid handle, a symbol left unbound in Compile), never bad user input, which the parser
// reports as values. They are always checked and abort with a message.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace tether::expr::internal {

[[noreturn]] inline void Fatal(const std::string& what) {
  std::fprintf(stderr, "tether::expr: %s\n", what.c_str());
  std::abort();
}

inline void CheckInvariant(bool condition, const char* what) {
  if (!condition) Fatal(what);
}

}  // namespace tether::expr::internal
