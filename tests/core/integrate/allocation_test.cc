// Step and Interpolate allocate nothing (stepper.h): every work array comes from Resize.
// Counted by replacing the global operator new of this test binary.
#include <array>
#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/integrate/test_problems.h"
#include "tether/integrate/stepper.h"

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

// GCC's -Wmismatched-new-delete cannot see that this operator delete pairs with the
// malloc-based operator new below, and warns where it inlines it; the pairing is right.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t size) {
  ++g_allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t /*size*/) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace tether::integrate {
namespace {

class NoAllocation : public ::testing::TestWithParam<std::string_view> {};

// bdf creates its SUNDIALS integrator (vectors, Newton matrix, linear solver) in its first
// Step for the system at hand — the one-time set-up bdf.h documents; from the next run on
// (after Resize), its Step allocates nothing either.
bool SetsUpInItsFirstStep(std::string_view name) { return name == "bdf"; }

// Runs 20 steps of the circular Kepler orbit with dense output at each step's midpoint and
// returns the number of allocations during them (after Resize). *rejections sums the
// rejected attempts.
long AllocationsDuringSteps(Stepper& stepper, double h, int* rejections) {
  testing::CircularKepler system;
  stepper.Resize(4);
  std::array<double, 4> x = {1.0, 0.0, 0.0, 1.0};
  std::array<double, 4> x_out = {};
  double t = 0.0;
  const long before = g_allocations.load();
  for (int i = 0; i < 20; ++i) {
    const StepResult result = stepper.Step(system, t, x, h, x);
    if (result.status != StepStatus::kAccepted) break;
    *rejections += result.rejections;
    stepper.Interpolate(t + 0.5 * result.h_taken, x_out);
    t += result.h_taken;
  }
  return g_allocations.load() - before;
}

// The allocations of the 20 steps of a fresh stepper — of its second run for a method that
// sets up in its first Step.
long AllocationsDuringSteps(std::string_view name, const StepperOptions& options, double h,
                            int* rejections) {
  const std::unique_ptr<Stepper> stepper = MakeStepper(name, options);
  if (SetsUpInItsFirstStep(name)) {
    int ignored = 0;
    AllocationsDuringSteps(*stepper, h, &ignored);
  }
  return AllocationsDuringSteps(*stepper, h, rejections);
}

std::vector<double>* g_probe = nullptr;

// The counter itself works (a guard against a test that passes by counting nothing).
TEST(AllocationCounter, CountsAVectorAllocation) {
  const long before = g_allocations.load();
  g_probe = new std::vector<double>(16, 0.0);
  EXPECT_GE(g_allocations.load() - before, 2);
  delete g_probe;
}

// Accepted steps, the starting-step heuristic (step = 0), rejected attempts (step = 3, far
// too large at rtol = 1e-10) and dense output, all after Resize: zero allocations.
TEST_P(NoAllocation, InStepAndInterpolate) {
  StepperOptions options;
  options.rtol = 1e-10;
  options.step = 0.0;
  int rejections = 0;
  EXPECT_EQ(AllocationsDuringSteps(GetParam(), options, 0.05, &rejections), 0);
  options.step = 3.0;
  EXPECT_EQ(AllocationsDuringSteps(GetParam(), options, 3.0, &rejections), 0);
  if (MakeStepper(GetParam(), options)->adaptive()) {
    EXPECT_GT(rejections, 0);
  }
}

std::string ParamName(const ::testing::TestParamInfo<std::string_view>& param) {
  return std::string(param.param);
}

INSTANTIATE_TEST_SUITE_P(AllSteppers, NoAllocation,
                         ::testing::ValuesIn(StepperNames().begin(), StepperNames().end()),
                         ParamName);

}  // namespace
}  // namespace tether::integrate
