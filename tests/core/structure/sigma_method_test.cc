// Σ-method combinatorics: highest-value transversals against brute force, smallest offsets
// against an exhaustive search, and textbook signature matrices with their known offsets.
#include "structure/sigma_method.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <random>
#include <vector>

namespace tether::testing {
namespace {

using structure::AnalyzeSignature;
using structure::kAbsent;
using structure::SignatureMatrix;

constexpr int X = kAbsent;  // −∞ in the matrices below

SignatureMatrix Sigma(const std::vector<std::vector<int>>& dense) {
  SignatureMatrix s;
  s.num_variables = dense.empty() ? 0 : dense[0].size();
  for (const auto& row : dense) {
    auto& r = s.rows.emplace_back();
    for (std::size_t j = 0; j < row.size(); ++j) {
      if (row[j] != kAbsent) r.push_back({j, row[j]});
    }
  }
  return s;
}

// Max over permutations of Σ σ_{i,π(i)} with finite entries only, or nothing.
std::optional<int> BruteForceValue(const SignatureMatrix& s) {
  std::vector<std::size_t> perm(s.num_equations());
  std::iota(perm.begin(), perm.end(), 0);
  std::optional<int> best;
  do {
    int value = 0;
    bool finite = true;
    for (std::size_t i = 0; i < perm.size() && finite; ++i) {
      const int entry = s.At(i, perm[i]);
      finite = entry != kAbsent;
      value += finite ? entry : 0;
    }
    if (finite && (!best || value > *best)) best = value;
  } while (std::next_permutation(perm.begin(), perm.end()));
  return best;
}

void ExpectValidOffsets(const SignatureMatrix& s, const structure::SigmaAnalysis& a) {
  int sum_d = 0, sum_c = 0;
  for (std::size_t i = 0; i < s.num_equations(); ++i) {
    EXPECT_GE(a.equation_offsets[i], 0);
    for (const auto& e : s.rows[i]) {
      EXPECT_GE(a.variable_offsets[e.variable] - a.equation_offsets[i], e.order);
    }
    EXPECT_EQ(a.variable_offsets[a.transversal[i]] - a.equation_offsets[i],
              s.At(i, a.transversal[i]));
    sum_c += a.equation_offsets[i];
  }
  for (int dj : a.variable_offsets) sum_d += dj;
  EXPECT_EQ(sum_d - sum_c, a.value);  // equality on T: Σ d − Σ c = Val(T)
}

TEST(SigmaMethod, FirstOrderPendulumIsIndexThree) {
  // x' = u, y' = v, m u' = 2xλ, m v' = −mg + 2yλ, x² + y² = l²; columns x, y, u, v, λ.
  const SignatureMatrix s = Sigma({{1, X, 0, X, X},
                                   {X, 1, X, 0, X},
                                   {0, X, 1, X, 0},
                                   {X, 0, X, 1, 0},
                                   {0, 0, X, X, X}});
  const auto a = AnalyzeSignature(s);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->equation_offsets, (std::vector<int>{1, 1, 0, 0, 2}));
  EXPECT_EQ(a->variable_offsets, (std::vector<int>{2, 2, 1, 1, 0}));
  EXPECT_EQ(a->structural_index, 3);  // max c = 2, plus 1 for d_λ = 0
  ExpectValidOffsets(s, *a);
}

TEST(SigmaMethod, SecondOrderPendulumOfPryce2001) {
  // x'' + xλ = 0, y'' + yλ − g = 0, x² + y² − L² = 0 (Pryce 2001, §2): c = (0,0,2), d = (2,2,0).
  const SignatureMatrix s = Sigma({{2, X, 0}, {X, 2, 0}, {0, 0, X}});
  const auto a = AnalyzeSignature(s);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->equation_offsets, (std::vector<int>{0, 0, 2}));
  EXPECT_EQ(a->variable_offsets, (std::vector<int>{2, 2, 0}));
  EXPECT_EQ(a->structural_index, 3);
  EXPECT_EQ(a->value, 2);
}

TEST(SigmaMethod, OdeIsIndexZeroAndSemiExplicitIndexOne) {
  const auto ode = AnalyzeSignature(Sigma({{1, 0}, {0, 1}}));
  ASSERT_TRUE(ode);
  EXPECT_EQ(ode->structural_index, 0);
  // x' = f(x, y), 0 = g(x, y): c = 0, d = (1, 0), index 1.
  const auto dae = AnalyzeSignature(Sigma({{1, 0}, {0, 0}}));
  ASSERT_TRUE(dae);
  EXPECT_EQ(dae->equation_offsets, (std::vector<int>{0, 0}));
  EXPECT_EQ(dae->variable_offsets, (std::vector<int>{1, 0}));
  EXPECT_EQ(dae->structural_index, 1);
}

