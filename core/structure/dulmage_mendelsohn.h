// Structural singularity: a maximum matching of the equation–variable incidence and the coarse
// Dulmage–Mendelsohn decomposition (Dulmage & Mendelsohn, "Coverings of bipartite graphs",
// Canad. J. Math. 10 (1958) 517–534; Pothen & Fan, "Computing the block triangular form of a
// sparse matrix", ACM TOMS 16 (1990) 303–324, §2).
//
// The incidence is the bipartite graph with an edge (F_i, x_j) wherever σ_ij is finite. A
// system has a finite transversal (Pryce's condition for the Σ-method to apply) iff a maximum
// matching M of this graph is perfect. When it is not, the graph splits uniquely into
//   the over-determined part  E_o ∪ V_o: the equations reachable from an unmatched equation
//        by alternating paths (any edge from an equation, then the matching edge of the
//        variable reached) and the variables on those paths; |E_o| > |V_o|: these equations
//        involve only these variables and are too many for them;
//   the under-determined part E_u ∪ V_u: likewise from the unmatched variables (any edge from
//        a variable, then the matching edge of the equation reached); |V_u| > |E_u|: these
//        variables appear only in these equations, too few to determine them;
//   the well-determined rest, square with a perfect matching.
// The parts do not depend on which maximum matching is found.
//
// The matching is grown by augmenting paths (Kuhn's method) from a greedy start: O(n·|E|)
// for n equations and |E| incidences, well below the O(n³) of the assignment that follows.
#pragma once

#include <cstddef>
#include <limits>
#include <vector>

#include "structure/signature_matrix.h"

namespace tether::structure {

inline constexpr std::size_t kUnmatched = std::numeric_limits<std::size_t>::max();

struct Matching {
  std::vector<std::size_t> variable_of_equation;  // kUnmatched where none
  std::vector<std::size_t> equation_of_variable;  // kUnmatched where none
  std::size_t size = 0;
};

// A maximum matching of the finite entries of `sigma`.
Matching MaximumMatching(const SignatureMatrix& sigma);

struct CoarseDecomposition {
  std::vector<std::size_t> over_equations;  // E_o, sorted
  std::vector<std::size_t> over_variables;  // V_o, sorted
  std::vector<std::size_t> under_equations;  // E_u, sorted
  std::vector<std::size_t> under_variables;  // V_u, sorted

  // True iff there is no perfect matching (some part is not empty).
  [[nodiscard]] bool singular() const {
    return !over_equations.empty() || !under_variables.empty();
  }
};

CoarseDecomposition DulmageMendelsohn(const SignatureMatrix& sigma);

}  // namespace tether::structure
