// Helpers shared by the simulate tests: run a setup to its end and keep every sample.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "tether/model/registry.h"
#include "tether/simulate/simulation.h"

namespace tether::testing {

struct Row {
  std::uint64_t index = 0;
  double t = 0.0;
  std::vector<double> values;
  double residual_position = 0.0;
  double residual_velocity = 0.0;
  double residual_inequality = 0.0;
};

inline std::function<void(const simulate::Sample&)> Collect(std::vector<Row>* rows) {
  return [rows](const simulate::Sample& s) {
    rows->push_back({s.index, s.t, std::vector<double>(s.values.begin(), s.values.end()),
                     s.residual_position, s.residual_velocity, s.residual_inequality});
  };
}

// The catalog model `name` (models/NAME.json, compiled in), or nullptr with a test failure.
inline std::shared_ptr<const model::Model> CatalogModel(std::string_view name) {
  for (const model::CatalogEntry& entry : model::BuiltinCatalog()) {
    if (std::string_view(entry.file) != std::string(name) + ".json") continue;
    model::ModelResult result = model::ParseModel(entry.json);
    if (!result.ok()) ADD_FAILURE() << entry.file << ": " << result.ErrorText();
    return result.model;
  }
  ADD_FAILURE() << "no catalog model " << name;
  return nullptr;
}

inline std::unique_ptr<simulate::Simulation> CreateOrFail(const simulate::Setup& setup) {
  simulate::CreateResult created = simulate::Simulation::Create(setup);
  for (const auto& p : created.problems) ADD_FAILURE() << p.path << ": " << p.message;
  EXPECT_FALSE(created.status.ended()) << created.status.message;
  return std::move(created.simulation);
}

// Runs to the end; the status is returned through `status`.
inline std::vector<Row> RunAll(simulate::Simulation& sim, simulate::Status* status = nullptr) {
  std::vector<Row> rows;
  simulate::Status s = sim.Advance(std::size_t{1} << 30, Collect(&rows));
  if (status) *status = s;
  return rows;
}

inline std::size_t Column(const simulate::Simulation& sim, const std::string& name) {
  const auto& columns = sim.columns();
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].name == name) return i;
  }
  ADD_FAILURE() << "no column " << name;
  return 0;
}

}  // namespace tether::testing
