// The step loop allocates nothing ("allocation-free in the step loop"): global
// operator new is counted while a warmed-up Simulation advances. Its own executable, because
// replacing operator new affects every test linked with it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <ostream>

#include "core/simulate/pendulum_spec.h"
#include "core/simulate/sim_helpers.h"
#include "tether/model/registry.h"

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

std::shared_ptr<const model::Model> CatalogModel(const std::string& name) {
  for (const model::CatalogEntry& entry : model::BuiltinCatalog()) {
    model::ModelResult result = model::ParseModel(entry.json);
    if (result.ok() && result.model->name == name) return result.model;
  }
  ADD_FAILURE() << "catalog model '" << name << "' not found";
  return nullptr;
}

// 2000 samples of `model` after a warm-up allocate nothing.
void ExpectAdvanceAllocatesNothing(std::shared_ptr<const model::Model> model,
                                   simulate::Projection projection) {
  simulate::Setup setup;
  setup.model = std::move(model);
  setup.options.method = "dop853";
  setup.options.projection = projection;
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

class AllocationFree : public ::testing::TestWithParam<simulate::Projection> {};

TEST_P(AllocationFree, AdvanceDoesNotAllocateOnceWarm) {
  ExpectAdvanceAllocatesNothing(Pendulum(), GetParam());
}

// The double pendulum's multipliers are in closed form (two constraints, diagonal M:
// tether/reduce/closed_form_multipliers.h), its projections dense.
TEST_P(AllocationFree, ClosedFormMultipliersDoNotAllocateOnceWarm) {
  ExpectAdvanceAllocatesNothing(CatalogModel("double_pendulum"), GetParam());
}

// A chain of three unit masses on unit rods, hanging at 30° from the vertical: three
// constraints and a diagonal M take the sparse linear algebra for the multipliers and the
// projections (tether/reduce/sparse_multipliers.h).
TEST_P(AllocationFree, SparseLinearAlgebraDoesNotAllocateOnceWarm) {
  ExpectAdvanceAllocatesNothing(ParseOrDie(R"json({
    "name": "chain3", "form": "mechanical",
    "coordinates": ["x0", "y0", "x1", "y1", "x2", "y2"],
    "velocities": ["vx0", "vy0", "vx1", "vy1", "vx2", "vy2"],
    "mass": ["1", "1", "1", "1", "1", "1"],
    "forces": ["0", "-9.81", "0", "-9.81", "0", "-9.81"],
    "constraints": ["x0^2 + y0^2 - 1", "(x1 - x0)^2 + (y1 - y0)^2 - 1",
                    "(x2 - x1)^2 + (y2 - y1)^2 - 1"],
    "initial": {"x0": 0.5, "y0": -0.8660254037844386, "x1": 1.0, "y1": -1.7320508075688772,
                "x2": 1.5, "y2": -2.598076211353316,
                "vx0": 0, "vy0": 0, "vx1": 0, "vy1": 0, "vx2": 0, "vy2": 0}})json"),
                                GetParam());
}

INSTANTIATE_TEST_SUITE_P(Projectors, AllocationFree,
                         ::testing::Values(simulate::Projection::kCoupled,
                                           simulate::Projection::kSequential,
                                           simulate::Projection::kNone),
                         [](const auto& param_info) {
                           return std::string(simulate::ProjectionName(param_info.param));
                         });

// Projected dynamical systems on the catalog's pds_half_plane: free until
// t_a ≈ 0.815, sliding along y = 0 until ln 4 ≈ 1.386, free after. Between switches a step
// (sliding or free, detected or projected) allocates nothing; a switch itself may (the
// chattering guard's window, the event list).
std::shared_ptr<const model::Model> HalfPlane() { return CatalogModel("pds_half_plane"); }

struct PdsCase {
  const char* method;
  bool switch_detection;
};

std::string PdsCaseName(const PdsCase& c) {
  return std::string(c.method) + (c.switch_detection ? "_detected" : "_projected");
}
void PrintTo(const PdsCase& c, std::ostream* os) { *os << PdsCaseName(c); }

