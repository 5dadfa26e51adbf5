// Models of planar point masses joined by rods, for the sparse linear algebra's tests: trees
// hung from the origin, with extra rods closing loops (S fills in when factored), and random
// cases of them. M = diag(m_k, m_k), gravity along −y, every rod of length 1.
#pragma once

#include <cstddef>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/simulate/pendulum_spec.h"
#include "tether/reduce/reduced_model.h"

namespace tether::testing {

// The reduced model of `json` with its linear systems solved by `linear_algebra`.
inline std::unique_ptr<reduce::ReducedModel> ReduceWith(
    const std::string& json, reduce::LinearAlgebra linear_algebra,
    reduce::AlgebraicMode algebraic = reduce::AlgebraicMode::kSolve) {
  reduce::ReduceOptions options;
  options.linear_algebra = linear_algebra;
  options.algebraic = algebraic;
  reduce::ReduceResult r = reduce::ReducedModel::Build(ParseOrDie(json), options);
  EXPECT_TRUE(r.error.empty()) << r.error;
  return std::move(r.reduced);
}

// Planar point masses, body k hung from body parent[k] (−1: the origin) by a rod, plus rods
// between the pairs in `loops` (closing kinematic loops makes S fill in when factored).
// M = diag(m_k, m_k), gravity along −y.
inline std::string MassesSpec(const std::vector<int>& parent, const std::vector<double>& masses,
                       const std::vector<std::pair<int, int>>& loops) {
  const std::size_t bodies = parent.size();
  const std::size_t n = 2 * bodies;
  std::string coordinates, velocities, mass, forces, constraints;
  auto x = [](std::size_t k) { return "x" + std::to_string(k); };
  auto y = [](std::size_t k) { return "y" + std::to_string(k); };
  for (std::size_t k = 0; k < bodies; ++k) {
    const std::string sep = k == 0 ? "" : ", ";
    coordinates += sep + "\"" + x(k) + "\", \"" + y(k) + "\"";
    velocities += sep + "\"v" + x(k) + "\", \"v" + y(k) + "\"";
    forces += sep + "\"0\", \"" + std::to_string(-9.81 * masses[k]) + "\"";
  }
  for (std::size_t i = 0; i < n; ++i) {
    mass += std::string(i == 0 ? "" : ", ") + "[";
    for (std::size_t j = 0; j < n; ++j) {
      mass += std::string(j == 0 ? "" : ", ") + "\"" +
              (i == j ? std::to_string(masses[i / 2]) : std::string("0")) + "\"";
    }
    mass += "]";
  }
  auto rod = [&](std::size_t k, int to) {
    const auto other = static_cast<std::size_t>(to);
    const std::string dx = to < 0 ? x(k) : "(" + x(k) + " - " + x(other) + ")";
    const std::string dy = to < 0 ? y(k) : "(" + y(k) + " - " + y(other) + ")";
    return "\"" + dx + "^2 + " + dy + "^2 - 1\"";
  };
  for (std::size_t k = 0; k < bodies; ++k) {
    constraints += std::string(k == 0 ? "" : ", ") + rod(k, parent[k]);
  }
  for (const auto& [a, b] : loops) constraints += ", " + rod(static_cast<std::size_t>(a), b);
  return R"({"name": "masses", "form": "mechanical", "coordinates": [)" + coordinates +
         R"(], "velocities": [)" + velocities + R"(], "mass": [)" + mass + R"(], "forces": [)" +
         forces + R"(], "constraints": [)" + constraints + "]}";
}

// A random tree of `bodies` masses with `loops` extra rods, and a state off the manifold.
struct Case {
  std::string spec;
  std::vector<double> z;
  std::vector<int> parent;  // of each body, −1: the origin
};

inline Case RandomCase(std::size_t bodies, std::size_t loops, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<int> parent(bodies);
  std::vector<double> masses(bodies);
  for (std::size_t k = 0; k < bodies; ++k) {
    parent[k] = static_cast<int>(random() % (k + 1)) - 1;  // −1 … k − 1
    masses[k] = 1.0 + 0.5 * (unit(random) + 1.0);
  }
  std::vector<std::pair<int, int>> extra;
  for (std::size_t l = 0; l < loops && bodies >= 2; ++l) {
    const int a = static_cast<int>(random() % bodies);
    int b = static_cast<int>(random() % bodies);
    if (b == a) b = (a + 1) % static_cast<int>(bodies);
    extra.emplace_back(a, b);
  }
  Case c{MassesSpec(parent, masses, extra), {}, parent};
  for (std::size_t k = 0; k < 4 * bodies; ++k) {
    c.z.push_back(unit(random) + (k % 2 == 1 ? -0.5 : 0.0));
  }
  return c;
}

}  // namespace tether::testing
