// Shared helpers of the core/model tests: small valid specs to mutate, and evaluation of a
// model's expressions by variable name.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tether/model/model.h"

namespace tether::model::testing {

// The seed pendulum, without the optional fields.
inline nlohmann::ordered_json PendulumSpec() {
  return nlohmann::ordered_json::parse(R"({
    "name": "pendulum",
    "form": "mechanical",
    "parameters": {"m": 2.0, "l": 2.5, "g": 9.81},
    "coordinates": ["x", "y"],
    "velocities": ["vx", "vy"],
    "mass": [["m", "0"], ["0", "m"]],
    "forces": ["0", "-m*g"],
    "constraints": ["x^2 + y^2 - l^2"],
    "initial": {"x": 0.86, "y": 2.35, "vx": 0, "vy": 0},
    "outputs": {"energy": "0.5*m*(vx^2 + vy^2) + m*g*y"}
  })");
}

// x' = 1 - y, 0 = y - x^2 (index 1) or, with "index2", 0 = x - t^2.
inline nlohmann::ordered_json SemiExplicitSpec(const std::string& form) {
  nlohmann::ordered_json spec = nlohmann::ordered_json::parse(R"({
    "name": "semi",
    "parameters": {"k": 1.0},
    "differential": ["x", "z"],
    "algebraic": ["y"],
    "rhs": ["1 - y", "k*x"],
    "initial": {"x": 0, "z": 0, "y": 0}
  })");
  spec["form"] = form;
  spec["constraints"] = {form == "index2" ? "x - t^2" : "y - x^2"};
  return spec;
}

// models/pendulum_implicit.json without the optional fields (index 3 in the implicit form).
inline nlohmann::ordered_json ImplicitPendulumSpec() {
  return nlohmann::ordered_json::parse(R"({
    "name": "pendulum_implicit",
    "form": "implicit",
    "parameters": {"m": 1.0, "l": 1.0, "g": 9.81},
    "variables": ["x", "y", "u", "v", "lam"],
    "equations": [
      "der(x) = u",
      "der(y) = v",
      "m*der(u) = 2*x*lam",
      {"name": "vertical", "expr": "m*der(v) = -m*g + 2*y*lam"},
      {"name": "rod", "expr": "x^2 + y^2 = l^2"}
    ],
    "initial": {"x": 0.6, "y": -0.8, "u": 0, "v": 0, "lam": 0},
    "outputs": {"energy": "0.5*m*(u^2 + v^2) + m*g*y"}
  })");
}

// Evaluates `e` of `model` with the given values by name; parameters default to their
// values and t to 0. An unknown symbol fails the test and evaluates to NaN.
inline double Evaluate(const Model& model, expr::Expr e,
                       const std::map<std::string, double>& values) {
  return model.context->Evaluate(e, [&](expr::Expr symbol) {
    const std::string& name = model.context->symbol_name(symbol);
    if (const auto it = values.find(name); it != values.end()) return it->second;
    if (const Parameter* p = model.FindParameter(name)) return p->value;
    if (name == "t") return 0.0;
    ADD_FAILURE() << "no value for symbol '" << name << "'";
    return std::numeric_limits<double>::quiet_NaN();
  });
}

}  // namespace tether::model::testing
