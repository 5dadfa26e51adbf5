// The Newton projection's kernels compiled for small dense blocks
// (NewtonProjection::kMaxFixedColumns × kMaxFixedRows) give bitwise the general kernels'
// points, iteration counts and residuals, in every metric, for coupled and per-level blocks.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/reduce/point_masses.h"
#include "core/simulate/pendulum_spec.h"
#include "tether/project/newton_projection.h"
#include "tether/project/projector.h"
#include "tether/reduce/reduced_model.h"
#include "tether/reduce/small_dense.h"

namespace tether::testing {
namespace {

using project::Block;
using project::Metric;
using reduce::dense::Kernels;

struct Projected {
  bool ok = false;
  std::vector<double> z;
  project::ProjectionReport report;
};

// With `one_step`, the tolerance stops Newton after its first correction (the start is 1e-4
// off, the residual after one step ~1e-8) and there is no polishing: the point is then
// z + δ₀, where one ulp of S shows; iterated to convergence, it would be rounded away.
Projected ProjectWith(reduce::ReducedModel& model, const Block& block, Metric metric,
                      Kernels kernels, std::vector<double> z, bool one_step = false) {
  project::ProjectorOptions options;
  if (one_step) {
    options.tolerance = 1e-6;
    options.polish = false;
  }
  options.metric = metric;
  options.weight_rtol = 1e-6;
  options.weight_atol = {1e-6};
  project::NewtonProjection projection;
  projection.Resize(model, block, options, kernels);
  Projected p;
  p.ok = projection.Project(model, 0.0, z, &p.report);
  p.z = std::move(z);
  return p;
}

TEST(FixedSizeProjection, GivesBitwiseTheGeneralKernelsPoints) {
  int compared = 0;
  // 1 and 2 bodies: coupled blocks 4 × 2 and 8 × 4 (fixed), per-level 2 × 1 and 4 × 2;
  // 3 bodies (12 × 6) runs the general kernels either way.
  for (std::size_t bodies = 1; bodies <= 3; ++bodies) {
    const Case c = RandomCase(bodies, 0, static_cast<unsigned>(bodies));
    auto model = ReduceWith(c.spec, reduce::LinearAlgebra::kDense);
    ASSERT_TRUE(model);
    const std::size_t n = model->position_size();
    const std::size_t p = model->num_invariants();
    const std::size_t m1 = model->num_position_invariants();
    const std::vector<Block> blocks = {
        {.col_begin = 0, .col_end = 2 * n, .row_begin = 0, .row_end = p},
        {.col_begin = 0, .col_end = n, .row_begin = 0, .row_end = m1},
        {.col_begin = n, .col_end = 2 * n, .row_begin = m1, .row_end = p}};
    std::vector<double> start = c.z;  // onto the manifold, then a step's error off it
    project::NewtonProjection from_afar;
    from_afar.Resize(*model, blocks[0], {});
    project::ProjectionReport report;
    ASSERT_TRUE(from_afar.ProjectFromAfar(*model, 0.0, start, &report)) << report.message;
    for (std::size_t j = 0; j < start.size(); ++j) start[j] += (j % 2 ? 1e-4 : -2e-4);
    for (const Block& block : blocks) {
      for (Metric metric : {Metric::kEuclidean, Metric::kMass, Metric::kWeighted}) {
        SCOPED_TRACE("bodies " + std::to_string(bodies) + ", columns " +
                     std::to_string(block.col_begin) + "–" + std::to_string(block.col_end) +
                     ", metric " + std::to_string(static_cast<int>(metric)));
        for (const bool one_step : {false, true}) {
          const Projected fixed =
              ProjectWith(*model, block, metric, Kernels::kFixedSizeWhereSmall, start, one_step);
          const Projected general =
              ProjectWith(*model, block, metric, Kernels::kGeneral, start, one_step);
          ASSERT_TRUE(fixed.ok) << fixed.report.message;
          ASSERT_TRUE(general.ok) << general.report.message;
          EXPECT_GT(general.report.iterations, 0);
          if (one_step) {
            EXPECT_EQ(general.report.iterations, 1);
          }
          EXPECT_EQ(fixed.report.iterations, general.report.iterations);
          EXPECT_EQ(fixed.report.scaled_residual, general.report.scaled_residual);
          for (std::size_t j = 0; j < start.size(); ++j) {
            EXPECT_EQ(fixed.z[j], general.z[j]) << "z_" << j << (one_step ? ", one step" : "");
          }
        }
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 27);
}

// The seed pendulum's dependent-free block fails the same way in both when the fixed values
// leave the constraints no freedom.
TEST(FixedSizeProjection, ReportsARankDeficientBlockAsTheGeneralKernelsDo) {
  auto reduced = reduce::ReducedModel::Build(Pendulum(), {});
  ASSERT_TRUE(reduced.reduced) << reduced.error;
  reduce::ReducedModel& model = *reduced.reduced;
  // At the origin Φ_q = 2q = 0: the position row of H_z vanishes.
  const std::vector<double> start = {0.0, 0.0, 0.3, -0.2};
  const Block coupled{.col_begin = 0, .col_end = 4, .row_begin = 0, .row_end = 2};
  const Projected fixed =
      ProjectWith(model, coupled, Metric::kEuclidean, Kernels::kFixedSizeWhereSmall, start);
  const Projected general =
      ProjectWith(model, coupled, Metric::kEuclidean, Kernels::kGeneral, start);
  EXPECT_FALSE(fixed.ok);
  EXPECT_EQ(fixed.report.status, project::ProjectionStatus::kSingular);
  EXPECT_EQ(fixed.report.message, general.report.message);
}

}  // namespace
}  // namespace tether::testing
