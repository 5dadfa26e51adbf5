#include "expr/traverse.h"

#include <algorithm>
#include <unordered_set>

namespace tether::expr::internal {

std::vector<Expr> TopologicalOrder(const Context& context, std::span<const Expr> roots) {
  std::unordered_set<std::uint32_t> seen;
  std::vector<Expr> order;
  std::vector<Expr> stack(roots.begin(), roots.end());
  while (!stack.empty()) {
    const Expr e = stack.back();
    stack.pop_back();
    if (!seen.insert(e.id).second) continue;
    order.push_back(e);
    for (Expr operand : context.operands(e)) {
      if (!seen.contains(operand.id)) stack.push_back(operand);
    }
  }
  std::sort(order.begin(), order.end(), [](Expr a, Expr b) { return a.id < b.id; });
  return order;
}

}  // namespace tether::expr::internal
