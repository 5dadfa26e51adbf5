// The Newton projection's sparse path (tether/project/newton_projection.h): on models whose
// linear algebra is sparse it gives the dense path's points to rounding, in every metric and
// in both projecting methods, and names dependent constraints as the dense path does.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "core/reduce/networks.h"
#include "core/reduce/point_masses.h"
#include "core/simulate/pendulum_spec.h"
#include "tether/project/newton_projection.h"
#include "tether/project/projector.h"
#include "tether/reduce/reduced_model.h"

namespace tether::testing {
namespace {

using project::Metric;
using reduce::LinearAlgebra;
using reduce::ReducedModel;
constexpr double kEpsilon = 0x1p-52;


// A point of the tree's manifold (every rod at its length, velocities tangent), moved off it
// by `offset` in every coordinate: what a step leaves the projection to correct.
std::vector<double> NearTheManifold(const std::vector<int>& parent, unsigned seed, double offset) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const std::size_t bodies = parent.size();
  std::vector<double> q(2 * bodies), v(2 * bodies);
  for (std::size_t k = 0; k < bodies; ++k) {
    const double angle = 0.8 * unit(random);
    const double rate = unit(random);
    const double x0 = parent[k] < 0 ? 0.0 : q[2 * static_cast<std::size_t>(parent[k])];
    const double y0 = parent[k] < 0 ? 0.0 : q[2 * static_cast<std::size_t>(parent[k]) + 1];
    const double vx0 = parent[k] < 0 ? 0.0 : v[2 * static_cast<std::size_t>(parent[k])];
    const double vy0 = parent[k] < 0 ? 0.0 : v[2 * static_cast<std::size_t>(parent[k]) + 1];
    q[2 * k] = x0 + std::sin(angle);
    q[2 * k + 1] = y0 - std::cos(angle);
    v[2 * k] = vx0 + rate * std::cos(angle);
    v[2 * k + 1] = vy0 + rate * std::sin(angle);
  }
  std::vector<double> z = q;
  z.insert(z.end(), v.begin(), v.end());
  for (double& value : z) value += offset * unit(random);
  return z;
}

// κ of H_z H_zᵀ at z (the Euclidean Schur complement of the coupled projection).
double Condition(ReducedModel& model, const std::vector<double>& z) {
  const std::size_t p = model.num_invariants();
  std::vector<double> h(p), h_z(p * z.size());
  EXPECT_TRUE(model.Invariants(0.0, z, h, h_z));
  const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>
      jacobian(h_z.data(), Eigen::Index(p), Eigen::Index(z.size()));
  const Eigen::MatrixXd s = jacobian * jacobian.transpose();
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(s);
  return svd.singularValues()(0) / svd.singularValues().tail(1)(0);
}

project::ProjectorOptions OptionsFor(Metric metric) {
  project::ProjectorOptions options;
  options.metric = metric;
  options.weight_rtol = 1e-6;
  options.weight_atol = {1e-6};
  return options;
}

// Both paths run Newton's iterations on the same equations, the sparse one summing the same
// products in other orders: each iterate differs by rounding amplified by the condition of S,
// about m·ε·κ(S)·‖z‖ per iteration. A few iterations and the metrics' scaling (masses in
// [1, 2]; error weights within a factor 4 here) stay inside 100·m·ε·κ·max(1, ‖z‖∞).
TEST(SparseProjection, EqualsTheDensePathToRoundingInEveryMetricAndMethod) {
  for (const auto& [bodies, seed] : std::vector<std::pair<std::size_t, unsigned>>{
           {2, 1}, {12, 2}, {40, 3}}) {
    const Case c = RandomCase(bodies, 0, seed);
    auto dense = ReduceWith(c.spec, LinearAlgebra::kDense);
    auto sparse = ReduceWith(c.spec, LinearAlgebra::kSparse);
    ASSERT_TRUE(dense && sparse);
    const std::vector<double> start = NearTheManifold(c.parent, seed, 1e-3);
    const double kappa = Condition(*dense, start);
    double size = 1.0;
    for (double value : start) size = std::max(size, std::abs(value));
    const double bound =
        100 * static_cast<double>(dense->num_invariants()) * kEpsilon * kappa * size;
    for (Metric metric : {Metric::kEuclidean, Metric::kMass, Metric::kWeighted}) {
      for (project::Method method : {project::Method::kCoupled, project::Method::kSequential}) {
        SCOPED_TRACE("bodies " + std::to_string(bodies) + ", metric " +
                     std::to_string(static_cast<int>(metric)) + ", " +
                     std::string(project::ProjectionName(method)));
        std::vector<double> z_dense = start, z_sparse = start;
        auto dense_projector = project::MakeProjector(method, OptionsFor(metric));
        auto sparse_projector = project::MakeProjector(method, OptionsFor(metric));
        dense_projector->Resize(*dense);
        sparse_projector->Resize(*sparse);
        project::ProjectionReport dense_report, sparse_report;
        ASSERT_TRUE(dense_projector->Project(*dense, 0.0, z_dense, &dense_report))
            << dense_report.message;
        ASSERT_TRUE(sparse_projector->Project(*sparse, 0.0, z_sparse, &sparse_report))
            << sparse_report.message;
        EXPECT_LE(sparse_report.scaled_residual, 1e-12);
        EXPECT_GT(sparse_report.iterations, 0);
        for (std::size_t j = 0; j < start.size(); ++j) {
          EXPECT_NEAR(z_sparse[j], z_dense[j], bound) << "z_" << j;
        }
      }
    }
  }
}

// The sparse path's M is diagonal, so its mass metric reads M's n diagonal entries: the mass
// program computes only those (O(n), where the full matrix is n² values, 2 MB at 256 bodies),
// and they are bitwise the dense build's.
TEST(SparseProjection, TheMassMetricReadsOnlyTheDiagonalOfM) {
  const Case c = RandomCase(12, 2, 5);
  auto sparse = ReduceWith(c.spec, LinearAlgebra::kSparse);
  auto dense = ReduceWith(c.spec, LinearAlgebra::kDense);
  ASSERT_TRUE(sparse && dense);
  const std::size_t n = sparse->mass_size();
  EXPECT_TRUE(sparse->mass_diagonal());
  EXPECT_FALSE(dense->mass_diagonal());
  EXPECT_EQ(sparse->programs()[2]->num_outputs(), n);
  EXPECT_EQ(dense->programs()[2]->num_outputs(), n * n);
  const std::vector<double> z = NearTheManifold(c.parent, 5, 1e-3);
  std::vector<double> full_sparse(n * n, -1.0), full_dense(n * n, -1.0);
  std::vector<double> diagonal_sparse(n, -1.0), diagonal_dense(n, -1.0);
  ASSERT_TRUE(sparse->Mass(0.0, z, full_sparse));
  ASSERT_TRUE(dense->Mass(0.0, z, full_dense));
  ASSERT_TRUE(sparse->MassDiagonal(0.0, z, diagonal_sparse));
  ASSERT_TRUE(dense->MassDiagonal(0.0, z, diagonal_dense));
  EXPECT_EQ(full_sparse, full_dense);
  for (std::size_t k = 0; k < n; ++k) {
    EXPECT_EQ(diagonal_sparse[k], full_dense[k * n + k]) << "M_" << k << k;
    EXPECT_EQ(diagonal_dense[k], full_dense[k * n + k]) << "M_" << k << k;
    EXPECT_GE(full_dense[k * n + k], 1.0);  // the case's masses, in [1, 2]
  }
}

TEST(SparseProjection, TheSparsePathIsTakenWhereTheModelsLinearAlgebraIsSparse) {
  const Case c = RandomCase(12, 2, 4);
  project::NewtonProjection projection;
  auto sparse = ReduceWith(c.spec, LinearAlgebra::kSparse);
  auto dense = ReduceWith(c.spec, LinearAlgebra::kDense);
  const project::Block all{.col_begin = 0, .col_end = sparse->ode_size(), .row_begin = 0,
                           .row_end = sparse->num_invariants()};
  projection.Resize(*sparse, all, {});
  EXPECT_TRUE(projection.sparse());
  projection.Resize(*dense, all, {});
  EXPECT_FALSE(projection.sparse());
}

TEST(SparseProjection, DependentConstraintsAreNamed) {
  // Body 1 hangs from body 0 twice: constraints[1] and constraints[3] are the same rod.
  const std::string twice = MassesSpec({-1, 0, 1}, {1.0, 1.0, 1.0}, {{1, 0}});
  auto model = ReduceWith(twice, LinearAlgebra::kSparse);
  ASSERT_TRUE(model);
  std::vector<double> z = {0.0, -1.0, 0.6, -1.8, 0.6, -2.8, 0, 0, 0, 0, 0, 0};
  z[1] += 1e-3;
  auto projector = project::MakeProjector(project::Method::kCoupled, {});
  projector->Resize(*model);
  project::ProjectionReport report;
  EXPECT_FALSE(projector->Project(*model, 0.0, z, &report));
  EXPECT_EQ(report.status, project::ProjectionStatus::kSingular);
  EXPECT_NE(report.message.find("'constraints[1]', 'constraints[3]' are dependent"),
            std::string::npos) << report.message;
}

// An index-1 network integrated as an ODE (AlgebraicMode::kOde) projects onto g = 0 over
// (x, y): with its c_y sparse the projection takes the sparse path as well, and lands where the
// dense one does. Bound as above, with H_z = [g_x g_y] (one and up to five entries per row,
// |entries| ≤ 3.4) well conditioned: S = H_z H_zᵀ is diagonally dominant, κ(S) < 2.
TEST(SparseProjection, TheAlgebraicSparsePathProjectsAsTheDenseOne) {
  const std::size_t m = 24;
  const std::string spec = NetworkSpec("index1", m, 2, 17);
  std::unique_ptr<ReducedModel> models[2] = {
      ReduceWith(spec, LinearAlgebra::kDense, reduce::AlgebraicMode::kOde),
      ReduceWith(spec, LinearAlgebra::kSparse, reduce::AlgebraicMode::kOde)};
  ASSERT_TRUE(models[0] && models[1]);
  std::vector<double> start(2 * m);
  for (std::size_t j = 0; j < 2 * m; ++j) start[j] = (j < m ? 1.0 : 0.3) + 1e-3 * std::sin(j);
  std::vector<double> z[2] = {start, start};
  const project::Block all{.col_begin = 0, .col_end = 2 * m, .row_begin = 0, .row_end = m};
  for (int k = 0; k < 2; ++k) {
    project::NewtonProjection projection;
    projection.Resize(*models[k], all, {});
    EXPECT_EQ(projection.sparse(), k == 1);
    project::ProjectionReport report;
    ASSERT_TRUE(projection.Project(*models[k], 0.0, z[k], &report)) << report.message;
    EXPECT_LE(report.scaled_residual, 1e-12);
    EXPECT_GT(report.iterations, 0);
  }
  const double bound = 100 * static_cast<double>(m) * kEpsilon * 2 * 4;
  for (std::size_t j = 0; j < 2 * m; ++j) EXPECT_NEAR(z[1][j], z[0][j], bound) << "z_" << j;
}

// A mass metric needs M positive definite: a negative mass is refused by name, on both paths.
TEST(SparseProjection, TheMassMetricRefusesANegativeMassOnBothPaths) {
  const std::string negative = MassesSpec({-1, 0, 1}, {1.0, -1.0, 1.0}, {});
  for (LinearAlgebra algebra : {LinearAlgebra::kSparse, LinearAlgebra::kDense}) {
    auto model = ReduceWith(negative, algebra);
    ASSERT_TRUE(model);
    EXPECT_EQ(model->mass_diagonal(), algebra == LinearAlgebra::kSparse);
    std::vector<double> z = {0.0, -1.0, 0.6, -1.8, 0.6, -2.8, 0, 0, 0, 0, 0, 0};
    z[1] += 1e-3;
    auto projector = project::MakeProjector(project::Method::kCoupled, OptionsFor(Metric::kMass));
    projector->Resize(*model);
    project::ProjectionReport report;
    EXPECT_FALSE(projector->Project(*model, 0.0, z, &report));
    EXPECT_EQ(report.status, project::ProjectionStatus::kSingular);
    EXPECT_NE(report.message.find("the mass matrix is not positive definite at t = 0"),
              std::string::npos) << report.message;
  }
}

// Consistent initialization's globalized Newton from far off (every coordinate moved by 0.3)
// reaches the manifold on the sparse path too, Newton steps and Levenberg–Marquardt alike.
TEST(SparseProjection, ProjectFromAfarReachesTheManifold) {
  const Case c = RandomCase(20, 3, 5);
  auto model = ReduceWith(c.spec, LinearAlgebra::kSparse);
  ASSERT_TRUE(model);
  std::vector<double> z = NearTheManifold(c.parent, 5, 0.3);
  project::NewtonProjection projection;
  project::ProjectorOptions options;
  options.max_iterations = 100;
  projection.Resize(*model, {.col_begin = 0, .col_end = model->ode_size(), .row_begin = 0,
                             .row_end = model->num_invariants()}, options);
  ASSERT_TRUE(projection.sparse());
  project::ProjectionReport report;
  ASSERT_TRUE(projection.ProjectFromAfar(*model, 0.0, z, &report)) << report.message;
  EXPECT_LE(report.scaled_residual, options.tolerance);
}

}  // namespace
}  // namespace tether::testing
