// Maximum matching and the coarse Dulmage–Mendelsohn decomposition.
#include "structure/dulmage_mendelsohn.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace tether::testing {
namespace {

using structure::SignatureMatrix;

// Incidence from 0/1 rows (the order of an entry does not matter here).
SignatureMatrix Incidence(const std::vector<std::vector<int>>& dense, std::size_t columns) {
  SignatureMatrix s;
  s.num_variables = columns;
  for (const auto& row : dense) {
    auto& r = s.rows.emplace_back();
    for (std::size_t j = 0; j < row.size(); ++j) {
      if (row[j]) r.push_back({j, 0});
    }
  }
  return s;
}

// Size of a maximum matching by trying every subset of rows against Hall's condition would
// be exponential; for n ≤ 6 trying all injective assignments is enough.
std::size_t BruteForceMatching(const SignatureMatrix& s) {
  std::size_t best = 0;
  std::vector<int> used(s.num_variables, 0);
  auto search = [&](auto&& self, std::size_t i, std::size_t size) -> void {
    best = std::max(best, size);
    if (i == s.num_equations()) return;
    self(self, i + 1, size);  // leave row i unmatched
    for (const auto& e : s.rows[i]) {
      if (used[e.variable]) continue;
      used[e.variable] = 1;
      self(self, i + 1, size + 1);
      used[e.variable] = 0;
    }
  };
  search(search, 0, 0);
  return best;
}

TEST(DulmageMendelsohn, PerfectMatchingHasNoSingularPart) {
  const auto s = Incidence({{1, 1, 0}, {0, 1, 1}, {1, 0, 1}}, 3);
  EXPECT_EQ(structure::MaximumMatching(s).size, 3u);
  EXPECT_FALSE(structure::DulmageMendelsohn(s).singular());
}

TEST(DulmageMendelsohn, OverAndUnderDeterminedParts) {
  // Rows: e0 = {x, y}, e1 = {x}, e2 = {x}; columns x, y, z (z in no equation).
  // e1 and e2 both need x: E_o = {e1, e2}, V_o = {x}; z is free: V_u = {z}, E_u = {}; e0 and
  // y are the well-determined rest.
  const auto parts = structure::DulmageMendelsohn(Incidence({{1, 1, 0}, {1, 0, 0}, {1, 0, 0}}, 3));
  ASSERT_TRUE(parts.singular());
  EXPECT_EQ(parts.over_equations, (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(parts.over_variables, (std::vector<std::size_t>{0}));
  EXPECT_EQ(parts.under_variables, (std::vector<std::size_t>{2}));
  EXPECT_TRUE(parts.under_equations.empty());
}

TEST(DulmageMendelsohn, UnderDeterminedBlockWithItsEquation) {
  // e0 = {x, y, z}, e1 = {w}, e2 = {w}: x, y, z share one equation (V_u = {x, y, z},
  // E_u = {e0}), and e1, e2 compete for w.
  const auto parts =
      structure::DulmageMendelsohn(Incidence({{1, 1, 1, 0}, {0, 0, 0, 1}, {0, 0, 0, 1}}, 4));
  EXPECT_EQ(parts.under_variables, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(parts.under_equations, (std::vector<std::size_t>{0}));
  EXPECT_EQ(parts.over_equations, (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(parts.over_variables, (std::vector<std::size_t>{3}));
}

// The parts' defining counts hold and the matching is maximum, on random incidences.
TEST(DulmageMendelsohn, RandomIncidences) {
  std::mt19937 rng(7);
  std::bernoulli_distribution edge(0.3);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = 1 + static_cast<std::size_t>(trial % 6);
    std::vector<std::vector<int>> dense(n, std::vector<int>(n));
    for (auto& row : dense) {
      for (int& x : row) x = edge(rng) ? 1 : 0;
    }
    const auto s = Incidence(dense, n);
    const auto m = structure::MaximumMatching(s);
    EXPECT_EQ(m.size, BruteForceMatching(s));
    const auto parts = structure::DulmageMendelsohn(s);
    EXPECT_EQ(parts.singular(), m.size < n);
    // Over-determined: more equations than variables, and those equations touch nothing else.
    if (!parts.over_equations.empty()) {
      EXPECT_GT(parts.over_equations.size(), parts.over_variables.size());
    }
    for (std::size_t i : parts.over_equations) {
      for (const auto& e : s.rows[i]) {
        EXPECT_TRUE(std::binary_search(parts.over_variables.begin(), parts.over_variables.end(),
                                       e.variable));
      }
    }
    // Under-determined: more variables than equations, and those variables appear nowhere else.
    if (!parts.under_variables.empty()) {
      EXPECT_GT(parts.under_variables.size(), parts.under_equations.size());
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (std::binary_search(parts.under_equations.begin(), parts.under_equations.end(), i)) {
        continue;
      }
      for (const auto& e : s.rows[i]) {
        EXPECT_FALSE(std::binary_search(parts.under_variables.begin(),
                                        parts.under_variables.end(), e.variable));
      }
    }
  }
}

}  // namespace
}  // namespace tether::testing
