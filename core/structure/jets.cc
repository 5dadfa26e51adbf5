#include "tether/structure/jets.h"

#include <cstdio>
#include <cstdlib>

namespace tether::structure {
namespace {

constexpr std::string_view kOpen = "der(";
constexpr std::string_view kClose = ")";

}  // namespace

std::string JetName(std::string_view variable, int order) {
  if (order < 0 || order > kMaxJetOrder) {
    std::fprintf(stderr, "tether::structure: JetName: order %d outside [0, %d]\n", order,
                 kMaxJetOrder);
    std::abort();
  }
  const auto k = static_cast<std::size_t>(order);
  std::string name;
  name.reserve(variable.size() + k * (kOpen.size() + kClose.size()));
  for (std::size_t i = 0; i < k; ++i) name += kOpen;
  name += variable;
  for (std::size_t i = 0; i < k; ++i) name += kClose;
  return name;
}

expr::Expr JetSymbol(expr::Context& context, std::string_view variable, int order) {
  return context.Symbol(JetName(variable, order));
}

JetNameParts SplitJetName(std::string_view name) {
  std::string_view inner = name;
  int order = 0;
  while (order < kMaxJetOrder && inner.size() > kOpen.size() + kClose.size() &&
         inner.starts_with(kOpen) && inner.ends_with(kClose)) {
    inner = inner.substr(kOpen.size(), inner.size() - kOpen.size() - kClose.size());
    ++order;
  }
  if (inner.find_first_of("()") != std::string_view::npos) return {name, 0};
  return {inner, order};
}

}  // namespace tether::structure
