#include "simulate/switch_detection.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

namespace tether::simulate {
namespace {

TEST(SwitchDetectionTest, DefaultOptionsAreValidAndBadOnesNamed) {
  std::string why;
  EXPECT_TRUE(SwitchOptions{}.IsValid(&why)) << why;
  SwitchOptions bad;
  bad.subintervals = 0;
  EXPECT_FALSE(bad.IsValid(&why));
  EXPECT_EQ(why, "SwitchOptions::subintervals = 0; must be >= 1");
}

TEST(SwitchDetectionTest, IllinoisLandsOnTheSwitchedSideWithinTolerance) {
  SwitchOptions options;
  options.time_tolerance = 1e-13;
  int calls = 0;
  const auto g = [&](double t) {
    ++calls;
    return std::cos(t);
  };
  const double t = LocateSignChange(g, 0.0, 2.0, 1.0, std::cos(2.0), options);
  // Returned time is the bracket end where g ≤ 0, at most time_tolerance past the root.
  EXPECT_GE(t, std::numbers::pi / 2);
  EXPECT_LE(t - std::numbers::pi / 2, 1e-13);
  EXPECT_LE(calls, 20);  // superlinear: far fewer than the ~44 bisections for 2 → 1e-13
}

TEST(SwitchDetectionTest, EarliestOfSeveralIndicatorsWins) {
  // g₀ = 0.7 − t switches at 0.7, g₁ = 0.3 − t at 0.3 (same piece), g₂ stays positive.
  const Indicators indicators = [](double t, std::span<double> g) {
    g[0] = 0.7 - t;
    g[1] = 0.3 - t;
    g[2] = 1.0 + t;
  };
  const std::vector<SwitchDirection> directions = {
      SwitchDirection::kActivated, SwitchDirection::kDeactivated, SwitchDirection::kActivated};
  SwitchOptions options;
  options.subintervals = 1;
  std::vector<double> work(9);
  const auto event = FindEarliestSwitch(indicators, 3, directions, 0.0, 1.0, options, work);
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->constraint, 1u);
  EXPECT_FALSE(event->activated);
  EXPECT_NEAR(event->t, 0.3, 1e-12);  // linear g: regula falsi is exact in one step
  EXPECT_EQ(SwitchDirectionName(SwitchDirection::kDeactivated), "deactivated");
}

TEST(SwitchDetectionTest, NoCrossingNoEventAndNonPositiveStartIgnored) {
  const Indicators indicators = [](double t, std::span<double> g) {
    g[0] = 1.0 + t;
    g[1] = -t;  // starts at 0 (a constraint that just left): not a crossing
  };
  const std::vector<SwitchDirection> directions(2, SwitchDirection::kActivated);
  std::vector<double> work(6);
  EXPECT_FALSE(FindEarliestSwitch(indicators, 2, directions, 0.0, 1.0, {}, work).has_value());
}

TEST(SwitchDetectionTest, ChatteringGuardTripsAboveTheBoundInTheWindow) {
  ChatteringGuard guard(1e-3, 3);
  EXPECT_TRUE(guard.Record(0.0));
  EXPECT_TRUE(guard.Record(1e-4));
  EXPECT_TRUE(guard.Record(2e-4));
  EXPECT_FALSE(guard.Record(3e-4));  // four switches within 1 ms
  ChatteringGuard spread(1e-3, 3);
  for (int k = 0; k < 10; ++k) EXPECT_TRUE(spread.Record(k * 1e-2));
  EXPECT_EQ(spread.count_in_window(), 1);
}

}  // namespace
}  // namespace tether::simulate