TEST(SigmaMethod, HessenbergIndexTwo) {
  // x' = f(x, y), 0 = g(x): the constraint is differentiated once, y is algebraic.
  const auto a = AnalyzeSignature(Sigma({{1, 0}, {0, X}}));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->equation_offsets, (std::vector<int>{0, 1}));
  EXPECT_EQ(a->variable_offsets, (std::vector<int>{1, 0}));
  EXPECT_EQ(a->structural_index, 2);
}

TEST(SigmaMethod, ChainOfLengthKHasIndexK) {
  // x1 = g(t), x_{k+1} = x_k' (k = 1..K−1): x_K = g^(K−1) needs K − 1 differentiations of the
  // first equation plus one more for the algebraic x_K: index K.
  for (std::size_t k = 1; k <= 6; ++k) {
    std::vector<std::vector<int>> dense(k, std::vector<int>(k, X));
    dense[0][0] = 0;
    for (std::size_t r = 1; r < k; ++r) {
      dense[r][r] = 0;
      dense[r][r - 1] = 1;
    }
    const auto a = AnalyzeSignature(Sigma(dense));
    ASSERT_TRUE(a);
    EXPECT_EQ(a->structural_index, static_cast<int>(k)) << "K = " << k;
    EXPECT_EQ(a->equation_offsets[0], static_cast<int>(k) - 1);
  }
}

TEST(SigmaMethod, NoFiniteTransversal) {
  EXPECT_FALSE(AnalyzeSignature(Sigma({{1, 0}, {0, X}, {0, X}})));  // not square
  EXPECT_TRUE(AnalyzeSignature(Sigma({{1, 0}, {1, X}})));   // transversal (0,1), (1,0)
  EXPECT_FALSE(AnalyzeSignature(Sigma({{1, X}, {0, X}})));  // column 1 empty
}

TEST(SigmaMethod, EmptySystem) {
  const auto a = AnalyzeSignature(Sigma({}));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->structural_index, 0);
}

// Random matrices: Val(T) equals the brute-force optimum, and the offsets are the smallest:
// the feasible c form a lattice closed under componentwise min (Pryce 2001), so an exhaustive
// search over small c finds the same least element.
TEST(SigmaMethod, RandomMatricesAgainstExhaustiveSearch) {
  std::mt19937 rng(20240611);
  std::bernoulli_distribution present(0.7);
  std::uniform_int_distribution<int> order(0, 2);
  int checked = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t n = 1 + static_cast<std::size_t>(trial % 5);
    std::vector<std::vector<int>> dense(n, std::vector<int>(n));
    for (auto& row : dense) {
      for (int& x : row) x = present(rng) ? order(rng) : X;
    }
    const SignatureMatrix s = Sigma(dense);
    const std::optional<int> best = BruteForceValue(s);
    const auto a = AnalyzeSignature(s);
    ASSERT_EQ(best.has_value(), a.has_value());
    if (!a) continue;
    ++checked;
    EXPECT_EQ(a->value, *best);
    ExpectValidOffsets(s, *a);
    // Exhaustive: every feasible c in {0..K}^n dominates ours (K above any c found here).
    constexpr int kMaxC = 6;
    std::vector<int> c(n, 0);
    for (;;) {
      std::vector<int> d(n, kAbsent);
      for (std::size_t i = 0; i < n; ++i) {
        for (const auto& e : s.rows[i]) d[e.variable] = std::max(d[e.variable], e.order + c[i]);
      }
      bool feasible = true;
      for (std::size_t i = 0; i < n; ++i) {
        feasible = feasible && d[a->transversal[i]] - c[i] == s.At(i, a->transversal[i]);
      }
      if (feasible) {
        for (std::size_t i = 0; i < n; ++i) EXPECT_LE(a->equation_offsets[i], c[i]);
      }
      std::size_t k = 0;
      while (k < n && ++c[k] > kMaxC) c[k++] = 0;
      if (k == n) break;
    }
  }
  EXPECT_GT(checked, 100);  // the test exercised the feasible case often enough
}

}  // namespace
}  // namespace tether::testing
