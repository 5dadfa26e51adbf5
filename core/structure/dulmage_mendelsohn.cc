#include "structure/dulmage_mendelsohn.h"

#include <algorithm>

namespace tether::structure {
namespace {

// Looks for an augmenting path from the unmatched `start` equation by depth-first search
// (iterative: a path can be as long as the system), and flips it if found.
bool Augment(const SignatureMatrix& sigma, std::size_t start, Matching& m,
             std::vector<std::size_t>& visited_in, std::size_t round) {
  struct Frame {
    std::size_t equation;
    std::size_t next_entry;
    std::size_t via_variable;  // the variable through which this equation was reached
  };
  std::vector<Frame> stack = {{start, 0, kUnmatched}};
  while (!stack.empty()) {
    Frame& top = stack.back();
    const auto& row = sigma.rows[top.equation];
    if (top.next_entry == row.size()) {
      stack.pop_back();
      continue;
    }
    const std::size_t j = row[top.next_entry++].variable;
    if (visited_in[j] == round) continue;
    visited_in[j] = round;
    if (m.equation_of_variable[j] != kUnmatched) {
      stack.push_back({m.equation_of_variable[j], 0, j});
      continue;
    }
    // Free variable j: flip the path start → … → top.equation → j.
    std::size_t variable = j;
    for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
      m.variable_of_equation[it->equation] = variable;
      m.equation_of_variable[variable] = it->equation;
      variable = it->via_variable;
    }
    ++m.size;
    return true;
  }
  return false;
}

// Alternating-path closure from `seeds` on one side; fills the reached sets (sorted).
// From an equation every incident variable is reached; from a variable, only its matched
// equation (`over`). The under-determined search runs on the transposed incidence.
void Close(const std::vector<std::vector<std::size_t>>& adjacent,
           const std::vector<std::size_t>& partner_of_other, std::vector<std::size_t> seeds,
           std::size_t num_other, std::vector<std::size_t>* reached,
           std::vector<std::size_t>* reached_other) {
  std::vector<char> seen(adjacent.size(), 0);
  std::vector<char> seen_other(num_other, 0);
  for (std::size_t s : seeds) seen[s] = 1;
  while (!seeds.empty()) {
    const std::size_t node = seeds.back();
    seeds.pop_back();
    reached->push_back(node);
    for (std::size_t other : adjacent[node]) {
      if (seen_other[other]) continue;
      seen_other[other] = 1;
      reached_other->push_back(other);
      const std::size_t next = partner_of_other[other];
      if (next != kUnmatched && !seen[next]) {
        seen[next] = 1;
        seeds.push_back(next);
      }
    }
  }
  std::sort(reached->begin(), reached->end());
  std::sort(reached_other->begin(), reached_other->end());
}

}  // namespace

Matching MaximumMatching(const SignatureMatrix& sigma) {
  const std::size_t n = sigma.num_equations();
  Matching m;
  m.variable_of_equation.assign(n, kUnmatched);
  m.equation_of_variable.assign(sigma.num_variables, kUnmatched);
  // Greedy start: most equations of a sparse system match at once.
  for (std::size_t i = 0; i < n; ++i) {
    for (const SignatureEntry& e : sigma.rows[i]) {
      if (m.equation_of_variable[e.variable] == kUnmatched) {
        m.variable_of_equation[i] = e.variable;
        m.equation_of_variable[e.variable] = i;
        ++m.size;
        break;
      }
    }
  }
  std::vector<std::size_t> visited_in(sigma.num_variables, kUnmatched);
  for (std::size_t i = 0; i < n; ++i) {
    if (m.variable_of_equation[i] == kUnmatched) Augment(sigma, i, m, visited_in, i);
  }
  return m;
}

CoarseDecomposition DulmageMendelsohn(const SignatureMatrix& sigma) {
  const Matching m = MaximumMatching(sigma);
  const std::size_t n = sigma.num_equations();
  std::vector<std::vector<std::size_t>> variables_of(n);
  std::vector<std::vector<std::size_t>> equations_of(sigma.num_variables);
  for (std::size_t i = 0; i < n; ++i) {
    for (const SignatureEntry& e : sigma.rows[i]) {
      variables_of[i].push_back(e.variable);
      equations_of[e.variable].push_back(i);
    }
  }
  std::vector<std::size_t> free_equations;
  for (std::size_t i = 0; i < n; ++i) {
    if (m.variable_of_equation[i] == kUnmatched) free_equations.push_back(i);
  }
  std::vector<std::size_t> free_variables;
  for (std::size_t j = 0; j < sigma.num_variables; ++j) {
    if (m.equation_of_variable[j] == kUnmatched) free_variables.push_back(j);
  }
  CoarseDecomposition parts;
  Close(variables_of, m.equation_of_variable, std::move(free_equations), sigma.num_variables,
        &parts.over_equations, &parts.over_variables);
  Close(equations_of, m.variable_of_equation, std::move(free_variables), n,
        &parts.under_variables, &parts.under_equations);
  return parts;
}

}  // namespace tether::structure
