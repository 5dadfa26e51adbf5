// The seed pendulum (chapter 11, Example 11.1) as an inline spec, so the simulate tests do not
// depend on the catalog files: m = 2, ℓ = 2.5, g = 9.81, q0 = (0.86, 2.35), v0 = 0.
#pragma once

#include <memory>
#include <string>

#include "tether/model/model.h"

namespace tether::testing {

inline constexpr double kMass = 2.0;
inline constexpr double kLength = 2.5;
inline constexpr double kGravity = 9.81;
inline constexpr double kX0 = 0.86;
inline constexpr double kY0 = 2.35;

inline const char* kPendulumSpec = R"({
  "name": "seed-pendulum",
  "form": "mechanical",
  "parameters": {"m": {"value": 2.0}, "l": {"value": 2.5}, "g": {"value": 9.81}},
  "coordinates": ["x", "y"],
  "velocities": ["vx", "vy"],
  "mass": [["m", "0"], ["0", "m"]],
  "forces": ["0", "-m*g"],
  "constraints": ["x^2 + y^2 - l^2"],
  "initial": {"x": 0.86, "y": 2.35, "vx": 0, "vy": 0},
  "outputs": {"energy": "0.5*m*(vx^2 + vy^2) + m*g*y"}
})";

inline std::shared_ptr<const model::Model> ParseOrDie(const std::string& json) {
  model::ModelResult result = model::ParseModel(json);
  if (!result.ok()) {
    fprintf(stderr, "spec does not parse:\n%s\n", result.ErrorText().c_str());
    abort();
  }
  return result.model;
}

inline std::shared_ptr<const model::Model> Pendulum() { return ParseOrDie(kPendulumSpec); }

}  // namespace tether::testing
