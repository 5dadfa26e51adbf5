// Traversal of the DAG without recursion, so that a deep expression (a long sum is a chain as
// deep as it has terms) cannot overflow the stack.
//
// A `Context` creates a node only after its operands, so operand ids are always smaller than
// the id of the node using them: the reachable nodes sorted by id are a topological order.
#pragma once

#include <span>
#include <vector>

#include "tether/expr/expr.h"

namespace tether::expr::internal {

// Every node reachable from `roots`, each once, operands before their users.
std::vector<Expr> TopologicalOrder(const Context& context, std::span<const Expr> roots);

}  // namespace tether::expr::internal
