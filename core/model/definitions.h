// Ordering of a spec's definitions: each may use others, in any order, as long as no chain of
// uses leads back to where it started.
#pragma once

#include <cstddef>
#include <vector>

namespace tether::model {

struct DefinitionOrder {
  // Definitions that neither lie on a cycle nor use one, each after every definition it uses
  // (the order in which substitution can resolve them).
  std::vector<std::size_t> order;
  // Each cycle found, as the path a → b → … → a (first element repeated at the end).
  std::vector<std::vector<std::size_t>> cycles;
  // broken[i]: definition i lies on a cycle or uses, directly or not, one that does.
  std::vector<bool> broken;
};

// `uses[i]` lists the definitions that definition i uses directly (repeats allowed).
// Depth-first search: O(definitions + uses).
DefinitionOrder OrderDefinitions(const std::vector<std::vector<std::size_t>>& uses);

}  // namespace tether::model
