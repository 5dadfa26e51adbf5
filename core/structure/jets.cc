#include "tether/structure/jets.h"

#include <cstdio>
#include <cstdlib>

#include "tether/expr/parse.h"

namespace tether::structure {
namespace {

// What expr::DerivativeName puts before and after its operand (the one definition of the
// spelling), found by naming a marker.
struct Affixes {
  std::string open;
  std::string close;
};

const Affixes& DerivativeAffixes() {
  static const Affixes affixes = [] {
    constexpr char kMarker = '\x01';
    const std::string name = expr::DerivativeName(std::string_view(&kMarker, 1));
    const std::size_t at = name.find(kMarker);
    return Affixes{name.substr(0, at), name.substr(at + 1)};
  }();
  return affixes;
}

}  // namespace

std::string JetName(std::string_view variable, int order) {
  if (order < 0 || order > kMaxJetOrder) {
    std::fprintf(stderr, "tether::structure: JetName: order %d outside [0, %d]\n", order,
                 kMaxJetOrder);
    std::abort();
  }
  // DerivativeName nested `order` times, built in one pass.
  const Affixes& affixes = DerivativeAffixes();
  const auto k = static_cast<std::size_t>(order);
  std::string name;
  name.reserve(variable.size() + k * (affixes.open.size() + affixes.close.size()));
  for (std::size_t i = 0; i < k; ++i) name += affixes.open;
  name += variable;
  for (std::size_t i = 0; i < k; ++i) name += affixes.close;
  return name;
}

expr::Expr JetSymbol(expr::Context& context, std::string_view variable, int order) {
  return context.Symbol(JetName(variable, order));
}

JetNameParts SplitJetName(std::string_view name) {
  const std::string_view open = DerivativeAffixes().open;
  const std::string_view close = DerivativeAffixes().close;
  std::string_view inner = name;
  int order = 0;
  while (order < kMaxJetOrder && inner.size() > open.size() + close.size() &&
         inner.starts_with(open) && inner.ends_with(close)) {
    inner = inner.substr(open.size(), inner.size() - open.size() - close.size());
    ++order;
  }
  if (inner.find_first_of("()") != std::string_view::npos) return {name, 0};
  return {inner, order};
}

}  // namespace tether::structure
