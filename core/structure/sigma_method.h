// Pryce's Σ-method on a signature matrix (Pryce, "A simple structural analysis method for
// DAEs", BIT 41 (2001) 364–394; Nedialkov & Pryce, "Solving differential-algebraic equations
// by Taylor series (I): computing Taylor coefficients", BIT 45 (2005) 561–591, §3).
//
// Given σ (n × n, tether/structure's signature_matrix.h):
//
// 1. A highest-value transversal T: a permutation i ↦ T(i) maximizing Val(T) = Σ_i σ_{i,T(i)}
//    with every σ_{i,T(i)} finite — a linear assignment problem, solved by the Hungarian
//    method with potentials (Kuhn 1955; the shortest-augmenting-path form of Jonker &
//    Volgenant, Computing 38 (1987) 325–340) on costs −σ_ij, in O(n³) time and O(n²) memory.
//    Absent entries cost B = n·max σ + 1, more than any finite assignment can gain, so an
//    optimum uses one only when no finite transversal exists (the caller checks that first
//    with a maximum matching).
//
// 2. The smallest offsets c_i ≥ 0, d_j with
//        d_j − c_i ≥ σ_ij for all i, j,   with equality on T,
//    by Pryce's fixed-point iteration (2001; Nedialkov & Pryce 2005, §3): c ← 0, then repeat
//        d_j ← max_i (σ_ij + c_i),   c_i ← d_{T(i)} − σ_{i,T(i)}
//    until c does not change. Writing k = T⁻¹(j), the constraints read c_k ≥ c_i + σ_ij − σ_kj:
//    the smallest c are longest paths from a virtual source in that graph, and the iteration
//    is Bellman–Ford relaxation on it. A cycle of positive weight would be an alternating
//    cycle improving Val(T), so for an optimal T there is none and the iteration settles in
//    at most n + 1 sweeps of O(|σ|) each. Any optimal T gives the same smallest offsets.
//
// 3. F_i is differentiated c_i times; x_j occurs at most to order d_j in the differentiated
//    system; the structural index is (Pryce 2001; Nedialkov & Pryce 2005)
//        ν_S = max_i c_i + (1 if some d_j = 0, else 0),
//    an upper bound of the differentiation index whenever the system Jacobian
//        J_ij = ∂F_i/∂x_j^(d_j − c_i)  (where d_j − c_i = σ_ij, else 0)
//    is regular at a consistent point (which this file does not check: it is combinatorics).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "structure/signature_matrix.h"

namespace tether::structure {

struct SigmaAnalysis {
  std::vector<std::size_t> transversal;  // equation i → variable T(i)
  std::vector<int> equation_offsets;     // c_i ≥ 0
  std::vector<int> variable_offsets;     // d_j ≥ 0
  int value = 0;                         // Val(T) = Σ_j d_j − Σ_i c_i
  int structural_index = 0;              // ν_S
};

// A highest-value transversal of the square `sigma`, or nothing when no transversal has only
// finite entries (or `sigma` is not square).
std::optional<std::vector<std::size_t>> HighestValueTransversal(const SignatureMatrix& sigma);

// The smallest offsets for the highest-value transversal `transversal` (aborts if it is not
// one: the iteration would not settle).
void SmallestOffsets(const SignatureMatrix& sigma, const std::vector<std::size_t>& transversal,
                     std::vector<int>* c, std::vector<int>* d);

// Steps 1–3, or nothing when there is no finite transversal.
std::optional<SigmaAnalysis> AnalyzeSignature(const SignatureMatrix& sigma);

}  // namespace tether::structure
