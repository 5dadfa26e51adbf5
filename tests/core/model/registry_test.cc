// ModelRegistry: the catalog, registration, removal, and concurrent use.
#include "tether/model/registry.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "core/model/spec_fixtures.h"

namespace tether::model {
namespace {

using testing::PendulumSpec;

std::string PendulumNamed(const std::string& name) {
  auto spec = PendulumSpec();
  spec["name"] = name;
  return spec.dump();
}

TEST(RegistryTest, LoadsTheCatalogSorted) {
  ModelRegistry registry;
  const std::vector<SpecProblem> problems = registry.LoadBuiltinCatalog();
  EXPECT_TRUE(problems.empty());
  const std::vector<ModelRegistry::Entry> list = registry.List();
  ASSERT_EQ(list.size(), BuiltinCatalog().size());
  for (std::size_t i = 1; i < list.size(); ++i) {
    EXPECT_LT(list[i - 1].model->name, list[i].model->name);
  }
  for (const auto& entry : list) EXPECT_TRUE(entry.builtin);
  EXPECT_NE(registry.Find("pendulum"), nullptr);
  EXPECT_TRUE(registry.IsBuiltin("pendulum"));
}

TEST(RegistryTest, RegisterFindRemove) {
  ModelRegistry registry;
  registry.LoadBuiltinCatalog();
  const RegistryResult added = registry.Register(PendulumNamed("my-pendulum"));
  ASSERT_EQ(added.status, RegistryStatus::kOk) << added.message;
  EXPECT_EQ(registry.Find("my-pendulum"), added.model);
  EXPECT_FALSE(registry.IsBuiltin("my-pendulum"));

  const RegistryResult again = registry.Register(PendulumNamed("my-pendulum"));
  EXPECT_EQ(again.status, RegistryStatus::kAlreadyExists);
  EXPECT_EQ(again.message, "a model named 'my-pendulum' already exists");
  const RegistryResult over_catalog = registry.Register(PendulumSpec().dump());
  EXPECT_EQ(over_catalog.status, RegistryStatus::kAlreadyExists);
  EXPECT_EQ(over_catalog.message,
            "a model named 'pendulum' already exists in the built-in catalog");

  const RegistryResult catalog = registry.Remove("pendulum");
  EXPECT_EQ(catalog.status, RegistryStatus::kReadOnly);
  EXPECT_NE(catalog.message.find("built-in catalog"), std::string::npos);
  EXPECT_NE(registry.Find("pendulum"), nullptr);

  EXPECT_EQ(registry.Remove("my-pendulum").status, RegistryStatus::kOk);
  EXPECT_EQ(registry.Find("my-pendulum"), nullptr);
  const RegistryResult missing = registry.Remove("my-pendulum");
  EXPECT_EQ(missing.status, RegistryStatus::kNotFound);
  EXPECT_EQ(missing.message, "model 'my-pendulum' not found");
}

TEST(RegistryTest, InvalidSpecListsItsProblems) {
  ModelRegistry registry;
  const RegistryResult result = registry.Register(PendulumNamed("Bad"));
  EXPECT_EQ(result.status, RegistryStatus::kInvalid);
  ASSERT_EQ(result.problems.size(), 1u);
  EXPECT_EQ(result.problems[0].path, "name");
  EXPECT_NE(result.message.find("name: model name 'Bad' is invalid"), std::string::npos);
}

TEST(RegistryTest, LimitCountsRegisteredModelsOnly) {
  ModelRegistry registry(SpecLimits{}, /*max_registered=*/1);
  registry.LoadBuiltinCatalog();
  EXPECT_EQ(registry.Register(PendulumNamed("a")).status, RegistryStatus::kOk);
  const RegistryResult full = registry.Register(PendulumNamed("b"));
  EXPECT_EQ(full.status, RegistryStatus::kLimit);
  EXPECT_NE(full.message.find("1 models are registered already"), std::string::npos);
  EXPECT_EQ(registry.Remove("a").status, RegistryStatus::kOk);
  EXPECT_EQ(registry.Register(PendulumNamed("b")).status, RegistryStatus::kOk);
}

// Threads register, find, list and remove at once; the end state must be exact. Run under
// the asan preset (and TSan if available) this also checks the locking.
TEST(RegistryTest, ConcurrentUseIsConsistent) {
  ModelRegistry registry;
  registry.LoadBuiltinCatalog();
  constexpr int kThreads = 4;
  constexpr int kPerThread = 20;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&registry, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const std::string name = "m" + std::to_string(t) + "-" + std::to_string(i);
        EXPECT_EQ(registry.Register(PendulumNamed(name)).status, RegistryStatus::kOk);
        EXPECT_NE(registry.Find(name), nullptr);
        EXPECT_EQ(registry.Register(PendulumNamed(name)).status, RegistryStatus::kAlreadyExists);
        EXPECT_FALSE(registry.List().empty());
        if (i % 2 == 1) {
          EXPECT_EQ(registry.Remove(name).status, RegistryStatus::kOk);
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(registry.List().size(), BuiltinCatalog().size() + kThreads * kPerThread / 2);
}

}  // namespace
}  // namespace tether::model
