#include "structure/sigma_method.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace tether::structure {

std::optional<std::vector<std::size_t>> HighestValueTransversal(const SignatureMatrix& sigma) {
  const std::size_t n = sigma.num_equations();
  if (sigma.num_variables != n) return std::nullopt;
  if (n == 0) return std::vector<std::size_t>{};
  // Dense costs, 1-based as in the textbook statement of the method: row 0 and column 0
  // are the virtual start of each augmenting search.
  const std::int64_t absent_cost =
      static_cast<std::int64_t>(n) * static_cast<std::int64_t>(sigma.MaxOrder()) + 1;
  const std::size_t width = n + 1;
  std::vector<std::int64_t> cost(width * width, absent_cost);
  for (std::size_t i = 0; i < n; ++i) {
    for (const SignatureEntry& e : sigma.rows[i]) cost[(i + 1) * width + e.variable + 1] = -e.order;
  }
  constexpr std::int64_t kInfinity = std::numeric_limits<std::int64_t>::max() / 4;
  std::vector<std::int64_t> u(width, 0), v(width, 0), min_slack(width);
  std::vector<std::size_t> row_of(width, 0), way(width, 0);
  std::vector<char> used(width);
  for (std::size_t i = 1; i <= n; ++i) {
    // Grow a shortest augmenting path from row i over reduced costs cost − u − v.
    row_of[0] = i;
    std::size_t j0 = 0;
    std::fill(min_slack.begin(), min_slack.end(), kInfinity);
    std::fill(used.begin(), used.end(), 0);
    do {
      used[j0] = 1;
      const std::size_t i0 = row_of[j0];
      std::int64_t delta = kInfinity;
      std::size_t j1 = 0;
      for (std::size_t j = 1; j <= n; ++j) {
        if (used[j]) continue;
        const std::int64_t slack = cost[i0 * width + j] - u[i0] - v[j];
        if (slack < min_slack[j]) {
          min_slack[j] = slack;
          way[j] = j0;
        }
        if (min_slack[j] < delta) {
          delta = min_slack[j];
          j1 = j;
        }
      }
      for (std::size_t j = 0; j <= n; ++j) {
        if (used[j]) {
          u[row_of[j]] += delta;  // potentials stay feasible: slack ≥ 0 everywhere
          v[j] -= delta;
        } else {
          min_slack[j] -= delta;
        }
      }
      j0 = j1;
    } while (row_of[j0] != 0);
    do {  // flip the path back to the virtual column
      const std::size_t j1 = way[j0];
      row_of[j0] = row_of[j1];
      j0 = j1;
    } while (j0 != 0);
  }
  std::vector<std::size_t> transversal(n);
  for (std::size_t j = 1; j <= n; ++j) transversal[row_of[j] - 1] = j - 1;
  for (std::size_t i = 0; i < n; ++i) {
    if (sigma.At(i, transversal[i]) == kAbsent) return std::nullopt;
  }
  return transversal;
}

void SmallestOffsets(const SignatureMatrix& sigma, const std::vector<std::size_t>& transversal,
                     std::vector<int>* c, std::vector<int>* d) {
  const std::size_t n = sigma.num_equations();
  c->assign(n, 0);
  d->assign(sigma.num_variables, 0);
  // Bellman–Ford settles within n + 1 sweeps; one more proves it did.
  for (std::size_t sweep = 0; sweep <= n + 1; ++sweep) {
    std::fill(d->begin(), d->end(), kAbsent);
    for (std::size_t i = 0; i < n; ++i) {
      for (const SignatureEntry& e : sigma.rows[i]) {
        (*d)[e.variable] = std::max((*d)[e.variable], e.order + (*c)[i]);
      }
    }
    bool changed = false;
    for (std::size_t i = 0; i < n; ++i) {
      const int ci = (*d)[transversal[i]] - sigma.At(i, transversal[i]);
      changed = changed || ci != (*c)[i];
      (*c)[i] = ci;
    }
    if (!changed) return;
  }
  std::fprintf(stderr,
               "tether::structure: SmallestOffsets: no settlement after n + 2 sweeps; the "
               "transversal is not of highest value\n");
  std::abort();
}

std::optional<SigmaAnalysis> AnalyzeSignature(const SignatureMatrix& sigma) {
  std::optional<std::vector<std::size_t>> transversal = HighestValueTransversal(sigma);
  if (!transversal) return std::nullopt;
  SigmaAnalysis analysis;
  analysis.transversal = std::move(*transversal);
  SmallestOffsets(sigma, analysis.transversal, &analysis.equation_offsets,
                  &analysis.variable_offsets);
  int max_c = 0;
  for (std::size_t i = 0; i < sigma.num_equations(); ++i) {
    analysis.value += sigma.At(i, analysis.transversal[i]);
    max_c = std::max(max_c, analysis.equation_offsets[i]);
  }
  const bool some_algebraic = std::any_of(analysis.variable_offsets.begin(),
                                          analysis.variable_offsets.end(),
                                          [](int dj) { return dj == 0; });
  analysis.structural_index = max_c + (some_algebraic ? 1 : 0);
  return analysis;
}

}  // namespace tether::structure