simulate::Setup HalfPlaneSetup(const PdsCase& c, double step) {
  simulate::Setup setup;
  setup.model = HalfPlane();
  setup.options.method = c.method;
  setup.options.step = step;  // rk4; dp5 picks its own steps (rtol 1e-8)
  setup.options.switch_detection = c.switch_detection;
  setup.options.t_end = 2.0;
  setup.options.output_interval = 0.01;  // interpolated, projected samples inside steps too
  return setup;
}

// Advances sample by sample until a sample at t ≥ t_stop; false if the run ended first.
bool AdvanceTo(simulate::Simulation& sim, const std::function<void(const simulate::Sample&)>& sink,
               const double& last_t, double t_stop) {
  while (last_t < t_stop) {
    if (sim.Advance(1, sink).reason != simulate::Termination::kRunning) return false;
  }
  return true;
}

class PdsAllocationFree : public ::testing::TestWithParam<PdsCase> {};

TEST_P(PdsAllocationFree, SlidingAndFreeStretchesDoNotAllocate) {
  auto sim = CreateOrFail(HalfPlaneSetup(GetParam(), 1e-3));
  ASSERT_TRUE(sim);
  double last_t = -1.0;
  double active = 0.0;
  const std::size_t active_column = Column(*sim, "active_1");
  const std::function<void(const simulate::Sample&)> sink = [&](const simulate::Sample& s) {
    last_t = s.t;
    active = s.values[active_column];
  };
  ASSERT_TRUE(AdvanceTo(*sim, sink, last_t, 0.9));  // warm-up, through the activation
  EXPECT_EQ(active, 1.0) << "t = " << last_t << ": not sliding";
  long before = g_allocations.load();
  ASSERT_TRUE(AdvanceTo(*sim, sink, last_t, 1.3));
  EXPECT_EQ(g_allocations.load() - before, 0) << "allocations while sliding, t in [0.9, 1.3]";
  EXPECT_EQ(active, 1.0) << "t = " << last_t << ": not sliding";
  ASSERT_TRUE(AdvanceTo(*sim, sink, last_t, 1.5));  // through the deactivation at ln 4
  EXPECT_EQ(active, 0.0) << "t = " << last_t << ": still sliding";
  before = g_allocations.load();
  ASSERT_TRUE(AdvanceTo(*sim, sink, last_t, 1.95));
  EXPECT_EQ(g_allocations.load() - before, 0) << "allocations moving freely, t in [1.5, 1.95]";
  EXPECT_EQ(active, 0.0) << "t = " << last_t;
}

// Not a timing assertion: prints the rate of rk4 steps along the constraint (h = 1e-6,
// t 0.9 → 1.3: 400 000 steps), so a change in the per-step cost of sliding shows in the log.
TEST(PdsStepRate, Rk4SlidingStepsPerSecond) {
  for (const bool detecting : {true, false}) {
    const PdsCase c{"rk4", detecting};
    auto sim = CreateOrFail(HalfPlaneSetup(c, 1e-6));
    ASSERT_TRUE(sim);
    double last_t = -1.0;
    const std::function<void(const simulate::Sample&)> sink = [&](const simulate::Sample& s) {
      last_t = s.t;
    };
    ASSERT_TRUE(AdvanceTo(*sim, sink, last_t, 0.9));
    const std::uint64_t steps = sim->statistics().steps;
    const auto start = std::chrono::steady_clock::now();
    ASSERT_TRUE(AdvanceTo(*sim, sink, last_t, 1.3));
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    const auto taken = static_cast<double>(sim->statistics().steps - steps);
    EXPECT_GT(taken, 3.9e5);
    std::printf("pds_half_plane %s sliding t 0.9 -> 1.3: %.0f steps in %.3f s = %.3g steps/s\n",
                PdsCaseName(c).c_str(), taken, elapsed.count(), taken / elapsed.count());
  }
}

INSTANTIATE_TEST_SUITE_P(PdsHalfPlane, PdsAllocationFree,
                         ::testing::Values(PdsCase{"rk4", true}, PdsCase{"dp5", true},
                                           PdsCase{"rk4", false}, PdsCase{"dp5", false}),
                         [](const auto& param_info) { return PdsCaseName(param_info.param); });

}  // namespace
}  // namespace tether::testing
