// An RC ladder of m stages driven by sin t, as an index-1 spec: node voltages x_i across the
// capacitors, currents w_i through the resistors,
//   C x_i' = w_i − w_{i+1}  (w_{m+1} = 0),   0 = r w_i − (x_{i−1} − x_i)  (x_0 = sin t),
// from rest. C is an expression (a parameter, or a function of t), r a parameter. c_y = r I: a
// large algebraic part that is as sparse as it gets. Stiff when r C is small (eigenvalues
// down to −4/(r C)).
#pragma once

#include <cstddef>
#include <string>

namespace tether::testing {

// `parameters` is the spec's "parameters" object, which must define r and C's parameters.
inline std::string RcLadderSpec(std::size_t m, const std::string& capacitance,
                                const std::string& parameters) {
  std::string differential, algebraic, rhs, constraints, initial;
  for (std::size_t i = 1; i <= m; ++i) {
    const std::string k = std::to_string(i);
    const std::string sep = i > 1 ? ", " : "";
    const std::string previous = i == 1 ? "sin(t)" : "x" + std::to_string(i - 1);
    const std::string next = i < m ? " - w" + std::to_string(i + 1) : "";
    differential += sep + "\"x" + k + "\"";
    algebraic += sep + "\"w" + k + "\"";
    rhs += sep + "\"(w" + k + next + ") / (" + capacitance + ")\"";
    constraints += sep + "\"r*w" + k + " - (" + previous + " - x" + k + ")\"";
    initial += sep + "\"x" + k + "\": 0, \"w" + k + "\": 0";
  }
  return "{\"name\": \"rc_ladder\", \"form\": \"index1\", \"parameters\": " + parameters +
         ", \"differential\": [" + differential + "], \"algebraic\": [" + algebraic +
         "], \"rhs\": [" + rhs + "], \"constraints\": [" + constraints + "], \"initial\": {" +
         initial + "}}";
}

}  // namespace tether::testing
