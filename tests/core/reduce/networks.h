// Semi-explicit networks for the algebraic kernel's sparse linear algebra tests: m differential
// and m algebraic variables, every algebraic equation coupled to its neighbours within
// `bandwidth` (c_y banded, like a circuit's node equations or a discretized PDE), with random
// coefficients.
//   index1:  x_i' = −x_i + a_i y_i + b_i y_{i+1},
//            0 = 3 y_i + 0.1 y_i³ − x_i + Σ_{0 < |j − i| ≤ bandwidth} d_ij y_j,
//   c_y = diag(3 + 0.3 y_i²) + D with every |d_ij| ≤ 0.05: strictly diagonally dominant by at
//   least 3 − 2·bandwidth·0.05, so regular everywhere, with ‖c_y⁻¹‖∞ ≤ 1 / (3 − 0.1·bandwidth).
//   index2:  x_i' = −x_i + y_i + b_i y_{i+1},   0 = x_i + 0.2 x_{i+1} − 1.2 (the last: x − 1),
//   c = h = g_x f, c_y = g_x f_y: the product of two unit-diagonal bidiagonal matrices.
#pragma once

#include <cstddef>
#include <random>
#include <string>

namespace tether::testing {

inline std::string NetworkSpec(const std::string& form, std::size_t m, std::size_t bandwidth,
                               unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> coefficient(0.5, 1.5);
  std::uniform_real_distribution<double> coupling(-0.05, 0.05);
  const auto name = [](char letter, std::size_t i) { return letter + std::to_string(i); };
  const auto list = [](const std::string& items) { return "[" + items + "]"; };
  std::string differential, algebraic, rhs, constraints, initial;
  for (std::size_t i = 0; i < m; ++i) {
    const std::string sep = i == 0 ? "" : ", ";
    differential += sep + "\"" + name('x', i) + "\"";
    algebraic += sep + "\"" + name('y', i) + "\"";
    initial += sep + "\"" + name('x', i) + "\": 1, \"" + name('y', i) + "\": 0";
    const std::string next = i + 1 < m ? name('y', i + 1) : "0";
    const double a = form == "index2" ? 1.0 : coefficient(random);
    rhs += sep + "\"-" + name('x', i) + " + " + std::to_string(a) + "*" + name('y', i) + " + " +
           std::to_string(0.2 * coefficient(random)) + "*" + next + "\"";
    std::string constraint;
    if (form == "index2") {
      constraint = i + 1 < m ? name('x', i) + " + 0.2*" + name('x', i + 1) + " - 1.2"
                             : name('x', i) + " - 1";
    } else {
      constraint = "3*" + name('y', i) + " + 0.1*" + name('y', i) + "^3 - " + name('x', i);
      for (std::size_t j = i >= bandwidth ? i - bandwidth : 0; j <= i + bandwidth && j < m;
           ++j) {
        if (j != i) constraint += " + " + std::to_string(coupling(random)) + "*" + name('y', j);
      }
    }
    constraints += sep + "\"" + constraint + "\"";
  }
  return "{\"name\": \"network\", \"form\": \"" + form + "\", \"differential\": " +
         list(differential) + ", \"algebraic\": " + list(algebraic) + ", \"rhs\": " + list(rhs) +
         ", \"constraints\": " + list(constraints) + ", \"initial\": {" + initial + "}}";
}

}  // namespace tether::testing
