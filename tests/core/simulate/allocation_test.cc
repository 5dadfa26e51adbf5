// The step loop allocates nothing (issue 3: "allocation-free in the step loop"): global
// operator new is counted while a warmed-up Simulation advances. Its own executable, because
// replacing operator new affects every test linked with it.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "core/simulate/pendulum_spec.h"
#include "core/simulate/sim_helpers.h"

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

// GCC pairs the replaced operator new with the builtin one when it inlines delete and warns
// about malloc/free "mismatch"; here both sides are ours and do match.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace tether::testing {
namespace {

class AllocationFree : public ::testing::TestWithParam<simulate::Projection> {};

TEST_P(AllocationFree, AdvanceDoesNotAllocateOnceWarm) {
  simulate::Setup setup;
  setup.model = Pendulum();
  setup.options.method = "dop853";
  setup.options.projection = GetParam();
  setup.options.t_end = 50.0;
  setup.options.output_interval = 0.01;  // interpolated and projected samples too
  auto sim = CreateOrFail(setup);
  ASSERT_TRUE(sim);
  double sum = 0.0;
  const std::function<void(const simulate::Sample&)> sink = [&](const simulate::Sample& s) {
    sum += s.values[0];
  };
  sim->Advance(10, sink);  // warm-up: first sample, first steps
  const long before = g_allocations.load();
  const simulate::Status status = sim->Advance(2000, sink);
  const long during = g_allocations.load() - before;
  EXPECT_EQ(status.reason, simulate::Termination::kRunning);
  EXPECT_EQ(during, 0) << "allocations in 2000 samples";
  EXPECT_TRUE(std::isfinite(sum));
}

INSTANTIATE_TEST_SUITE_P(Projectors, AllocationFree,
                         ::testing::Values(simulate::Projection::kCoupled,
                                           simulate::Projection::kSequential,
                                           simulate::Projection::kNone),
                         [](const auto& param_info) {
                           return std::string(simulate::ProjectionName(param_info.param));
                         });

}  // namespace
}  // namespace tether::testing
