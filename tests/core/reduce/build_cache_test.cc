// BuildCache: one build per model and options, copies that sessions own, a new model object
// never served an old build, failures not cached.
#include "tether/reduce/build_cache.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "tether/model/model.h"

namespace tether::reduce {
namespace {

constexpr const char* kPendulum = R"({
  "name": "pendulum", "form": "mechanical",
  "coordinates": ["x", "y"], "velocities": ["vx", "vy"],
  "parameters": {"m": 1, "g": 9.81, "l": 2.5},
  "mass": [["m", "0"], ["0", "m"]], "forces": ["0", "-m*g"],
  "constraints": ["x^2 + y^2 - l^2"],
  "initial": {"x": 0.86, "y": 2.35, "vx": 0, "vy": 0}
})";

std::shared_ptr<const model::Model> Parse(const char* spec) {
  model::ModelResult result = model::ParseModel(spec);
  EXPECT_TRUE(result.ok()) << result.ErrorText();
  if (result.ok()) {
    // The parameters in spec order, as the tests below read them.
    EXPECT_EQ(result.model->parameters.at(2).name, "l");
  }
  return result.model;
}

TEST(BuildCache, BuildsOncePerModelAndOptions) {
  BuildCache cache;
  const auto model = Parse(kPendulum);
  ReduceOptions options;
  ASSERT_NE(cache.Build(model, options).reduced, nullptr);
  ASSERT_NE(cache.Build(model, options).reduced, nullptr);
  EXPECT_EQ(cache.counts().misses, 1U);
  EXPECT_EQ(cache.counts().hits, 1U);
  // Every option is part of the key.
  ReduceOptions with_jacobian = options;
  with_jacobian.jacobian = true;
  ReduceOptions tighter = options;
  tighter.newton_tolerance = 1e-14;
  ASSERT_NE(cache.Build(model, with_jacobian).reduced, nullptr);
  ASSERT_NE(cache.Build(model, tighter).reduced, nullptr);
  EXPECT_EQ(cache.counts().misses, 3U);
  EXPECT_EQ(cache.counts().size, 3U);
}

// A copy is its own: one session's parameters are not another's, nor the cached build's.
TEST(BuildCache, CopiesAreIndependent) {
  BuildCache cache;
  const auto model = Parse(kPendulum);
  std::unique_ptr<ReducedModel> first = cache.Build(model, {}).reduced;
  const std::vector<double> changed = {2.0, 9.81, 10.0};
  first->SetParameters(changed);
  std::unique_ptr<ReducedModel> second = cache.Build(model, {}).reduced;
  ASSERT_EQ(second->parameters().size(), 3U);
  EXPECT_EQ(second->parameters()[0], 1.0);
  EXPECT_EQ(second->parameters()[2], 2.5);
  EXPECT_EQ(first->parameters()[2], 10.0);
}

// The same spec parsed again (a re-registered model) is another model: its own build.
TEST(BuildCache, AnotherModelObjectIsAnotherEntry) {
  BuildCache cache;
  const auto a = Parse(kPendulum);
  const auto b = Parse(kPendulum);
  ASSERT_NE(cache.Build(a, {}).reduced, nullptr);
  ASSERT_NE(cache.Build(b, {}).reduced, nullptr);
  EXPECT_EQ(cache.counts().misses, 2U);
  EXPECT_EQ(&cache.Build(b, {}).reduced->model(), b.get());
}

TEST(BuildCache, KeepsAtMostItsCapacity) {
  BuildCache cache;
  std::vector<std::shared_ptr<const model::Model>> models;
  for (std::size_t i = 0; i < BuildCache::kCapacity + 5; ++i) {
    models.push_back(Parse(kPendulum));
    ASSERT_NE(cache.Build(models.back(), {}).reduced, nullptr);
  }
  EXPECT_EQ(cache.counts().size, BuildCache::kCapacity);
  // The most recent builds are the ones kept.
  ASSERT_NE(cache.Build(models.back(), {}).reduced, nullptr);
  EXPECT_EQ(cache.counts().hits, 1U);
  ASSERT_NE(cache.Build(models.front(), {}).reduced, nullptr);
  EXPECT_EQ(cache.counts().hits, 1U);
}

// A model that nothing but its build owns any more (deleted from its registry, its sessions
// ended) can never be asked for again: its build goes at the next Build, whichever model that
// is for. A model a session still holds keeps its build.
TEST(BuildCache, DropsTheBuildsOfModelsNoOneHolds) {
  BuildCache cache;
  auto deleted = Parse(kPendulum);
  auto running = Parse(kPendulum);
  const auto other = Parse(kPendulum);
  ASSERT_NE(cache.Build(deleted, {}).reduced, nullptr);
  std::unique_ptr<ReducedModel> session = cache.Build(running, {}).reduced;
  ASSERT_NE(session, nullptr);
  const std::weak_ptr<const model::Model> deleted_watch = deleted;
  const std::weak_ptr<const model::Model> running_watch = running;
  deleted.reset();
  running.reset();
  EXPECT_FALSE(deleted_watch.expired());  // the cached build still owns it

  ASSERT_NE(cache.Build(other, {}).reduced, nullptr);
  EXPECT_TRUE(deleted_watch.expired());  // dropped with its build
  EXPECT_FALSE(running_watch.expired());
  EXPECT_EQ(cache.counts().size, 2U);  // running's and other's

  session.reset();  // the session ended
  ASSERT_NE(cache.Build(other, {}).reduced, nullptr);
  EXPECT_TRUE(running_watch.expired());
  EXPECT_EQ(cache.counts().size, 1U);
  EXPECT_EQ(cache.counts().hits, 1U);
}

TEST(BuildCache, FailuresAreNotCached) {
  BuildCache cache;
  const auto model = Parse(kPendulum);
  ReduceOptions bad;
  bad.max_newton_iterations = 0;  // invalid: Build refuses it
  const ReduceResult first = cache.Build(model, bad);
  EXPECT_EQ(first.reduced, nullptr);
  EXPECT_FALSE(first.error.empty());
  EXPECT_EQ(cache.counts().size, 0U);
}

}  // namespace
}  // namespace tether::reduce
