// The algebraic kernel's sparse linear algebra (tether/reduce/sparse_algebraic.h): on index-1
// and index-2 networks its right-hand side equals the dense kernel's to rounding in every
// algebraic mode, it is chosen where it pays, and a singular c_y is named as the dense kernel
// names it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/reduce/networks.h"
#include "core/reduce/point_masses.h"
#include "tether/reduce/reduced_model.h"

namespace tether::testing {
namespace {

using reduce::AlgebraicMode;
using reduce::LinearAlgebra;
using reduce::ReducedModel;
constexpr double kEpsilon = 0x1p-52;

// A point near the networks' solutions: the m x's around 1, the y's (where z has them) around
// 0.3.
std::vector<double> PointOf(const ReducedModel& model, std::size_t m, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<double> z(model.ode_size());
  for (std::size_t j = 0; j < z.size(); ++j) z[j] = (j < m ? 1.0 : 0.3) + 0.1 * unit(random);
  return z;
}

double MaxAbs(const std::vector<double>& values) {
  double largest = 1.0;
  for (double v : values) largest = std::max(largest, std::abs(v));
  return largest;
}

// Bounds, from the networks' ‖c_y⁻¹‖∞ ≤ 1 / (3 − 0.1·bandwidth) < 1/2.5 and ‖c_y‖∞ < 4 (so
// κ∞(c_y) < 10; index2's unit bidiagonal product: κ∞ < 1.2 · 1.25 · 1.6 < 10 too):
//   kSolve: both Newtons stop at a scaled residual ≤ newton_tolerance (1e-12) with scales
//     s_i ≤ ½ Σ |…| < 4 max(1, ‖z‖∞), so each y is within κ·1e-12·4·max(1, ‖z‖∞) of the root
//     and x' = f(x, y) within ‖f_y‖∞ (< 2) times that: 2 · 10 · 4e-12 · max(1, ‖z‖∞);
//   kOde: one solve with c_y, whose backward error is m·ε per entry: 100·m·ε·κ·max(1, ‖z'‖∞);
//   kStage: no solve at all, F = (f, c) from the same expressions: bitwise equal.
TEST(SparseAlgebraic, RhsEqualsTheDenseKernelToRoundingInEveryMode) {
  const std::size_t m = 24;
  for (const std::string form : {"index1", "index2"}) {
    for (AlgebraicMode mode : {AlgebraicMode::kSolve, AlgebraicMode::kOde, AlgebraicMode::kStage}) {
      SCOPED_TRACE(form + ", mode " + std::to_string(static_cast<int>(mode)));
      const std::string spec = NetworkSpec(form, m, 2, 7);
      auto dense = ReduceWith(spec, LinearAlgebra::kDense, mode);
      auto sparse = ReduceWith(spec, LinearAlgebra::kSparse, mode);
      ASSERT_TRUE(dense && sparse);
      EXPECT_FALSE(dense->sparse_algebraic());
      EXPECT_TRUE(sparse->sparse_algebraic());
      const std::vector<double> z = PointOf(*dense, m, 11);
      std::vector<double> dense_zdot(z.size()), sparse_zdot(z.size());
      ASSERT_TRUE(dense->Rhs(0.0, z, dense_zdot)) << dense->failure().message;
      ASSERT_TRUE(sparse->Rhs(0.0, z, sparse_zdot)) << sparse->failure().message;
      double bound = 0.0;
      if (mode == AlgebraicMode::kSolve) bound = 2 * 10 * 4e-12 * MaxAbs(z);
      if (mode == AlgebraicMode::kOde) {
        bound = 100 * static_cast<double>(m) * kEpsilon * 10 * MaxAbs(dense_zdot);
      }
      for (std::size_t j = 0; j < z.size(); ++j) {
        EXPECT_NEAR(sparse_zdot[j], dense_zdot[j], bound) << "z'_" << j;
      }
      if (mode == AlgebraicMode::kSolve) {  // y itself
        for (std::size_t i = 0; i < m; ++i) {
          EXPECT_NEAR(sparse->auxiliary()[i], dense->auxiliary()[i], 10 * 4e-12 * MaxAbs(z))
              << "y_" << i;
        }
      }
    }
  }
}

TEST(SparseAlgebraic, IsChosenWhereItPays) {
  const auto chosen = [](const std::string& spec) {
    return ReduceWith(spec, LinearAlgebra::kAuto, AlgebraicMode::kSolve)->sparse_algebraic();
  };
  const std::size_t small = reduce::SparseAlgebraic::kFromRows - 1;
  EXPECT_FALSE(chosen(NetworkSpec("index1", small, 1, 1))) << "below kFromRows";
  EXPECT_TRUE(chosen(NetworkSpec("index1", 64, 1, 2))) << "tridiagonal c_y";
  EXPECT_TRUE(chosen(NetworkSpec("index2", 64, 0, 3))) << "bidiagonal c_y";
  EXPECT_FALSE(chosen(NetworkSpec("index1", 16, 15, 4))) << "c_y full";
  EXPECT_FALSE(chosen(NetworkSpec("index1", 1, 0, 5))) << "one algebraic variable";
}

// The same dependent pair, by a zero pivot (identical equations) and by a pivot ratio below
// RelativePivotThreshold (equations equal to 1e-15): named as the dense kernel names it.
TEST(SparseAlgebraic, DependentEquationsAreNamedAsByTheDenseKernel) {
  const std::size_t m = 12;
  for (const char* twin : {"y3 + y7 - x3", "y3 + 1.000000000000001*y7 - x3"}) {
    SCOPED_TRACE(twin);
    std::string spec = NetworkSpec("index1", m, 0, 9);
    const std::string original = "3*y7 + 0.1*y7^3 - x7";
    ASSERT_NE(spec.find(original), std::string::npos);
    spec.replace(spec.find(original), original.size(), twin);
    const std::string other = "3*y3 + 0.1*y3^3 - x3";
    spec.replace(spec.find(other), other.size(), "y3 + y7 - x3");
    auto dense = ReduceWith(spec, LinearAlgebra::kDense, AlgebraicMode::kSolve);
    auto sparse = ReduceWith(spec, LinearAlgebra::kSparse, AlgebraicMode::kSolve);
    ASSERT_TRUE(dense && sparse);
    const std::vector<double> z(m, 1.0);
    std::vector<double> zdot(m);
    EXPECT_FALSE(dense->Rhs(0.0, z, zdot));
    EXPECT_FALSE(sparse->Rhs(0.0, z, zdot));
    EXPECT_EQ(sparse->failure().status, reduce::EvalStatus::kSingular);
    EXPECT_EQ(sparse->failure().message, dense->failure().message);
    EXPECT_NE(sparse->failure().message.find("'constraints[3]', 'constraints[7]'"),
              std::string::npos)
        << sparse->failure().message;
  }
}

// A copy (a forked run, another session) factors on its own: the same values, bitwise.
TEST(SparseAlgebraic, ACopyGivesTheSameValues) {
  auto model = ReduceWith(NetworkSpec("index1", 32, 2, 13), LinearAlgebra::kSparse,
                      AlgebraicMode::kSolve);
  ASSERT_TRUE(model);
  const std::vector<double> z = PointOf(*model, 32, 3);
  std::vector<double> first(z.size()), second(z.size());
  ASSERT_TRUE(model->Rhs(0.0, z, first));
  ReducedModel copy = *model;
  copy.SetAuxiliary(std::vector<double>(32, 0.0));
  model->SetAuxiliary(std::vector<double>(32, 0.0));
  ASSERT_TRUE(copy.Rhs(0.0, z, second));
  ASSERT_TRUE(model->Rhs(0.0, z, first));
  EXPECT_EQ(first, second);
}

}  // namespace
}  // namespace tether::testing
