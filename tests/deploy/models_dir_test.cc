// The extra model specs that deploy/k8s mounts into tether-server's --models-dir: a spec that
// fails validation, or whose name is taken by the built-in catalog, stops every replica from
// starting (ServerConfig::models_dir), so each one is registered here exactly as the server
// registers it at start: into a registry that already holds the catalog.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tether/model/registry.h"

namespace {

namespace fs = std::filesystem;

// Set by tests/deploy/CMakeLists.txt.
const fs::path kModelsDir = TETHER_DEPLOY_MODELS_DIR;

std::vector<fs::path> SpecFiles() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(kModelsDir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(DeployModelsDirTest, HoldsAtLeastOneSpec) {
  EXPECT_FALSE(SpecFiles().empty()) << "no *.json in " << kModelsDir;
}

TEST(DeployModelsDirTest, EverySpecRegistersBesideTheCatalog) {
  for (const fs::path& file : SpecFiles()) {
    SCOPED_TRACE(file.string());
    tether::model::ModelRegistry registry;
    const auto catalog_problems = registry.LoadBuiltinCatalog();
    ASSERT_TRUE(catalog_problems.empty()) << catalog_problems.front().ToString();

    const tether::model::RegistryResult result = registry.Register(ReadFile(file));
    std::string problems;
    for (const auto& problem : result.problems) problems += problem.ToString() + "\n";
    ASSERT_EQ(result.status, tether::model::RegistryStatus::kOk) << result.message << "\n"
                                                                  << problems;
    // The file is named after the model, so a ConfigMap key tells which model it carries.
    EXPECT_EQ(result.model->name + ".json", file.filename().string());
  }
}

}  // namespace
