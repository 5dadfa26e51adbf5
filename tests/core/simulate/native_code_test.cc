// Every catalog model simulated with native code and with the interpreter gives the same
// samples bit for bit: native_code.h's contract makes every program evaluation bit-identical
// (NaN aside, and a run that meets a NaN ends the same way in both), and everything around the
// programs is the same code, so a whole run is too. Explicit (dp5) runs exercise the stage,
// invariant and output programs; radau5 runs add the Jacobian ∂F/∂z program.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "core/simulate/sim_helpers.h"
#include "tether/expr/program.h"
#include "tether/model/registry.h"
#include "tether/reduce/build_cache.h"

namespace tether::testing {
namespace {

struct Recorded {
  std::vector<Row> rows;
  simulate::Status status;
};

Recorded Simulate(std::string_view json, const std::string& method, bool native) {
  expr::SetNativeCodeEnabled(native);
  reduce::BuildCache::Shared().Clear();  // a fresh build, compiled with the setting above
  const model::ModelResult parsed = model::ParseModel(json);
  EXPECT_TRUE(parsed.ok()) << parsed.ErrorText();
  simulate::Setup setup;
  setup.model = parsed.model;
  setup.options.method = method;
  setup.options.rtol = 1e-8;
  setup.options.atol = 1e-8;
  // The first stretch of the run: long enough for hundreds of steps, projections and (for
  // the switching models) events, short enough for the suite.
  setup.options.t_end = std::min(parsed.model->t_end.value_or(10.0), 2.0);
  setup.options.output_interval = setup.options.t_end / 40;
  Recorded run;
  auto sim = CreateOrFail(setup);
  if (sim) run.rows = RunAll(*sim, &run.status);
  expr::SetNativeCodeEnabled(true);
  return run;
}

bool SameBits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

TEST(NativeCodeCatalogTest, EveryModelRunsBitIdenticalToTheInterpreter) {
  if (!expr::NativeCodeEnabled()) GTEST_SKIP() << "no native code backend on this platform";
  for (const model::CatalogEntry& entry : model::BuiltinCatalog()) {
    for (const std::string method : {"dp5", "radau5"}) {
      SCOPED_TRACE(std::string(entry.file) + " " + method);
      const expr::NativeCodeCounts before = expr::GetNativeCodeCounts();
      const Recorded interpreted = Simulate(entry.json, method, false);
      const expr::NativeCodeCounts middle = expr::GetNativeCodeCounts();
      const Recorded native = Simulate(entry.json, method, true);
      const expr::NativeCodeCounts after = expr::GetNativeCodeCounts();
      // The switch held: nothing compiled while off, and the native run's programs compiled.
      EXPECT_EQ(middle.compiled, before.compiled);
      EXPECT_GT(after.compiled, middle.compiled);
      EXPECT_EQ(after.fallbacks, before.fallbacks);
      EXPECT_EQ(native.status.reason, interpreted.status.reason);
      EXPECT_EQ(native.status.message, interpreted.status.message);
      ASSERT_EQ(native.rows.size(), interpreted.rows.size());
      EXPECT_GT(native.rows.size(), 1u);
      for (std::size_t i = 0; i < native.rows.size(); ++i) {
        const Row& a = native.rows[i];
        const Row& b = interpreted.rows[i];
        ASSERT_TRUE(SameBits(a.t, b.t)) << "sample " << i;
        ASSERT_EQ(a.values.size(), b.values.size());
        for (std::size_t k = 0; k < a.values.size(); ++k) {
          ASSERT_TRUE(SameBits(a.values[k], b.values[k]))
              << "sample " << i << " column " << k << ": " << a.values[k] << " vs " << b.values[k];
        }
        ASSERT_TRUE(SameBits(a.residual_position, b.residual_position)) << "sample " << i;
        ASSERT_TRUE(SameBits(a.residual_velocity, b.residual_velocity)) << "sample " << i;
        ASSERT_TRUE(SameBits(a.residual_inequality, b.residual_inequality)) << "sample " << i;
      }
    }
  }
}

}  // namespace
}  // namespace tether::testing
